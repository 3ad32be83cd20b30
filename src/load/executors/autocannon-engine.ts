import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import { untilStart } from './undici-engine.ts';
import { now, type EngineHooks, type EngineLimits, type EngineRun, type EngineTarget } from './engine.ts';
import { RequestTimer, type RequestTiming } from '../measure/request-timer.ts';
import { ByteBudget, encodingBreach, type BoundBreach } from '../measure/response-bounds.ts';
import { ClientConnections, newConnectionPerRequest } from './connection-reuse.ts';

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

interface AutocannonClient extends EventEmitter {
  parser: object;
  conn: { bytesRead: number };
  reqsMade: number;
  responseMax: number | undefined;
  destroyed: boolean;
  _resetConnection(): void;
  _doRequest(): void;
  destroy(): void;
}

interface AutocannonInstance extends EventEmitter {
  stop(): void;
}

type AutocannonFn = (opts: Record<string, unknown>, cb: (err: unknown, result: unknown) => void) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as AutocannonFn;

interface ClientState {
  timer: RequestTimer | null;
  /** Bytes of the current response (HDR-013): past the limit it fails and the connection is reset. */
  budget: ByteBudget | null;
  lastByteNs: bigint;
  /** lastByteNs when a sweep first saw this request over the idle limit. */
  suspectAt: bigint;
  /** Reads paused while the check worker catches up. */
  paused?: boolean;
  /** The connection each request went out on (connection reuse races, connection-reuse.ts). */
  conns: ClientConnections;
  /** The body (its sequence number) of the request written last. */
  bodySeq: number;
}

/**
 * Drops the connection of a request iari failed mid-response (a timeout, a bound) and opens a new
 * one. autocannon reuses the client's HTTP parser, which is still inside the old response's body:
 * without starting it over, the next response's bytes would be read as the rest of that body
 * (and end a request that never saw its head).
 */
function resetConnection(client: AutocannonClient): void {
  client._resetConnection();
  (client.parser as { initialize?: (type: string) => void }).initialize?.('RESPONSE');
}

function headerValue(raw: unknown, name: string): string | null {
  if (!Array.isArray(raw)) return null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) return String(raw[i + 1]);
  }
  return null;
}

export async function runClosedLoopAutocannon(target: EngineTarget, limits: EngineLimits, concurrency: number, hooks: EngineHooks): Promise<EngineRun> {
  const collector = hooks.collector;
  const states = new Map<AutocannonClient, ClientState>();
  let issued = 0;
  let measured = 0;
  let bodySeq = 0;
  // The body autocannon builds next (setupRequest runs right after the 'request' event of a client):
  // a race's retry sends its request's body again; the client records what it is sent.
  let retryBody: number | null = null;
  let building: ClientState | null = null;
  let lastBody = -1;
  let stopping = false;
  let lastStartNs = limits.startNs;
  const url = new URL(target.origin);

  let outstanding = 0;
  let allReported: (() => void) | null = null;
  const report = (t: RequestTiming): void => {
    if (--outstanding === 0) allReported?.();
    if (t.abortedAtEnd) collector.onAborted(t);
    else collector.onFinish(t);
    hooks.onTiming?.(t);
  };

  const stopClient = (client: AutocannonClient): void => {
    // autocannon destroys a client whose reqsMade reached responseMax before its next request.
    client.responseMax = Math.max(1, client.reqsMade);
  };

  const beginStop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const [client, st] of states) {
      if (st.timer === null || st.timer.finished) client.destroy();
      else stopClient(client);
    }
  };

  const setupClient = (client: AutocannonClient): void => {
    // autocannon built this client's first request just before calling setupClient.
    const st: ClientState = { timer: null, budget: null, lastByteNs: 0n, suspectAt: -1n, conns: new ClientConnections(), bodySeq: lastBody };
    states.set(client, st);
    // A race's retry is written even after the stop (its request was sent before it): one write more than the stop allowed.
    const write = client._doRequest.bind(client);
    client._doRequest = () => {
      if (stopping && st.timer !== null && !st.timer.finished && st.conns.raced(st.timer)) client.responseMax = client.reqsMade + 1;
      write();
    };
    if (target.connectionReuse === 'never') newConnectionPerRequest(client, () => resetConnection(client));
    const kOnBody = (client.parser.constructor as unknown as { kOnBody: number }).kOnBody;
    // Inside the parser's callbacks the connection cannot be dropped: it is reset right after.
    const dropConnection = (): void => {
      st.timer = null;
      setImmediate(() => (stopping ? client.destroy() : resetConnection(client)));
    };
    // A bound broken while reading: the request fails now.
    const breach = (b: BoundBreach): void => {
      const timer = st.timer;
      if (timer === null || timer.finished) return;
      timer.fail(now(), b.errorClass, b.message);
      dropConnection();
    };
    const onBody = (buf: Buffer, start: number, len: number): void => {
      const t = now();
      st.lastByteNs = t;
      const over = st.budget?.add(len);
      if (over !== undefined) return breach(over);
      if (st.timer?.data(start === 0 && len === buf.length ? buf : buf.subarray(start, start + len), t) != null) return dropConnection();
      // The check worker is behind, or a large event waits its turn: stop reading this connection meanwhile.
      const wait = st.timer?.readGate() ?? null;
      const conn = (client as unknown as { conn?: { pause(): void; resume(): void; destroyed: boolean } }).conn;
      if (wait !== null && conn !== undefined && !st.paused) {
        st.paused = true;
        conn.pause();
        void wait.then(() => {
          st.paused = false;
          st.lastByteNs = now();
          if (!conn.destroyed) conn.resume();
        });
      }
    };
    // autocannon assigns its own kOnBody after setupClient; keep ours (the original would only
    // accumulate the body as a string, chunk by chunk, and emit the whole socket buffer).
    Object.defineProperty(client.parser, kOnBody, { configurable: true, get: () => onBody, set: () => undefined });

    client.on('request', () => {
      const t = now();
      const prev = st.timer;
      if (client.reqsMade > 0) building = st;
      if (prev !== null && !prev.finished && !client.destroyed && st.conns.raced(prev)) {
        // A connection reuse race (connection-reuse.ts): autocannon opened a new connection; the same request goes out on it.
        prev.timing.reuseRace = { retriedNs: t };
        retryBody = st.bodySeq;
        st.conns.sending(client.conn);
        st.budget = new ByteBudget(target.stream);
        st.lastByteNs = t;
        return;
      }
      if (prev !== null && !prev.finished) prev.fail(t, 'reset', 'connection closed before the response ended', stopping);
      st.timer = null;
      st.conns.sending(client.conn);
      if (stopping || client.destroyed) return;
      const warm = collector.isWarmup(t);
      if (t >= limits.stopNs || (!warm && limits.maxRequests !== null && measured >= limits.maxRequests)) {
        beginStop();
        return;
      }
      if (!warm) measured++;
      const seq = issued++;
      outstanding++;
      st.timer = new RequestTimer({ seq, intendedNs: t, sentNs: t, stream: target.stream, sent: target.sent, onDone: report, checker: target.checker });
      st.budget = new ByteBudget(target.stream);
      st.lastByteNs = t;
      lastStartNs = t;
      collector.onStart(t);
      // The last allowed request: every client (this one included) stops after its current response.
      if (!warm && limits.maxRequests !== null && measured >= limits.maxRequests) beginStop();
    });
    client.on('headers', (info: { statusCode: number; headers: unknown }) => {
      const t = now();
      st.lastByteNs = t;
      const timer = st.timer;
      if (timer?.headers(t, info.statusCode, headerValue(info.headers, 'x-request-id'), headerValue(info.headers, 'content-type')) === 'failed') {
        // Failed at its head (a stream that is not server-sent events): the checker's verdict stands, the body is not read.
        timer.end(t);
        return dropConnection();
      }
      const over = encodingBreach(headerValue(info.headers, 'content-encoding'), target.stream) ?? st.budget?.declare(headerValue(info.headers, 'content-length'));
      if (over !== undefined) breach(over);
    });
    client.on('response', () => {
      const timer = st.timer;
      if (timer === null || timer.finished) return;
      timer.end(now());
      if (stopping) stopClient(client);
    });
    client.on('connError', (err: Error) => {
      const timer = st.timer;
      if (timer === null || timer.finished) return;
      // A connection reuse race: autocannon connects anew and the 'request' event sends it again.
      if (!client.destroyed && st.conns.raced(timer)) return;
      const cls = timer.timing.headersNs === null && /ECONNREFUSED/.test(err.message) ? 'connect' : 'reset';
      timer.fail(now(), cls, err.message, stopping);
    });
    client.on('done', () => {
      const timer = st.timer;
      if (timer !== null && !timer.finished) timer.abortAtEnd(now(), limits, isInterrupted(hooks.signal));
      states.delete(client);
      if (states.size === 0) allDone();
    });
  };

  let allDone: () => void = () => undefined;
  const finished = new Promise<void>((r) => (allDone = r));

  const setupRequest = (req: Record<string, unknown>): Record<string, unknown> => {
    const seq = retryBody ?? bodySeq++;
    retryBody = null;
    lastBody = seq;
    if (building !== null) building.bodySeq = seq;
    building = null;
    const extra = target.extraHeaders?.(seq, Number(now() - limits.startNs) / 1e9);
    return extra === undefined ? { ...req, body: target.body(seq) } : { ...req, body: target.body(seq), headers: { ...target.headers, ...extra } };
  };
  const bodies = [{ method: 'POST', path: target.path, headers: target.headers, setupRequest }];
  const budgetS = Math.ceil((Number(limits.stopNs - now()) / 1e6 + limits.drainMs) / 1000) + 5;
  await untilStart(limits.startNs, hooks.signal);
  // Interrupted before t = 0 (e.g. Ctrl-C during setup): send nothing.
  if (hooks.signal?.aborted === true) return { issued, due: issued, lastStartNs };
  let instance: AutocannonInstance | undefined;
  const result = new Promise<void>((resolve) => {
    instance = autocannon(
      {
        url: `${url.protocol}//${url.host}`,
        connections: concurrency,
        pipelining: 1,
        duration: budgetS,
        // Beyond the whole run: our idle timer below decides timeouts.
        timeout: budgetS + 5,
        sampleInt: 250,
        requests: bodies,
        setupClient,
        skipAggregateResult: true,
      },
      () => resolve(),
    );
  });

  const idle = setInterval(() => {
    const t = now();
    if (t >= limits.stopNs) beginStop();
    for (const [client, st] of states) {
      const timer = st.timer;
      if (timer === null || timer.finished) continue;
      // The request's total deadline, whatever still arrives (an endless or dribbled body).
      if (Number(t - timer.timing.sentNs) / 1e6 > limits.deadlineMs) {
        timer.fail(t, 'timeout', `the response did not end within the request deadline of ${limits.deadlineMs / 1000} s (--request-timeout)`);
        st.timer = null;
        if (stopping) client.destroy();
        else resetConnection(client);
        continue;
      }
      if (!st.paused && Number(t - st.lastByteNs) / 1e6 > limits.timeoutMs) {
        // Confirmed on the next sweep, after an I/O phase (see idleSweep in undici-engine.ts).
        if (st.suspectAt !== st.lastByteNs) {
          st.suspectAt = st.lastByteNs;
          continue;
        }
        timer.fail(t, 'timeout', `no byte for ${limits.timeoutMs} ms`);
        st.timer = null;
        if (stopping) client.destroy();
        else resetConnection(client);
      }
    }
  }, 50);
  const tick = setInterval(() => hooks.onTick?.(), 250);
  const onAbort = (): void => beginStop();
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  const stopAt = setTimeout(beginStop, Math.max(0, Number(limits.stopNs - now()) / 1e6));
  let drainTimer: NodeJS.Timeout | undefined;
  // Ctrl-C: in-flight responses are not waited for; they are aborted at once (counted as aborted at end).
  const interrupted = new Promise<void>((r) => {
    if (hooks.signal?.aborted === true) r();
    hooks.signal?.addEventListener('abort', () => r(), { once: true });
  });
  try {
    await Promise.race([
      finished,
      interrupted,
      new Promise<void>((r) => {
        const arm = (): void => {
          drainTimer = setTimeout(r, limits.drainMs);
        };
        if (stopping) arm();
        else {
          const check = setInterval(() => {
            if (stopping) {
              clearInterval(check);
              arm();
            }
          }, 20);
          void finished.then(() => clearInterval(check));
        }
      }),
    ]);
    for (const [client, st] of [...states]) {
      const timer = st.timer;
      if (timer !== null && !timer.finished) timer.abortAtEnd(now(), limits, isInterrupted(hooks.signal));
      st.timer = null;
      client.destroy();
    }
    instance?.stop();
    await result;
    // Checking is deferred (after each I/O phase, or on the check worker): wait for the last reports.
    if (outstanding > 0) {
      let giveUp: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        allReported = resolve;
        giveUp = setTimeout(resolve, 10_000);
      });
      clearTimeout(giveUp);
    }
  } finally {
    clearTimeout(stopAt);
    if (drainTimer !== undefined) clearTimeout(drainTimer);
    clearInterval(idle);
    clearInterval(tick);
    hooks.signal?.removeEventListener('abort', onAbort);
  }
  return { issued, due: issued, lastStartNs };
}

function isInterrupted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
