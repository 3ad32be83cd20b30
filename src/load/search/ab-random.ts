// `iari load --ab URL_B --ab-assign random`: one run whose every request goes to A or to B at
// random (seeded by --seed and the request's number), both servers at once. A busy second on the
// client, the machine or the network then falls on both sides' requests alike, within the same
// window, so the pairs compared are windows of --ab-block: A's requests in window k against B's in
// window k (block-by-block A/B has a stall fall on one side of a pair). Both servers share the
// load at once, so builds that compete for one machine's hardware slow each other: blocks run one
// side at a time.
import { performance } from 'node:perf_hooks';
import { Dispatcher, type Pool } from 'undici';
import type { LoadResult, MetricName, RequestRecord } from '../results/load-result.ts';
import { Collector } from '../results/collector.ts';
import { buildResult } from '../results/result-builder.ts';
import { decodeHistogram, encodeHistogram, mergeInto, newHistogram, record, type Histogram } from '../results/hdr.ts';
import type { RequestTiming } from '../results/request-timing.ts';
import type { LoadConfig } from '../run-load.ts';
import { seededRandom } from '../../seeded-random.ts';
import { AB_SCHEMA, type AbBlock, type AbSection } from './ab-blocks.ts';
import { loadSections } from '../results/load-sections.ts';
import { apiOf } from '../workloads/request-source.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

/** The side of request `seq`: a fair coin per request, the same for a seed on every machine. */
export function sideOf(seed: number, seq: number): 'a' | 'b' {
  return seededRandom((Math.imul(seed + 1, 0x9e3779b1) ^ Math.imul(seq + 1, 0x85ebca6b)) >>> 0)() < 0.5 ? 'a' : 'b';
}

/** The request header that carries a request's side to the router (taken off before it is sent). */
export const SIDE_HEADER = 'x-iari-ab-side';

export interface SideTarget {
  dispatcher: Dispatcher;
  origin: string;
  /** The route under B's base path, and B's authorization; null for A (sent as built). */
  rewrite: { path: (p: string) => string; authorization: string } | null;
}

/** Sends each request to its side's pool (the side from SIDE_HEADER, absent: A); closes both. */
export class SideRouter extends Dispatcher {
  readonly #a: SideTarget;
  readonly #b: SideTarget;

  constructor(a: SideTarget, b: SideTarget) {
    super();
    this.#a = a;
    this.#b = b;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const headers = { ...(opts.headers as Record<string, string> | undefined) };
    const side = headers[SIDE_HEADER] === 'b' ? this.#b : this.#a;
    delete headers[SIDE_HEADER];
    if (side.rewrite !== null) headers['authorization'] = side.rewrite.authorization;
    const path = side.rewrite === null ? opts.path : side.rewrite.path(opts.path);
    return side.dispatcher.dispatch({ ...opts, origin: side.origin, path, headers }, handler);
  }

  override async close(): Promise<void> {
    await Promise.all([this.#a.dispatcher.close(), this.#b.dispatcher.close()]);
  }

  override async destroy(): Promise<void> {
    await Promise.all([this.#a.dispatcher.destroy(), this.#b.dispatcher.destroy()]);
  }
}

export interface AbRandomOptions {
  config: LoadConfig;
  baseUrlB: string;
  tokenB: string;
  /** The window compared pair by pair, s. */
  blockS: number;
  /** A pool for an origin with the run's connection settings (TLS, proxy). */
  dispatcherFor: (origin: string, pool: Pool.Options) => Dispatcher;
  run: (config: LoadConfig) => Promise<{ result: LoadResult; records: RequestRecord[] }>;
}

/** One side's requests of window k as an AbBlock (its histograms from the side's records and timeslices). */
function windowBlock(result: LoadResult, records: readonly RequestRecord[], k: number, blockS: number): AbBlock {
  const from = k * blockS;
  const to = from + blockS;
  const slices = result.timeslices.filter((s) => s.tS >= from && s.tS < to);
  const h: Partial<Record<MetricName, Histogram>> = {};
  const add = (m: MetricName, v: number | null | undefined): void => {
    if (v === null || v === undefined || !(v >= 0)) return;
    record((h[m] ??= newHistogram()), Math.max(1, Math.round(v)));
  };
  let good = 0;
  for (const r of records) {
    if (r.phase !== 'measure' || r.e2eUs === null) continue;
    const end = (r.sentUs + r.e2eUs) / 1e6;
    if (end < from || end >= to) continue;
    if (r.good) good++;
    if (r.error === null) {
      add('ttfb', r.ttfbUs);
      add('ttft', r.ttftUs);
      add('e2e', r.e2eUs);
      add('tpot', r.tpotUs);
      if (r.outputTokens > 0 && r.e2eUs > 0) add('output_tps', (r.outputTokens / (r.e2eUs / 1e6)) * 1000);
    }
  }
  const itl = newHistogram();
  for (const s of slices) mergeInto(itl, decodeHistogram(s.itlHdr));
  if (itl.totalCount > 0) h.itl = itl;
  const hdr: AbBlock['hdr'] = {};
  for (const [m, x] of Object.entries(h) as [MetricName, Histogram][]) hdr[m] = encodeHistogram(x);
  const sum = (f: (s: (typeof slices)[number]) => number): number => slices.reduce((t, s) => t + f(s), 0);
  return {
    runId: `${result.meta.runId}-w${k + 1}`,
    measureStartEpochMs: result.meta.measureStartEpochMs + from * 1000,
    windowS: blockS,
    finished: sum((s) => s.finished),
    ok: sum((s) => s.ok),
    failed: sum((s) => s.failed),
    outputTokens: sum((s) => s.outputTokens),
    goodRequests: good,
    hdr,
  };
}

export async function runAbRandom(o: AbRandomOptions): Promise<{ result: LoadResult & { ab: AbSection }; records: RequestRecord[] }> {
  const cfg = o.config;
  const urlA = new URL(cfg.baseUrl);
  const urlB = new URL(o.baseUrlB);
  const pathA = urlA.pathname.replace(/\/+$/, '');
  const pathB = urlB.pathname.replace(/\/+$/, '');
  const sides: Record<'a' | 'b', Collector | null> = { a: null, b: null };
  const records: Record<'a' | 'b', RequestRecord[]> = { a: [], b: [] };
  const warmupS = Math.max(cfg.warmupS, o.blockS);
  const side = (seq: number): 'a' | 'b' => sideOf(cfg.seed, seq);
  const config: LoadConfig = {
    ...cfg,
    // Routing needs the undici engine (autocannon opens its own sockets to one origin).
    mode: cfg.mode.kind === 'closed' ? { ...cfg.mode, engine: 'undici' } : cfg.mode,
    // B's first requests pay for connecting: both sides warm up at least one window.
    warmupS,
    extraHeaders: (seq, intendedS) => ({ ...cfg.extraHeaders?.(seq, intendedS), [SIDE_HEADER]: side(seq) }),
    dispatcher: (pool) =>
      new SideRouter(
        { dispatcher: o.dispatcherFor(urlA.origin, pool), origin: urlA.origin, rewrite: null },
        { dispatcher: o.dispatcherFor(urlB.origin, pool), origin: urlB.origin, rewrite: { path: (p) => `${pathB}${p.startsWith(pathA) ? p.slice(pathA.length) : p}`, authorization: `Bearer ${o.tokenB}` } },
      ),
    onStart: (ns) => {
      // As run-load.ts fixes t = 0: 20 ms after now.
      const epochMs = performance.timeOrigin + performance.now() + 20 + warmupS * 1000;
      const protocols = cfg.protocols ?? defaultProtocols;
      for (const s of ['a', 'b'] as const) {
        sides[s] = new Collector({ measureStartNs: ns + BigInt(Math.round(warmupS * 1e9)), measureStartEpochMs: epochMs, openLoop: cfg.mode.kind === 'open', slos: cfg.slos, shard: null, sections: loadSections({ connectionReuse: cfg.connectionReuse ?? 'reuse', protocols, run: { api: apiOf(protocols, cfg.api, cfg.workload).name, ...(cfg.workload === undefined ? {} : { workload: cfg.workload as unknown as Readonly<Record<string, unknown>> }) } }), onRecord: (r) => records[s].push(r) });
      }
      cfg.onStart?.(ns);
    },
    onTiming: (t: RequestTiming) => {
      const c = sides[side(t.seq)];
      if (c !== null) {
        c.onStart(t.intendedNs);
        if (t.abortedAtEnd) c.onAborted(t);
        else c.onFinish(t);
      }
      cfg.onTiming?.(t);
    },
  };
  const { result: whole } = await o.run(config);
  const built = (s: 'a' | 'b'): LoadResult => {
    const c = sides[s];
    if (c === null) throw new Error('iari load --ab: the run ended before it started');
    const meta = { ...whole.meta, runId: s === 'a' ? cfg.runId : `${cfg.runId}-b`, baseUrl: s === 'a' ? cfg.baseUrl : o.baseUrlB };
    const r = buildResult({ meta, collector: c, slos: cfg.slos, shard: null });
    // The client's own delay is the run's: both sides shared its event loop.
    const lag = { ...(whole.metrics.event_loop_lag === undefined ? {} : { event_loop_lag: whole.metrics.event_loop_lag }), ...(whole.metrics.schedule_lag === undefined ? {} : { schedule_lag: whole.metrics.schedule_lag }) };
    return { ...r, metrics: { ...r.metrics, ...lag }, validity: whole.validity, ...(whole.priming === undefined || s === 'b' ? {} : { priming: whole.priming }), ...(whole.interrupted === true ? { interrupted: true } : {}) };
  };
  const a = built('a');
  const b = built('b');
  const windows = Math.floor(a.throughput.windowS / o.blockS + 1e-9);
  const ab: AbSection = {
    schema: AB_SCHEMA,
    baseUrlB: o.baseUrlB,
    blockS: o.blockS,
    order: 'random',
    seed: cfg.seed,
    pairs: Array.from({ length: windows }, (_, k) => ({ a: windowBlock(a, records.a, k, o.blockS), b: windowBlock(b, records.b, k, o.blockS) })),
    b,
  };
  return { result: { ...a, ab }, records: records.a };
}
