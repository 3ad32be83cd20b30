import { hostname } from 'node:os';
import { Agent, request } from 'undici';
import { now } from '../executors/engine.ts';
import type { Collector } from '../results/collector.ts';
import type { LoadResult, ShardInfo } from '../results/load-result.ts';
import { compare, withDefaultSlos, type Slo } from '../results/slo.ts';
import { probeOffset, type OffsetProbe, type ProbeSample, type TimeSource } from './clock.ts';
import { COORDINATION_PATHS, type AbortNotice, type HeartbeatMessage, type HeartbeatReply, type ResultMessage, type StartReply, type StopCause } from './coordination-messages.ts';
import { HEARTBEAT_INTERVAL_MS } from './coordinator.ts';
import { startLiveness, type Liveness } from './liveness-worker.ts';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import type { ShardCoordination } from '../results/coordination-section.ts';

// A shard's side of a coordinated run: register, probe the clock, wait for the agreed instant,
// send heartbeats (and hear a stop), probe again at the end, send the result.

/** Probes per offset estimate (the one with the smallest round trip counts): at least 8, up to 40 while the best round trip is over 1 ms, 10 ms apart. */
export const PROBES = { count: 8, max: 40, goodRttMs: 1, gapMs: 10 } as const;
/** Each coordination request's own bound. */
const REQUEST_TIMEOUT_MS = 2000;
/** Abort SLOs are judged once a shard has this many finished requests. */
export const ABORT_MIN_FINISHED = 20;

export interface ShardClientOptions {
  url: string;
  token: string;
  shard: ShardInfo;
  /** How long registration and the start barrier may take, ms. */
  registerTimeoutMs: number;
  time: TimeSource;
  injectedMs: number;
  slos: readonly Slo[];
  /** From t = 0, when the measured window has surely ended (warmup, measured time, 1 s), ms: after it the heartbeats say `ended` (a shard busy writing its result is not dead). */
  endsWithinMs: number;
}

export interface ShardClient {
  /** Aborted when the coordinator stops the run (or cannot be reached for the heartbeat timeout). */
  readonly signal: AbortSignal;
  /** Registers, probes the clock and waits for the start: the run's t = 0 (monotonic ns) and its epoch ms (coordinator clock). */
  gate(): Promise<{ startNs: bigint; startEpochMs: number }>;
  /** The run's collector, read by the heartbeats. */
  observe(c: Collector): void;
  /** The shard's coordination record for its own load.json. */
  record(): ShardCoordination;
  /** Ends the heartbeats, probes again and sends the result. */
  finish(result: LoadResult): Promise<void>;
  close(): void;
  /** What stopped the run, if the coordinator said. */
  stop(): StopCause | null;
}

export function shardClient(o: ShardClientOptions): ShardClient {
  const base = new URL(o.url);
  const agent = new Agent({ connections: 2, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
  const headers = { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' };
  const ac = new AbortController();
  let collector: Collector | null = null;
  let startProbe: OffsetProbe | null = null;
  let endProbe: OffsetProbe | null = null;
  let t0Ms: number | null = null;
  let lateMs = 0;
  let startNs: bigint | null = null;
  let beat: NodeJS.Timeout | undefined;
  let liveness: Liveness | null = null;
  let stopped: StopCause | null = null;
  let lastOk = 0;
  let sentAbort = false;
  const sentSlices = new Map<number, string>();
  const host = hostname();

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: number; json: T }> {
    const res = await request(new URL(path, base), { method, headers, dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.body.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // a non-JSON answer is reported by its status
    }
    return { status: res.statusCode, json: json as T };
  }
  const fail = (message: string, cause?: unknown): HarnessError => new HarnessError(HarnessErrorCode.COORDINATION_FAILED, `shard ${o.shard.index}/${o.shard.count}: ${message}`, cause === undefined ? {} : { cause });
  const errorOf = (json: unknown): string => String((json as { error?: { message?: unknown } } | null)?.error?.message ?? 'no detail');

  const probe = async (): Promise<ProbeSample> => {
    const t1 = o.time();
    const { status, json } = await call<{ t: number }>('GET', COORDINATION_PATHS.time);
    const t4 = o.time();
    if (status !== 200 || typeof json?.t !== 'number') throw fail(`the coordinator's clock answered ${status}`);
    return { t1, coordinatorMs: json.t, t4 };
  };

  function abortNotice(): AbortNotice | undefined {
    const c = collector;
    if (c === null || sentAbort || c.finished < ABORT_MIN_FINISHED) return undefined;
    // docs/load.md: the error-rate SLOs abort (the user's, else the default gate); the others are judged on the merge.
    for (const s of withDefaultSlos(o.slos).filter((x) => x.metric === 'errors' && x.stat === 'rate')) {
      const rate = c.failed / c.finished;
      if (!compare(rate, s.op, s.threshold)) {
        sentAbort = true;
        return { slo: s.expr, detail: `${c.failed} of ${c.finished} finished requests failed (${(rate * 100).toFixed(1)}%)` };
      }
    }
    return undefined;
  }

  function heartbeat(ended = false): Promise<void> {
    const c = collector;
    const slices = c === null ? [] : c.timeslices().filter((s) => sentSlices.get(s.epochS) !== `${s.finished}/${s.started}/${s.inFlight}`);
    for (const s of slices) sentSlices.set(s.epochS, `${s.finished}/${s.started}/${s.inFlight}`);
    const abort = abortNotice();
    const over = ended || (startNs !== null && now() > startNs + BigInt(Math.round(o.endsWithinMs * 1e6)));
    const msg: HeartbeatMessage = { shard: o.shard.index, started: c?.started ?? 0, finished: c?.finished ?? 0, failed: c?.failed ?? 0, slices: slices.slice(-32), ...(abort === undefined ? {} : { abort }), ...(over || stopped !== null ? { ended: true as const } : {}) };
    return call<HeartbeatReply>('POST', COORDINATION_PATHS.heartbeat, msg).then(
      ({ status, json }) => {
        if (status !== 200) return;
        lastOk = Date.now();
        if (json?.stop != null && stopped === null) {
          stopped = json.stop;
          ac.abort();
        }
      },
      () => {
        // The coordinator unreachable for as long as it waits for a heartbeat: this shard stops too (fail closed).
        if (lastOk !== 0 && Date.now() - lastOk > 2000 && stopped === null) {
          stopped = { shard: o.shard.index, cause: 'failed', detail: `shard ${o.shard.index}/${o.shard.count} lost the coordinator for over 2 s`, atMs: o.time() };
          ac.abort();
        }
      },
    );
  }

  return {
    signal: ac.signal,
    observe(c) {
      collector = c;
    },
    async gate() {
      const deadline = Date.now() + o.registerTimeoutMs;
      // The coordinator may start after the shard (pods start in any order): retry until the deadline.
      // The clock is probed before registering, so that the last to register only has to ask for the start.
      for (;;) {
        try {
          startProbe ??= await probeOffset(probe, PROBES.count, PROBES);
          const { status, json } = await call('POST', COORDINATION_PATHS.register, { shard: o.shard.index, count: o.shard.count, host });
          if (status === 200) break;
          throw fail(`the coordinator refused the registration (${status}): ${errorOf(json)}`);
        } catch (e) {
          if (e instanceof HarnessError) throw e;
          if (Date.now() > deadline) throw fail(`no coordinator answered at ${base.origin} within ${(o.registerTimeoutMs / 1000).toFixed(1)} s`, e);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      const left = Math.max(1000, deadline - Date.now() + 2000);
      const { status, json } = await call<StartReply>('GET', `${COORDINATION_PATHS.start}?shard=${o.shard.index}`, undefined, left).catch((e: unknown) => {
        throw fail(`no start from the coordinator within ${(left / 1000).toFixed(1)} s`, e);
      });
      if (status !== 200 || typeof json?.t0Ms !== 'number') throw fail(`the run did not start: ${errorOf(json)}`);
      t0Ms = json.t0Ms;
      // The agreed instant on this shard's clock, corrected by its offset, then taken on the monotonic clock.
      const localT0 = t0Ms - startProbe.offsetMs.estimate;
      // The wall clock read between two monotonic reads, the closest pair of five: a pause between
      // the two reads (a loaded machine) would move the start by its length.
      let pair = { gapNs: BigInt(Number.MAX_SAFE_INTEGER), wallMs: 0, monoNs: 0n };
      for (let i = 0; i < 5; i++) {
        const n0 = now();
        const wallMs = o.time();
        const n1 = now();
        if (n1 - n0 < pair.gapNs) pair = { gapNs: n1 - n0, wallMs, monoNs: n0 + (n1 - n0) / 2n };
      }
      const aheadMs = localT0 - pair.wallMs;
      const nowNs = pair.monoNs;
      lateMs = aheadMs < 0 ? -aheadMs : 0;
      beat = setInterval(() => void heartbeat(), HEARTBEAT_INTERVAL_MS);
      liveness = startLiveness({
        url: new URL(COORDINATION_PATHS.heartbeat, base).href,
        token: o.token,
        shard: o.shard.index,
        intervalMs: HEARTBEAT_INTERVAL_MS,
        onStop: (stop) => {
          if (stopped === null && typeof stop === 'object' && stop !== null) {
            stopped = stop as StopCause;
            ac.abort();
          }
        },
      });
      startNs = nowNs + BigInt(Math.round(Math.max(0, aheadMs) * 1e6));
      return { startNs, startEpochMs: t0Ms + lateMs };
    },
    record() {
      return { role: 'shard', coordinator: base.origin, t0Ms: t0Ms ?? 0, lateMs: round(lateMs), offsetStartMs: startProbe?.offsetMs ?? null, offsetEndMs: endProbe?.offsetMs ?? null, rttMs: startProbe?.rttMs ?? null, stop: stopped, ...(o.injectedMs === 0 ? {} : { injectedOffsetMs: o.injectedMs }) };
    },
    async finish(result) {
      clearInterval(beat);
      liveness?.stop();
      await heartbeat(true).catch(() => undefined);
      endProbe = await probeOffset(probe, PROBES.count, PROBES).catch(() => null);
      if (startProbe === null) return;
      const msg: ResultMessage = { shard: o.shard.index, clocks: { start: startProbe, end: endProbe, injectedMs: o.injectedMs }, startedAtLocalMs: round((t0Ms ?? 0) - startProbe.offsetMs.estimate + lateMs), result: { ...result, coordination: this.record() } };
      const { status, json } = await call('POST', COORDINATION_PATHS.result, msg, 10_000);
      if (status !== 200) throw fail(`the coordinator refused the result (${status}): ${errorOf(json)}`);
    },
    close() {
      clearInterval(beat);
      liveness?.stop();
      void agent.close();
    },
    stop: () => stopped,
  };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
