import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { now, sleepMs, type EngineHooks, type EngineLimits, type EngineRun, type EngineTarget } from './engine.ts';
import type { ErrorClass } from '../results/load-result.ts';
import type { EndLimits } from '../measure/end-timeout.ts';
import { RequestTimer, type RequestTiming } from '../measure/request-timer.ts';
import { isTlsFailure, RequestDeadline, transportClass } from '../../client/transport-errors.ts';
import { BoundBreach, ByteBudget, encodingBreach } from '../measure/response-bounds.ts';
import { dispatchFresh, ReuseWatch } from './connection-reuse.ts';
import { requestHandler } from '../../client/dispatch-request.ts';
import { CancelWatch, ClientCancel } from './cancellation.ts';

/** In-flight requests: the idle sweep and the end of the run abort them through this. */
export interface InFlightEntry {
  timer: RequestTimer;
  lastByteNs: bigint;
  /** Reads paused by iari itself (the check worker is behind, or a large event waits its turn): the server is not idle. */
  paused: boolean;
  /** The run ended: with `limits`, the request ends as a timeout or aborted at end (end-timeout.ts); without, aborted at end. */
  abort: (limits?: EndLimits, interrupted?: boolean) => void;
  idle: () => void;
  /** Past the request's total deadline (however many bytes still arrive). */
  expire: () => void;
}
export type InFlight = Map<RequestTimer, InFlightEntry>;

class AbortedAtEnd extends Error {
  override readonly name = 'AbortedAtEnd';
}

/** The head decided the response (a stream that is not server-sent events): the checker's verdict stands, the body is not read. */
class DecidedAtHead extends Error {
  override readonly name = 'DecidedAtHead';
}

class IdleTimeout extends Error {
  override readonly name = 'IdleTimeout';
  readonly code = 'IARI_IDLE_TIMEOUT';
}

/**
 * Fails requests that received no byte for `timeoutMs` (undici's own timers are coarse, about
 * 1 s, so they only back this up). A request over the limit is failed on the NEXT sweep if it is
 * still silent: an I/O phase runs in between, so reads that waited while the client itself was
 * paused are stamped first and a busy client never reports a server timeout. A request older than
 * `deadlineMs` since its send fails whatever it receives (an endless or dribbled body).
 */
export function idleSweep(inFlight: InFlight, timeoutMs: number, deadlineMs: number): NodeJS.Timeout {
  const limit = BigInt(Math.round(timeoutMs * 1e6));
  const deadline = BigInt(Math.round(deadlineMs * 1e6));
  const suspects = new Map<InFlightEntry, bigint>();
  const t = setInterval(() => {
    const n = now();
    for (const e of inFlight.values()) {
      if (n - e.timer.timing.sentNs > deadline) {
        e.expire();
        continue;
      }
      if (e.paused || n - e.lastByteNs <= limit) continue;
      if (suspects.get(e) === e.lastByteNs) e.idle();
      else suspects.set(e, e.lastByteNs);
    }
    for (const e of suspects.keys()) if (!inFlight.has(e.timer)) suspects.delete(e);
  }, Math.max(10, Math.min(50, Math.min(timeoutMs, deadlineMs) / 4)));
  t.unref();
  return t;
}

/** Waits (yielding to I/O) until the run's t = 0. */
export async function untilStart(startNs: bigint, signal?: AbortSignal): Promise<void> {
  const ms = Number(startNs - now()) / 1e6;
  if (ms > 2) await sleepMs(ms - 1, signal);
  while (now() < startNs && signal?.aborted !== true) await new Promise<void>((r) => setImmediate(r));
}

/** Waits for an arrival's intended time: a timer for the bulk, then yields to I/O until due (or the caller aborts). */
export async function untilDue(intendedNs: bigint, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const left = Number(intendedNs - now()) / 1e6;
    if (left <= 0.05) return;
    if (left > 2) await sleepMs(left - 1.5, signal);
    else await new Promise<void>((r) => setImmediate(r));
    if (signal?.aborted === true) return;
  }
}

export { isTlsFailure };

/** A load request's error class, from the one transport classification (src/client/transport-errors.ts). */
export function classifyError(err: unknown): ErrorClass {
  const msg = err instanceof Error ? err.message : String(err);
  const kind = transportClass(err);
  // TLS handshake and certificate failures, and a proxy refusing the tunnel, happen before any request.
  if (kind === 'tls' || /^Proxy response \(\d+\)/.test(msg)) return 'connect';
  if (kind === 'framing') return 'other';
  return kind;
}

/**
 * A pool with no connection cap: every due arrival gets a connection at once (a new one when
 * all are busy), so arrivals are never held back by a connection count.
 */
export function makePool(target: EngineTarget, limits: EngineLimits): Dispatcher {
  const options: Pool.Options = {
    connections: null,
    pipelining: 1,
    // Backstops only: the idle sweep decides timeouts to the tick.
    headersTimeout: limits.timeoutMs + 2000,
    bodyTimeout: limits.timeoutMs + 2000,
    connectTimeout: Math.min(limits.timeoutMs, 10_000),
    keepAliveTimeout: 30_000,
  };
  return target.dispatcher?.(options) ?? new Pool(target.origin, options);
}

/** Sends one request; resolves with its timing (never rejects). */
export function sendOne(pool: Dispatcher, target: EngineTarget, seq: number, intendedNs: bigint, intendedS: number, inFlight: InFlight, deadlineMs = 0): Promise<RequestTiming> {
  const extra = target.extraHeaders?.(seq, intendedS);
  const headers = extra === undefined ? target.headers : { ...target.headers, ...extra };
  const body = target.body(seq);
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let abortedAtEnd = false;
    let idleError: IdleTimeout | RequestDeadline | undefined;
    const timer: RequestTimer = new RequestTimer({ seq, intendedNs, sentNs: now(), stream: target.stream, sent: target.sent, onDone: resolve, checker: target.checker });
    const budget = new ByteBudget(target.stream);
    const reuse = new ReuseWatch();
    // --cancel-rate: the client cuts this request at its point; aborting destroys its socket, so the server sees the disconnect.
    const point = target.cancel?.(seq) ?? null;
    if (point !== null) timer.timing.cancelPlanned = true;
    let cancelled = false;
    const watch =
      point === null
        ? null
        : new CancelWatch(point, target.tally, (tokens) => {
            if (timer.finished || abortedAtEnd) return;
            cancelled = true;
            timer.timing.cancelled = { atNs: now(), tokens };
            controller?.abort(new ClientCancel('cancelled by the client (--cancel-rate)'));
            target.onCut?.();
          });
    const entry: InFlightEntry = {
      timer,
      lastByteNs: timer.timing.sentNs,
      paused: false,
      abort: (limits, interrupted = false) => {
        if (limits !== undefined) timer.abortAtEnd(now(), limits, interrupted);
        abortedAtEnd = true;
        controller?.abort(new AbortedAtEnd('run ended'));
      },
      idle: () => {
        idleError ??= new IdleTimeout(`no byte for the idle timeout`);
        controller?.abort(idleError);
      },
      expire: () => {
        idleError ??= new RequestDeadline(`the response did not end within the request deadline of ${deadlineMs / 1000} s (--request-timeout)`);
        controller?.abort(idleError);
      },
    };
    inFlight.set(timer, entry);
    const handler = requestHandler({
      start(c) {
        controller = c;
        reuse.starting();
        if (abortedAtEnd) c.abort(new AbortedAtEnd('run ended'));
        else if (cancelled) c.abort(new ClientCancel('cancelled by the client (--cancel-rate)'));
      },
      sentOn: reuse.sentOn,
      head(c, status, h) {
        const t = now();
        entry.lastByteNs = t;
        reuse.answered();
        const rid = h['x-request-id'];
        const ct = h['content-type'];
        const decision = timer.headers(t, status, typeof rid === 'string' ? rid : null, typeof ct === 'string' ? ct : null);
        // An answer that is an error at its head is that error, never a cut (a prefill cut would hide a 429 or a 500).
        if (decision !== 'check') watch?.dispose();
        if (decision === 'failed') return c.abort(new DecidedAtHead('failed at its head'));
        const ce = h['content-encoding'];
        const cl = h['content-length'];
        const breach = encodingBreach(typeof ce === 'string' ? ce : null, target.stream) ?? budget.declare(typeof cl === 'string' ? cl : null);
        if (breach !== undefined) return c.abort(breach);
        watch?.head();
      },
      data(c, chunk) {
        const t = now();
        entry.lastByteNs = t;
        // At most 16 MiB of one response is read (HDR-013): past it the request fails and its socket is dropped.
        const breach = budget.add(chunk.length);
        if (breach !== undefined) return c.abort(breach);
        if (budget.breached) return;
        if (timer.data(chunk, t) !== null) return c.abort(new DecidedAtHead('refused on the main thread'));
        watch?.data(chunk);
        if (cancelled) return;
        // The check worker is behind, or a large event waits its turn: stop reading this response meanwhile.
        const wait = timer.readGate();
        if (wait !== null && !c.paused) {
          entry.paused = true;
          c.pause();
          void wait.then(() => {
            entry.paused = false;
            entry.lastByteNs = now();
            if (!c.aborted) c.resume();
          });
        }
      },
      end() {
        const t = now();
        watch?.dispose();
        inFlight.delete(timer);
        timer.end(t);
      },
      error(err) {
        const t = now();
        // A connection reuse race (connection-reuse.ts): once more on a fresh connection, still timed from the intended send.
        if (!abortedAtEnd && !cancelled && idleError === undefined && reuse.raced(err)) {
          reuse.retrying();
          timer.timing.reuseRace = { retriedNs: t };
          entry.lastByteNs = t;
          return send((request) => dispatchFresh(target, { headersTimeout: deadlineMs + 2000, bodyTimeout: deadlineMs + 2000 }, request, handler));
        }
        watch?.dispose();
        inFlight.delete(timer);
        // Cut by the client: counted apart (collector.onCancelled); another error that came first stays that error.
        if (cancelled && !(err instanceof ClientCancel)) delete timer.timing.cancelled;
        if (cancelled && err instanceof ClientCancel) timer.fail(t, 'other', err.message);
        else if (abortedAtEnd) timer.fail(t, 'other', 'in flight when the run ended', true);
        else if (err instanceof DecidedAtHead) timer.end(t);
        else if (err instanceof BoundBreach) timer.fail(t, err.errorClass, err.message);
        else timer.fail(t, classifyError(err), isTlsFailure(err) ? `${err.message} (TLS; for a private CA pass --ca-file PATH)` : err.message);
      },
    }, target.connections);
    // --connection-reuse never: every request asks for its own connection (and says Connection: close).
    const send = (dispatch: (request: Dispatcher.DispatchOptions) => void): void => {
      try {
        dispatch({ origin: target.origin, method: 'POST', path: target.path, headers, body, ...(target.connectionReuse === 'never' ? { reset: true } : {}) });
      } catch (err) {
        watch?.dispose();
        inFlight.delete(timer);
        timer.fail(now(), 'other', (err as Error).message);
      }
    };
    send((request) => pool.dispatch(request, handler));
  });
}

const isAborted = (s: AbortSignal | undefined): boolean => s?.aborted === true;

export function report(hooks: EngineHooks, t: RequestTiming): void {
  if (t.cancelled !== undefined && !t.abortedAtEnd) hooks.collector.onCancelled(t);
  else if (t.abortedAtEnd) hooks.collector.onAborted(t);
  else hooks.collector.onFinish(t);
  hooks.onTiming?.(t);
}

export async function drain(inFlight: InFlight, pending: Set<Promise<unknown>>, limits: EngineLimits, drainMs: number, signal?: AbortSignal): Promise<void> {
  if (pending.size > 0) {
    const ac = new AbortController();
    const onAbort = (): void => ac.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    await Promise.race([Promise.allSettled([...pending]), sleepMs(drainMs, ac.signal)]);
    ac.abort();
    signal?.removeEventListener('abort', onAbort);
  }
  for (const f of inFlight.values()) f.abort(limits, isAborted(signal));
  await Promise.allSettled([...pending]);
}

/** What both undici loops share: the pool, in-flight requests, the timers and the request counts. */
export class LoopState {
  readonly pool: Dispatcher;
  readonly inFlight: InFlight = new Map();
  readonly pending = new Set<Promise<unknown>>();
  issued = 0;
  measured = 0;
  lastStartNs: bigint;
  readonly #tick: NodeJS.Timeout;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    target: EngineTarget,
    private readonly limits: EngineLimits,
    private readonly hooks: EngineHooks,
  ) {
    this.pool = makePool(target, limits);
    this.lastStartNs = limits.startNs;
    this.#tick = setInterval(() => hooks.onTick?.(), 250);
    this.#sweep = idleSweep(this.inFlight, limits.timeoutMs, limits.deadlineMs);
  }

  /** Whether a measured request would exceed `--requests` (warmup requests never count). */
  budgetSpent(warm: boolean): boolean {
    return !warm && this.limits.maxRequests !== null && this.measured >= this.limits.maxRequests;
  }

  /** Counts a request starting at `startNs` and returns its sequence number. */
  begin(startNs: bigint, warm: boolean): number {
    const seq = this.issued++;
    if (!warm) this.measured++;
    this.hooks.collector.onStart(startNs);
    this.lastStartNs = startNs;
    return seq;
  }

  track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  async close(): Promise<void> {
    clearInterval(this.#tick);
    clearInterval(this.#sweep);
    await this.pool.destroy().catch(() => undefined);
  }

  run(): EngineRun {
    return { issued: this.issued, due: this.issued, lastStartNs: this.lastStartNs };
  }
}

/**
 * Open loop: requests start at their intended times from a seeded schedule, whatever the server
 * does. Latency is measured from the intended time; the actual send is kept for service time
 * and schedule lag. `schedule` yields intended send times in seconds after `limits.startNs` (arrivals.ts).
 */
export async function runOpenLoop(target: EngineTarget, limits: EngineLimits, schedule: Iterable<number>, hooks: EngineHooks, maxConcurrency: number | null = null): Promise<EngineRun> {
  const loop = new LoopState(target, limits, hooks);
  const collector = hooks.collector;
  try {
    for (const s of schedule) {
      const intendedNs = limits.startNs + BigInt(Math.round(s * 1e9));
      if (intendedNs >= limits.stopNs || hooks.signal?.aborted === true) break;
      const warm = collector.isWarmup(intendedNs);
      if (loop.budgetSpent(warm)) break;
      await untilDue(intendedNs, hooks.signal);
      if (isAborted(hooks.signal)) break;
      // --max-concurrency: a due arrival waits for a free slot (its latency still counts from the intended time; the wait is schedule lag).
      while (maxConcurrency !== null && loop.pending.size >= maxConcurrency && !isAborted(hooks.signal)) await Promise.race(loop.pending);
      // A due arrival is sent however late the client is (its lag is measured); only one that waited for a slot past the stop is not.
      if (isAborted(hooks.signal) || (maxConcurrency !== null && now() >= limits.stopNs)) break;
      const seq = loop.begin(intendedNs, warm);
      loop.track(sendOne(loop.pool, target, seq, intendedNs, s, loop.inFlight, limits.deadlineMs).then((t) => report(hooks, t)));
    }
    // The run's bound is its stop time, not its last arrival: requests in flight may finish until then,
    // and only after it does the fixed grace start.
    const untilStopMs = isAborted(hooks.signal) ? 0 : Math.max(0, Number(limits.stopNs - now()) / 1e6);
    await drain(loop.inFlight, loop.pending, limits, untilStopMs + limits.drainMs, hooks.signal);
  } finally {
    await loop.close();
  }
  return loop.run();
}

/** The run's stop: at its stop time, or when the caller aborts (at once if it already has). */
export function runStop(limits: EngineLimits, signal: AbortSignal | undefined): { signal: AbortSignal; stop(): void; dispose(): void } {
  const ac = new AbortController();
  const stop = (): void => ac.abort();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted === true) stop();
  const timer = setTimeout(stop, Math.max(0, Number(limits.stopNs - now()) / 1e6));
  return {
    signal: ac.signal,
    stop,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    },
  };
}

/**
 * What the closed loops share (requests, conversations): from t = 0, `concurrency` slots run until
 * the run stops (`stop`: its stop time or the caller's abort); then the requests in flight drain.
 */
export async function runClosedSlots(loop: LoopState, limits: EngineLimits, hooks: EngineHooks, concurrency: number, slot: (stop: AbortSignal) => Promise<void>): Promise<EngineRun> {
  const stop = runStop(limits, hooks.signal);
  try {
    await untilStart(limits.startNs, hooks.signal);
    const slots = Array.from({ length: concurrency }, () => slot(stop.signal));
    await Promise.race([Promise.all(slots), new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true }))]);
    await drain(loop.inFlight, loop.pending, limits, limits.drainMs, hooks.signal);
    await Promise.allSettled(slots);
  } finally {
    stop.dispose();
    await loop.close();
  }
  return loop.run();
}

/** Closed loop with undici: N workers, each sends its next request when the previous one ends. */
export async function runClosedLoopUndici(target: EngineTarget, limits: EngineLimits, concurrency: number, hooks: EngineHooks): Promise<EngineRun> {
  const loop = new LoopState(target, limits, hooks);
  const collector = hooks.collector;
  return runClosedSlots(loop, limits, hooks, concurrency, async (stop) => {
    for (;;) {
      if (stop.aborted) return;
      const t = now();
      if (t >= limits.stopNs) return;
      const warm = collector.isWarmup(t);
      if (loop.budgetSpent(warm)) return;
      const seq = loop.begin(t, warm);
      const p = sendOne(loop.pool, target, seq, t, Number(t - limits.startNs) / 1e9, loop.inFlight, limits.deadlineMs);
      loop.pending.add(p);
      const timing = await p;
      loop.pending.delete(p);
      report(hooks, timing);
      // A refused connection fails at once: pause so a dead server is not hammered in a tight loop.
      if (timing.error?.class === 'connect') await sleepMs(100, stop);
    }
  });
}
