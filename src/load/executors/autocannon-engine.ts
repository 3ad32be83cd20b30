import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import { untilStart } from './undici-engine.ts';
import { now, type EngineHooks, type EngineLimits, type EngineRun, type EngineTarget } from './engine.ts';
import { RequestTimer, type RequestTiming } from '../measure/request-timer.ts';
import { ByteBudget, encodingBreach, type BoundBreach } from '../measure/response-bounds.ts';
import { ClientConnections, newConnectionPerRequest } from './connection-reuse.ts';
import { headerValue, readBodies, resetConnection, type AutocannonClient, type ClientState } from './autocannon-client.ts';

/**
 * Closed loop driven by autocannon 8, with its known faults worked around (read in its sources,
 * node_modules/autocannon/lib/httpClient.js and lib/run.js; docs/load.md says more):
 * - `body` events carry the whole socket buffer: we replace the parser's kOnBody callback (it
 *   gets the exact slice of each HTTP chunk) and stamp each slice with process.hrtime.
 * - its timeout is not reset while data flows: its own timeout is set beyond the run, and an
 *   idle timer of ours (reset on every byte) fails a silent request with class `timeout`.
 * - its coordinated-omission correction uses the interval in the wrong unit: no rate is set,
 *   so it never runs; latencies come from our own stamps, not from autocannon's histogram.
 * - responses are timed per chunk by us, so autocannon's whole-ms latency histogram is unused.
 */

interface AutocannonInstance extends EventEmitter {
  stop(): void;
}

type AutocannonFn = (opts: Record<string, unknown>, cb: (err: unknown, result: unknown) => void) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as AutocannonFn;

export async function runClosedLoopAutocannon(target: EngineTarget, limits: EngineLimits, concurrency: number, hooks: EngineHooks): Promise<EngineRun> {
  const budgetS = Math.ceil((Number(limits.stopNs - now()) / 1e6 + limits.drainMs) / 1000) + 5;
  const loop = new AutocannonLoop(target, limits, hooks);
  await untilStart(limits.startNs, hooks.signal);
  // Interrupted before t = 0 (e.g. Ctrl-C during setup): send nothing.
  if (isInterrupted(hooks.signal)) return loop.outcome();
  return loop.drive(concurrency, budgetS);
}

/** One closed-loop run: its clients' states, the request count and the stop. */
class AutocannonLoop {
  private readonly states = new Map<AutocannonClient, ClientState>();
  private issued = 0;
  private measured = 0;
  private bodySeq = 0;
  // The body autocannon builds next (setupRequest runs right after the 'request' event of a client):
  // a race's retry sends its request's body again; the client records what it is sent.
  private retryBody: number | null = null;
  private building: ClientState | null = null;
  private lastBody = -1;
  private stopping = false;
  private lastStartNs: bigint;
  private outstanding = 0;
  private allReported: (() => void) | null = null;
  private allDone: () => void = () => undefined;
  private readonly finished = new Promise<void>((r) => (this.allDone = r));

  constructor(
    private readonly target: EngineTarget,
    private readonly limits: EngineLimits,
    private readonly hooks: EngineHooks,
  ) {
    this.lastStartNs = limits.startNs;
  }

  outcome(): EngineRun {
    return { issued: this.issued, due: this.issued, lastStartNs: this.lastStartNs };
  }

  private readonly report = (t: RequestTiming): void => {
    if (--this.outstanding === 0) this.allReported?.();
    if (t.abortedAtEnd) this.hooks.collector.onAborted(t);
    else this.hooks.collector.onFinish(t);
    this.hooks.onTiming?.(t);
  };

  /** autocannon destroys a client whose reqsMade reached responseMax before its next request. */
  private stopClient(client: AutocannonClient): void {
    client.responseMax = Math.max(1, client.reqsMade);
  }

  private readonly beginStop = (): void => {
    if (this.stopping) return;
    this.stopping = true;
    for (const [client, st] of this.states) {
      if (st.timer === null || st.timer.finished) client.destroy();
      else this.stopClient(client);
    }
  };

  private readonly setupClient = (client: AutocannonClient): void => {
    // autocannon built this client's first request just before calling setupClient.
    const st: ClientState = { timer: null, budget: null, lastByteNs: 0n, suspectAt: -1n, conns: new ClientConnections(), bodySeq: this.lastBody };
    this.states.set(client, st);
    this.allowRaceRetry(client, st);
    if (this.target.connectionReuse === 'never') newConnectionPerRequest(client, () => resetConnection(client));
    readBodies(
      client,
      st,
      (b) => this.breach(client, st, b),
      () => this.dropConnection(client, st),
    );
    client.on('request', () => this.onRequest(client, st));
    client.on('headers', (info: { statusCode: number; headers: unknown }) => this.onHeaders(client, st, info));
    client.on('response', () => this.onResponse(client, st));
    client.on('connError', (err: Error) => this.onConnError(client, st, err));
    client.on('done', () => this.onDone(client, st));
  };

  /** A race's retry is written even after the stop (its request was sent before it): one write more than the stop allowed. */
  private allowRaceRetry(client: AutocannonClient, st: ClientState): void {
    const write = client._doRequest.bind(client);
    client._doRequest = () => {
      if (this.stopping && st.timer !== null && !st.timer.finished && st.conns.raced(st.timer)) client.responseMax = client.reqsMade + 1;
      write();
    };
  }

  /** Inside the parser's callbacks the connection cannot be dropped: it is reset right after. */
  private dropConnection(client: AutocannonClient, st: ClientState): void {
    st.timer = null;
    setImmediate(() => (this.stopping ? client.destroy() : resetConnection(client)));
  }

  /** A bound broken while reading: the request fails now. */
  private breach(client: AutocannonClient, st: ClientState, b: BoundBreach): void {
    const timer = st.timer;
    if (timer === null || timer.finished) return;
    timer.fail(now(), b.errorClass, b.message);
    this.dropConnection(client, st);
  }

  private onRequest(client: AutocannonClient, st: ClientState): void {
    const t = now();
    const prev = st.timer;
    if (client.reqsMade > 0) this.building = st;
    if (prev !== null && !prev.finished && !client.destroyed && st.conns.raced(prev)) return this.retryRaced(client, st, prev, t);
    if (prev !== null && !prev.finished) prev.fail(t, 'reset', 'connection closed before the response ended', this.stopping);
    st.timer = null;
    st.conns.sending(client.conn);
    if (this.stopping || client.destroyed) return;
    this.startRequest(st, t);
  }

  /** A connection reuse race (connection-reuse.ts): autocannon opened a new connection; the same request goes out on it. */
  private retryRaced(client: AutocannonClient, st: ClientState, prev: RequestTimer, t: bigint): void {
    prev.timing.reuseRace = { retriedNs: t };
    this.retryBody = st.bodySeq;
    st.conns.sending(client.conn);
    st.budget = new ByteBudget(this.target.stream);
    st.lastByteNs = t;
  }

  /** A new request on this client, unless the run's end or its request cap has come. */
  private startRequest(st: ClientState, t: bigint): void {
    const { limits, target, hooks } = this;
    const warm = hooks.collector.isWarmup(t);
    if (t >= limits.stopNs || (!warm && limits.maxRequests !== null && this.measured >= limits.maxRequests)) return this.beginStop();
    if (!warm) this.measured++;
    const seq = this.issued++;
    this.outstanding++;
    st.timer = new RequestTimer({ seq, intendedNs: t, sentNs: t, stream: target.stream, sent: target.sent, onDone: this.report, checker: target.checker });
    st.budget = new ByteBudget(target.stream);
    st.lastByteNs = t;
    this.lastStartNs = t;
    hooks.collector.onStart(t);
    // The last allowed request: every client (this one included) stops after its current response.
    if (!warm && limits.maxRequests !== null && this.measured >= limits.maxRequests) this.beginStop();
  }

  private onHeaders(client: AutocannonClient, st: ClientState, info: { statusCode: number; headers: unknown }): void {
    const t = now();
    st.lastByteNs = t;
    const timer = st.timer;
    if (timer?.headers(t, info.statusCode, headerValue(info.headers, 'x-request-id'), headerValue(info.headers, 'content-type')) === 'failed') {
      // Failed at its head (a stream that is not server-sent events): the checker's verdict stands, the body is not read.
      timer.end(t);
      return this.dropConnection(client, st);
    }
    const over = encodingBreach(headerValue(info.headers, 'content-encoding'), this.target.stream) ?? st.budget?.declare(headerValue(info.headers, 'content-length'));
    if (over !== undefined) this.breach(client, st, over);
  }

  private onResponse(client: AutocannonClient, st: ClientState): void {
    const timer = st.timer;
    if (timer === null || timer.finished) return;
    timer.end(now());
    if (this.stopping) this.stopClient(client);
  }

  private onConnError(client: AutocannonClient, st: ClientState, err: Error): void {
    const timer = st.timer;
    if (timer === null || timer.finished) return;
    // A connection reuse race: autocannon connects anew and the 'request' event sends it again.
    if (!client.destroyed && st.conns.raced(timer)) return;
    const cls = timer.timing.headersNs === null && /ECONNREFUSED/.test(err.message) ? 'connect' : 'reset';
    timer.fail(now(), cls, err.message, this.stopping);
  }

  private onDone(client: AutocannonClient, st: ClientState): void {
    const timer = st.timer;
    if (timer !== null && !timer.finished) timer.abortAtEnd(now(), this.limits, isInterrupted(this.hooks.signal));
    this.states.delete(client);
    if (this.states.size === 0) this.allDone();
  }

  private readonly setupRequest = (req: Record<string, unknown>): Record<string, unknown> => {
    const seq = this.retryBody ?? this.bodySeq++;
    this.retryBody = null;
    this.lastBody = seq;
    if (this.building !== null) this.building.bodySeq = seq;
    this.building = null;
    const { target } = this;
    const extra = target.extraHeaders?.(seq, Number(now() - this.limits.startNs) / 1e9);
    return extra === undefined ? { ...req, body: target.body(seq) } : { ...req, body: target.body(seq), headers: { ...target.headers, ...extra } };
  };

  /** Fails a request past its total deadline or silent past the idle limit, and drops its connection. */
  private readonly sweep = (): void => {
    const t = now();
    if (t >= this.limits.stopNs) this.beginStop();
    for (const [client, st] of this.states) {
      const timer = st.timer;
      if (timer === null || timer.finished) continue;
      const why = this.expiry(st, timer, t);
      if (why === null) continue;
      timer.fail(t, 'timeout', why);
      st.timer = null;
      if (this.stopping) client.destroy();
      else resetConnection(client);
    }
  };

  /** Why a request times out now, or null. */
  private expiry(st: ClientState, timer: RequestTimer, t: bigint): string | null {
    const { deadlineMs, timeoutMs } = this.limits;
    // The request's total deadline, whatever still arrives (an endless or dribbled body).
    if (Number(t - timer.timing.sentNs) / 1e6 > deadlineMs) return `the response did not end within the request deadline of ${deadlineMs / 1000} s (--request-timeout)`;
    if (st.paused === true || Number(t - st.lastByteNs) / 1e6 <= timeoutMs) return null;
    // Confirmed on the next sweep, after an I/O phase (see idleSweep in undici-engine.ts).
    if (st.suspectAt !== st.lastByteNs) {
      st.suspectAt = st.lastByteNs;
      return null;
    }
    return `no byte for ${timeoutMs} ms`;
  }

  async drive(concurrency: number, budgetS: number): Promise<EngineRun> {
    const { limits, hooks } = this;
    const result = this.start(concurrency, budgetS);
    const idle = setInterval(this.sweep, 50);
    const tick = setInterval(() => hooks.onTick?.(), 250);
    hooks.signal?.addEventListener('abort', this.beginStop, { once: true });
    const stopAt = setTimeout(this.beginStop, Math.max(0, Number(limits.stopNs - now()) / 1e6));
    const drain: { timer?: NodeJS.Timeout } = {};
    try {
      await Promise.race([this.finished, untilAborted(hooks.signal), this.drained(drain)]);
      this.abortInFlight();
      result.instance.stop();
      await result.done;
      await this.lastReports();
    } finally {
      clearTimeout(stopAt);
      if (drain.timer !== undefined) clearTimeout(drain.timer);
      clearInterval(idle);
      clearInterval(tick);
      hooks.signal?.removeEventListener('abort', this.beginStop);
    }
    return this.outcome();
  }

  private start(concurrency: number, budgetS: number): { instance: AutocannonInstance; done: Promise<void> } {
    const url = new URL(this.target.origin);
    const bodies = [{ method: 'POST', path: this.target.path, headers: this.target.headers, setupRequest: this.setupRequest }];
    let instance: AutocannonInstance | undefined;
    const done = new Promise<void>((resolve) => {
      instance = autocannon(
        {
          url: `${url.protocol}//${url.host}`,
          connections: concurrency,
          pipelining: 1,
          duration: budgetS,
          // Beyond the whole run: our idle timer decides timeouts.
          timeout: budgetS + 5,
          sampleInt: 250,
          requests: bodies,
          setupClient: this.setupClient,
          skipAggregateResult: true,
        },
        () => resolve(),
      );
    });
    return { instance: instance as AutocannonInstance, done };
  }

  /** Resolves drainMs after the stop began (the in-flight responses' grace). */
  private drained(drain: { timer?: NodeJS.Timeout }): Promise<void> {
    return new Promise<void>((r) => {
      const arm = (): void => {
        drain.timer = setTimeout(r, this.limits.drainMs);
      };
      if (this.stopping) return arm();
      const check = setInterval(() => {
        if (!this.stopping) return;
        clearInterval(check);
        arm();
      }, 20);
      void this.finished.then(() => clearInterval(check));
    });
  }

  /** Ctrl-C or the drain's end: in-flight responses are not waited for; they are aborted at once (counted as aborted at end). */
  private abortInFlight(): void {
    for (const [client, st] of [...this.states]) {
      const timer = st.timer;
      if (timer !== null && !timer.finished) timer.abortAtEnd(now(), this.limits, isInterrupted(this.hooks.signal));
      st.timer = null;
      client.destroy();
    }
  }

  /** Checking is deferred (after each I/O phase, or on the check worker): wait for the last reports. */
  private async lastReports(): Promise<void> {
    if (this.outstanding <= 0) return;
    let giveUp: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.allReported = resolve;
      giveUp = setTimeout(resolve, 10_000);
    });
    clearTimeout(giveUp);
  }
}

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((r) => {
    if (signal?.aborted === true) r();
    signal?.addEventListener('abort', () => r(), { once: true });
  });
}

function isInterrupted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
