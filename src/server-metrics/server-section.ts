// load.json's `server` section: the scrapes lined up with the client's seconds, their summaries, and
// the reconciliation of the server's counters with what the client received. It takes the client's
// requests by shape (no import from the load room: load calls this room, never the other way).
import { histogramDelta, quantileBucket, type BucketHistogram, type CounterKey, type Engine, type GaugeKey, type HistogramKey, gaugeKeys, counterKeys, histogramKeys } from './vocabulary.ts';
import type { ScrapeLog } from './scraper.ts';
import { reconcile, type ClientTotals, type ReconcileFinding } from './reconcile.ts';

export const SERVER_SECTION_SCHEMA = 'iari.server/1' as const;

/** One second of the run (the key the client's timeslices use), from the scrapes within it. */
export interface ServerSecond {
  epochS: number;
  /** Seconds since the measured window's start (negative: warmup). */
  tS: number;
  scrapes: number;
  /** Highest value read in the second. */
  running: number | null;
  waiting: number | null;
  kvCacheUsage: number | null;
  /** Counter growth per second over the second (from the last read before it to the last within it). */
  generatedPerS: number | null;
  promptPerS: number | null;
}

export interface GaugeSummary {
  max: number;
  mean: number;
}

export interface HistogramSummaryS {
  /** Observations between the first and the last read. */
  count: number;
  /** sum / count, µs (exact: the server's own sum). */
  meanUs: number | null;
  /** The buckets holding the median and p95, µs (a histogram says no more). */
  p50Us: { low: number; high: number } | null;
  p95Us: { low: number; high: number } | null;
}

export interface ServerSection {
  schema: typeof SERVER_SECTION_SCHEMA;
  /** The metrics URL without credentials or query. */
  url: string;
  intervalMs: number;
  /** `ok`: reads carried mapped names; `unmapped`: the endpoint answered with none iari maps (kept raw); `nothing`: no read succeeded. */
  status: 'ok' | 'unmapped' | 'nothing';
  /** One sentence for the summary when status is not ok. */
  note: string | null;
  engine: Engine | null;
  scrapes: { attempts: number; ok: number; failed: number; meanMs: number | null; maxMs: number | null; failures: { tS: number; why: string }[]; sentToken: boolean };
  /** Vocabulary keys the server published. */
  published: string[];
  perSecond: ServerSecond[];
  gauges: Partial<Record<GaugeKey, GaugeSummary>>;
  /** First and last value of each counter, with the epoch ms of those reads (shards of one server merge by min/max). */
  counters: Partial<Record<CounterKey, { first: number; last: number; delta: number }>>;
  firstReadEpochMs: number | null;
  lastReadEpochMs: number | null;
  histograms: Partial<Record<HistogramKey, { first: BucketHistogram; last: BucketHistogram; window: HistogramSummaryS | null }>>;
  client: ClientTotals;
  /** Shards besides this one whose requests the server also counted (0: none; a merged result: 0). */
  otherShards: number;
  reconciliation: ReconcileFinding[];
  /** Counters that went down between two reads (a reset, or a server that miscounts). */
  decreases: { series: string; from: number; to: number; tS: number }[];
  decreaseCount: number;
  parseIssues: { line: number; why: string }[];
  parseIssueCount: number;
  /** Series the vocabulary does not map, first and last value (at most 200). */
  raw: { series: string; type: string; first: number; last: number }[];
  /**
   * Shards (--shard) only: the read taken before the shard's priming request (null: that read
   * failed), and the priming request itself (null: the shard sent none). iari report merge starts
   * the joined window of the shards that read one server at the earliest of these reads, so every
   * shard's priming falls inside it and is counted on the client's side.
   */
  beforePriming?: { epochMs: number; counters: Partial<Record<CounterKey, number>>; histograms: Partial<Record<HistogramKey, BucketHistogram>> } | null;
  priming?: { sentEpochMs: number; endEpochMs: number | null; client: ClientTotals } | null;
}

/** A shard's priming request (run-load.ts makes it from the request's timing). */
export interface PrimingRecord {
  request: ClientRequest;
  sentEpochMs: number;
  endEpochMs: number | null;
}

/** What the section needs of a client request (RequestRecord has these fields). */
export interface ClientRequest {
  phase: 'warmup' | 'measure' | 'aborted' | 'cancelled';
  outputTokens: number;
  tokenSource: 'usage' | 'tokenizer' | 'none';
  promptTokens?: number;
  cachedTokens?: number;
  intendedUs: number;
  sentUs: number;
  ttftUs: number | null;
  error: unknown;
  requested?: { prompt: number | null; output: number | null };
}

export interface ClientWindow {
  measureStartNs: bigint;
  measureStartEpochMs: number;
  /** max_tokens of a request that says none of its own. */
  maxTokens: number;
  /** Shards of the run besides this one (their requests reach the same server). */
  otherShards?: number;
}

export function clientTotals(records: Iterable<ClientRequest>, maxTokens: number): ClientTotals {
  const t: ClientTotals = { requests: 0, ok: 0, notOk: 0, usageReported: 0, completionTokens: 0, promptTokens: 0, promptReported: 0, cachedTokens: 0, cachedReported: 0, unreportedMaxTokens: 0, ttftCount: 0, ttftSumUs: 0 };
  for (const r of records) {
    t.requests++;
    const ok = r.error === null && r.phase !== 'aborted' && r.phase !== 'cancelled';
    if (ok) t.ok++;
    else t.notOk++;
    if (r.tokenSource === 'usage') {
      t.usageReported++;
      t.completionTokens += r.outputTokens;
    } else t.unreportedMaxTokens += r.requested?.output ?? maxTokens;
    if (r.promptTokens !== undefined && r.promptTokens > 0) {
      t.promptReported++;
      t.promptTokens += r.promptTokens;
    }
    if (r.cachedTokens !== undefined) {
      t.cachedReported++;
      t.cachedTokens += r.cachedTokens;
    }
    // A request the client cut after its first token was timed by the server too (its TTFT histogram holds it).
    if ((ok || r.phase === 'cancelled') && r.ttftUs !== null) {
      t.ttftCount++;
      // From the actual send: the server cannot see the time an arrival waited in the client.
      t.ttftSumUs += r.ttftUs - (r.sentUs - r.intendedUs);
    }
  }
  return t;
}

/** `priming`: given for a shard (null: it sent no priming request), absent for a run that is not one. */
export function buildServerSection(log: ScrapeLog, records: Iterable<ClientRequest>, w: ClientWindow, priming?: PrimingRecord | null): ServerSection {
  const points = log.points;
  const epochMsOf = (atNs: bigint): number => w.measureStartEpochMs + Number(atNs - w.measureStartNs) / 1e6;
  const startS = Math.floor(w.measureStartEpochMs / 1000);
  const mapped = points.filter((p) => p.reading.engine !== null);
  const status: ServerSection['status'] = points.length === 0 ? 'nothing' : mapped.length === 0 ? 'unmapped' : 'ok';
  const first = mapped[0];
  const last = mapped[mapped.length - 1];
  const counters: ServerSection['counters'] = {};
  const histograms: ServerSection['histograms'] = {};
  const gauges: ServerSection['gauges'] = {};
  const published = new Set<string>();
  for (const p of mapped) {
    for (const k of Object.keys(p.reading.gauges)) published.add(k);
    for (const k of Object.keys(p.reading.counters)) published.add(k);
    for (const k of Object.keys(p.reading.histograms)) published.add(k);
  }
  if (first !== undefined && last !== undefined) {
    for (const k of counterKeys) {
      const a = first.reading.counters[k];
      const b = last.reading.counters[k];
      if (a !== undefined && b !== undefined) counters[k] = { first: a, last: b, delta: b - a };
    }
    for (const k of histogramKeys) {
      const a = first.reading.histograms[k];
      const b = last.reading.histograms[k];
      if (a !== undefined && b !== undefined) histograms[k] = { first: a, last: b, window: windowSummary(a, b) };
    }
    for (const k of gaugeKeys) {
      const values = mapped.map((p) => p.reading.gauges[k]).filter((v): v is number => v !== undefined);
      if (values.length > 0) gauges[k] = { max: Math.max(...values), mean: round6(values.reduce((x, y) => x + y, 0) / values.length) };
    }
  }
  const client = clientTotals(records, w.maxTokens);
  const decreases = log.decreases.map((d) => ({ series: d.series, from: d.from, to: d.to, tS: round3((epochMsOf(d.atNs) - w.measureStartEpochMs) / 1000) }));
  const ms = points.map((p) => p.ms);
  const note =
    status === 'nothing'
      ? `the scrape found nothing at ${log.url}: ${log.failures[0]?.why ?? 'no read was made'}`
      : status === 'unmapped'
        ? `${log.url} answered, but with none of the names iari maps (vLLM, SGLang, TGI, llama.cpp): its series are kept raw`
        : null;
  const section: ServerSection = {
    schema: SERVER_SECTION_SCHEMA,
    url: log.url,
    intervalMs: log.intervalMs,
    status,
    note,
    engine: log.engine,
    scrapes: {
      attempts: log.attempts,
      ok: points.length,
      failed: log.failureCount,
      meanMs: ms.length === 0 ? null : round3(ms.reduce((a, b) => a + b, 0) / ms.length),
      maxMs: ms.length === 0 ? null : round3(Math.max(...ms)),
      failures: log.failures.map((f) => ({ tS: round3((epochMsOf(f.atNs) - w.measureStartEpochMs) / 1000), why: f.why })),
      sentToken: log.sentToken,
    },
    published: [...published].sort(),
    perSecond: perSecond(mapped.map((p) => ({ epochMs: epochMsOf(p.atNs), reading: p.reading })), startS),
    gauges,
    counters,
    firstReadEpochMs: first === undefined ? null : Math.round(epochMsOf(first.atNs)),
    lastReadEpochMs: last === undefined ? null : Math.round(epochMsOf(last.atNs)),
    histograms,
    client,
    otherShards: w.otherShards ?? 0,
    reconciliation: [],
    decreases,
    decreaseCount: log.decreaseCount,
    parseIssues: log.parseIssues,
    parseIssueCount: log.parseIssueCount,
    raw: log.raw,
  };
  if (priming !== undefined) {
    const b = log.beforePriming;
    section.beforePriming = b === null || b.reading.engine === null ? null : { epochMs: Math.round(epochMsOf(b.atNs)), counters: b.reading.counters, histograms: b.reading.histograms };
    section.priming = priming === null ? null : { sentEpochMs: Math.round(priming.sentEpochMs), endEpochMs: priming.endEpochMs === null ? null : Math.round(priming.endEpochMs), client: clientTotals([priming.request], w.maxTokens) };
  }
  return { ...section, reconciliation: reconcile(section) };
}

export function windowSummary(a: BucketHistogram, b: BucketHistogram): HistogramSummaryS | null {
  const d = histogramDelta(a, b);
  if (d === null) return null;
  const us = (r: { low: number; high: number } | null): { low: number; high: number } | null => (r === null ? null : { low: Math.round(r.low * 1e6), high: r.high === Infinity ? Infinity : Math.round(r.high * 1e6) });
  return { count: d.count, meanUs: d.count > 0 && Number.isFinite(d.sum) ? Math.round((d.sum / d.count) * 1e6) : null, p50Us: us(quantileBucket(d, 0.5)), p95Us: us(quantileBucket(d, 0.95)) };
}

type Stamped = { epochMs: number; reading: { gauges: Partial<Record<GaugeKey, number>>; counters: Partial<Record<CounterKey, number>> } };

/** Groups reads by epoch second: gauges at their highest, counters as growth per second. */
export function perSecond(points: readonly Stamped[], startS: number): ServerSecond[] {
  const out: ServerSecond[] = [];
  let prev: Stamped | null = null;
  let i = 0;
  while (i < points.length) {
    const epochS = Math.floor((points[i] as Stamped).epochMs / 1000);
    const group: Stamped[] = [];
    while (i < points.length && Math.floor((points[i] as Stamped).epochMs / 1000) === epochS) group.push(points[i++] as Stamped);
    const end = group[group.length - 1] as Stamped;
    const peak = (k: GaugeKey): number | null => {
      const v = group.map((p) => p.reading.gauges[k]).filter((x): x is number => x !== undefined);
      return v.length === 0 ? null : Math.max(...v);
    };
    const rate = (k: CounterKey): number | null => {
      if (prev === null) return null;
      const a = prev.reading.counters[k];
      const b = end.reading.counters[k];
      const dt = (end.epochMs - prev.epochMs) / 1000;
      return a === undefined || b === undefined || dt <= 0 ? null : round3((b - a) / dt);
    };
    out.push({ epochS, tS: epochS - startS, scrapes: group.length, running: peak('running'), waiting: peak('waiting'), kvCacheUsage: peak('kvCacheUsage'), generatedPerS: rate('generatedTokens'), promptPerS: rate('promptTokens') });
    prev = end;
  }
  return out;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

