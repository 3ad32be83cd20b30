import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Timeslice } from '../results/load-result.ts';
import { systemTime, type TimeSource } from './clock.ts';
import { BODY_LIMITS, COORDINATION_PATHS, intOf, type HeartbeatMessage, type HeartbeatReply, type ResultMessage, type StartReply, type StopCause } from './coordination-messages.ts';
import { liveLine } from './live-view.ts';

// The coordinator of a sharded run (docs/load.md, "One run on many machines"): registration, one
// start instant for all, heartbeats, stop-all, the shards' results. Every wait has a bound: the
// registration timeout, the heartbeat timeout, the result timeout, the body limits.

/**
 * A running shard silent this long is dead and stops the run; the others hear it at their next
 * heartbeat: the stop is out within 1.5 s + 50 ms (the watchdog) + 250 ms (a heartbeat) < 2 s.
 */
export const HEARTBEAT_TIMEOUT_MS = 1500;
/** How often shards send heartbeats (and learn of a stop). */
export const HEARTBEAT_INTERVAL_MS = 250;
/** The start is this far ahead of the last registration: time for every shard to hear it (a shard that hears it late says how late: lateMs). */
export const START_LEAD_MS = 1000;

export interface CoordinatorOptions {
  count: number;
  /** The run token shards present (bearer); never written anywhere by the coordinator. */
  token: string;
  host?: string;
  port?: number;
  /** From the coordinator's start until every shard has registered, else the run fails naming the missing. */
  registerTimeoutMs: number;
  heartbeatTimeoutMs?: number;
  leadMs?: number;
  /** How long a shard may be silent before the coordinator stops waiting for its result (default 10 s). */
  resultTimeoutMs?: number;
  time?: TimeSource;
  /** The live view: one line a second while the run goes on. */
  onLive?: (line: string) => void;
}

export interface ShardState {
  shard: number;
  host: string;
  registeredAtMs: number;
  lastSeen: number;
  started: number;
  finished: number;
  failed: number;
  slices: Map<number, Timeslice>;
  ended: boolean;
  dead: boolean;
  result: ResultMessage | null;
}

export type CoordinationOutcome =
  | { kind: 'unregistered'; missing: number[]; registered: { shard: number; host: string }[]; detail: string }
  | { kind: 'ran'; t0Ms: number; count: number; stop: StopCause | null; results: (ResultMessage & { host: string })[]; missing: { shard: number; host: string; why: string }[] };

export interface Coordinator {
  url: string;
  done: Promise<CoordinationOutcome>;
  close(): Promise<void>;
}

export async function startCoordinator(o: CoordinatorOptions): Promise<Coordinator> {
  const time = o.time ?? systemTime;
  const heartbeatTimeoutMs = o.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  const resultTimeoutMs = o.resultTimeoutMs ?? 10_000;
  const expected = digest(`Bearer ${o.token}`);
  const shards = new Map<number, ShardState>();
  const waiters = new Set<(r: { status: number; body: unknown }) => void>();
  let t0Ms: number | null = null;
  let t0Perf = 0;
  let stop: StopCause | null = null;
  let failure: Extract<CoordinationOutcome, { kind: 'unregistered' }> | null = null;
  let finish: (o: CoordinationOutcome) => void = () => undefined;
  const done = new Promise<CoordinationOutcome>((resolve) => (finish = resolve));
  let finished = false;
  const timers: NodeJS.Timeout[] = [];
  const end = (outcome: CoordinationOutcome): void => {
    if (finished) return;
    finished = true;
    for (const t of timers) clearInterval(t);
    finish(outcome);
  };

  const registerDeadline = setTimeout(() => {
    if (t0Ms !== null) return;
    const missing = range(o.count).filter((i) => !shards.has(i));
    const detail = `shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${o.count}`).join(', ')} never registered within ${(o.registerTimeoutMs / 1000).toFixed(1)} s: the run did not start`;
    failure = { kind: 'unregistered', missing, registered: [...shards.values()].map((s) => ({ shard: s.shard, host: s.host })), detail };
    for (const w of waiters) w({ status: 503, body: { error: { code: 'shards_missing', message: detail } } });
    waiters.clear();
    end(failure);
  }, o.registerTimeoutMs);
  timers.push(registerDeadline);

  const setStop = (s: Omit<StopCause, 'atMs'>): void => {
    if (stop === null) stop = { ...s, atMs: round(time()) };
  };
  const settleIfDone = (): void => {
    if (t0Ms === null || finished) return;
    const states = [...shards.values()];
    // A shard judged dead that speaks again (a stalled process, not a dead one) may still send its result.
    const nowPerf = performance.now();
    if (states.every((s) => s.result !== null || nowPerf - s.lastSeen > resultTimeoutMs)) {
      end({ kind: 'ran', t0Ms, count: o.count, stop, results: states.flatMap((s) => (s.result === null ? [] : [{ ...s.result, host: s.host }])), missing: states.filter((s) => s.result === null).map((s) => ({ shard: s.shard, host: s.host, why: `${s.dead ? 'died' : 'went silent'} and sent no result within ${resultTimeoutMs / 1000} s` })) });
    }
  };
  // Heartbeats: a shard silent for heartbeatTimeoutMs is dead, and stops the run.
  timers.push(
    setInterval(() => {
      if (t0Ms === null) return;
      const nowPerf = performance.now();
      for (const s of shards.values()) {
        if (s.dead || s.ended || s.result !== null) continue;
        const silent = nowPerf - s.lastSeen;
        if (silent > heartbeatTimeoutMs) {
          s.dead = true;
          setStop({ shard: s.shard, cause: 'died', detail: `shard ${s.shard}/${o.count} (${s.host}) sent no heartbeat for ${Math.round(silent)} ms (timeout ${heartbeatTimeoutMs} ms)` });
        }
      }
      settleIfDone();
    }, 50),
  );
  if (o.onLive !== undefined) {
    const onLive = o.onLive;
    timers.push(
      setInterval(() => {
        if (t0Ms === null || time() < t0Ms + 1000) return;
        onLive(liveLine([...shards.values()], Math.floor(time() / 1000) - 1, t0Ms, o.count));
      }, 1000),
    );
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => reply(res, 500, { error: { code: 'internal', message: e instanceof Error ? e.message : String(e) } }));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://coordinator');
    // Before anything: the run token (compared in constant time; never echoed).
    if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) return reply(res, 401, { error: { code: 'unauthorized', message: 'the coordinator wants the run token as a bearer token' } });
    if (url.pathname === COORDINATION_PATHS.time && req.method === 'GET') return reply(res, 200, { t: time() });
    const limit = url.pathname === COORDINATION_PATHS.result ? BODY_LIMITS.result : url.pathname === COORDINATION_PATHS.heartbeat ? BODY_LIMITS.heartbeat : BODY_LIMITS.small;
    if (url.pathname === COORDINATION_PATHS.start && req.method === 'GET') {
      const shard = Number(url.searchParams.get('shard'));
      if (!shards.has(shard)) return reply(res, 409, { error: { code: 'not_registered', message: `shard ${url.searchParams.get('shard')} has not registered` } });
      if (t0Ms !== null) return reply(res, 200, { t0Ms } satisfies StartReply);
      if (failure !== null) return reply(res, 503, { error: { code: 'shards_missing', message: failure.detail } });
      // Held until every shard registered or the registration timeout (both bounded).
      const w = (r: { status: number; body: unknown }): void => reply(res, r.status, r.body);
      waiters.add(w);
      res.on('close', () => waiters.delete(w));
      return;
    }
    if (req.method !== 'POST') return reply(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${url.pathname}` } });
    const body = await readJson(req, limit);
    if (body === undefined) return reply(res, 413, { error: { code: 'body_too_large', message: `a body over ${limit} bytes` } });
    if (body === null) return reply(res, 400, { error: { code: 'body_invalid', message: 'the body is not JSON' } });
    const shard = intOf(body, 'shard');
    if (shard === null || shard >= o.count) return reply(res, 400, { error: { code: 'shard_invalid', message: `shard must be an integer 0 <= shard < ${o.count}` } });
    if (url.pathname === COORDINATION_PATHS.register) {
      const count = intOf(body, 'count');
      const host = String((body as Record<string, unknown>)['host'] ?? '').slice(0, 200);
      if (count !== o.count) return reply(res, 409, { error: { code: 'count_mismatch', message: `this run has ${o.count} shards; shard ${shard} says ${count ?? '?'}` } });
      if (failure !== null) return reply(res, 503, { error: { code: 'shards_missing', message: failure.detail } });
      const known = shards.get(shard);
      if (known !== undefined && known.host !== host) return reply(res, 409, { error: { code: 'shard_taken', message: `shard ${shard}/${o.count} is already registered by ${known.host}` } });
      if (known === undefined) shards.set(shard, { shard, host, registeredAtMs: round(time()), lastSeen: performance.now(), started: 0, finished: 0, failed: 0, slices: new Map(), ended: false, dead: false, result: null });
      if (t0Ms === null && shards.size === o.count) {
        t0Ms = round(time() + (o.leadMs ?? START_LEAD_MS));
        t0Perf = performance.now() + (o.leadMs ?? START_LEAD_MS);
        for (const s of shards.values()) s.lastSeen = t0Perf;
        clearTimeout(registerDeadline);
        for (const w of waiters) w({ status: 200, body: { t0Ms } satisfies StartReply });
        waiters.clear();
      }
      return reply(res, 200, { registered: shards.size, count: o.count });
    }
    const state = shards.get(shard);
    if (state === undefined || t0Ms === null) return reply(res, 409, { error: { code: 'not_started', message: `shard ${shard} is not in a started run` } });
    if (url.pathname === COORDINATION_PATHS.heartbeat) {
      const hb = body as HeartbeatMessage;
      state.lastSeen = Math.max(state.lastSeen, performance.now());
      // The shard's liveness thread: proof of life only (liveness-worker.ts).
      if ((body as { alive?: unknown }).alive === true) return reply(res, 200, { stop } satisfies HeartbeatReply);
      for (const k of ['started', 'finished', 'failed'] as const) state[k] = intOf(hb, k) ?? state[k];
      if (Array.isArray(hb.slices)) for (const s of hb.slices.slice(0, 64)) if (typeof s?.epochS === 'number') state.slices.set(s.epochS, s);
      if (hb.abort !== undefined && typeof hb.abort?.slo === 'string') setStop({ shard, cause: 'abort_slo', detail: `shard ${shard}/${o.count} breached the abort SLO ${hb.abort.slo.slice(0, 200)}: ${String(hb.abort.detail).slice(0, 500)}` });
      if (hb.ended === true) state.ended = true;
      return reply(res, 200, { stop } satisfies HeartbeatReply);
    }
    if (url.pathname === COORDINATION_PATHS.result) {
      const r = body as ResultMessage;
      if (typeof r.result !== 'object' || r.result === null || typeof r.clocks?.start?.offsetMs?.estimate !== 'number') return reply(res, 400, { error: { code: 'result_invalid', message: 'a result needs result and clocks.start' } });
      state.result = r;
      state.ended = true;
      reply(res, 200, { received: true });
      settleIfDone();
      return;
    }
    return reply(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${url.pathname}` } });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${addr.port}`,
    done,
    close: async () => {
      end(failure ?? { kind: 'ran', t0Ms: t0Ms ?? 0, count: o.count, stop, results: [], missing: [] });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads a JSON body of at most `limit` bytes: undefined when over it, null when not JSON. */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const round = (x: number): number => Math.round(x * 1000) / 1000;
