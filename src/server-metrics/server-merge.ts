// iari report merge: the server sections of a run's shards as one (docs/server-metrics.md).
import { reconcile, type ClientTotals } from './reconcile.ts';
import { counterKeys, gaugeKeys, histogramKeys } from './vocabulary.ts';
import { round6, windowSummary, type GaugeSummary, type ServerSecond, type ServerSection } from './server-section.ts';

/**
 * Shards of one run (iari report merge): shards that read the same URL read one server, so its
 * counters run from the earliest first read to the latest last one and its seconds take the higher
 * value; shards that read different URLs (a replica each) add up. The client sums add up, and the
 * reconciliation is judged again on the whole.
 */
export function mergeServerSections(parts: readonly (ServerSection | undefined)[]): ServerSection | undefined {
  const given = parts.filter((p): p is ServerSection => p !== undefined);
  const first = given[0];
  if (first === undefined) return undefined;
  const byUrl = new Map<string, ServerSection[]>();
  for (const p of given) byUrl.set(p.url, [...(byUrl.get(p.url) ?? []), p]);
  const joins = [...byUrl.values()].map(oneServer);
  const groups = joins.map((j) => j.section);
  const ok = groups.filter((g) => g.status === 'ok');
  const counters: ServerSection['counters'] = {};
  for (const k of counterKeys) {
    const have = ok.map((g) => g.counters[k]).filter((c): c is NonNullable<typeof c> => c !== undefined);
    if (have.length === ok.length && have.length > 0) counters[k] = { first: sumOf(have.map((c) => c.first)), last: sumOf(have.map((c) => c.last)), delta: sumOf(have.map((c) => c.delta)) };
  }
  const gauges: ServerSection['gauges'] = {};
  for (const k of gaugeKeys) {
    const have = ok.map((g) => g.gauges[k]).filter((x): x is GaugeSummary => x !== undefined);
    if (have.length > 0) gauges[k] = k === 'kvCacheUsage' ? { max: Math.max(...have.map((x) => x.max)), mean: Math.max(...have.map((x) => x.mean)) } : { max: sumOf(have.map((x) => x.max)), mean: round6(sumOf(have.map((x) => x.mean))) };
  }
  const seconds = new Map<number, ServerSecond>();
  for (const g of ok) for (const s of g.perSecond) seconds.set(s.epochS, addSecond(seconds.get(s.epochS), s, false));
  const startS = Math.min(...given.map((p) => p.perSecond[0]?.epochS ?? Infinity).filter(Number.isFinite), Infinity);
  // Every shard's priming request fell inside its server's joined window: the client's side counts it.
  const client = [...given.map((p) => p.client), ...joins.flatMap((j) => j.primings)].reduce(addTotals);
  // A shard's own read before priming and its priming request are the joins' (above), not the whole's.
  const { beforePriming: _before, priming: _priming, ...firstOwn } = first;
  const merged: ServerSection = {
    ...firstOwn,
    url: [...byUrl.keys()].join(', '),
    status: ok.length > 0 ? 'ok' : groups.some((g) => g.status === 'unmapped') ? 'unmapped' : 'nothing',
    note: ok.length > 0 ? null : first.note,
    engine: ok[0]?.engine ?? first.engine,
    scrapes: { ...first.scrapes, attempts: sumOf(given.map((p) => p.scrapes.attempts)), ok: sumOf(given.map((p) => p.scrapes.ok)), failed: sumOf(given.map((p) => p.scrapes.failed)), failures: given.flatMap((p) => p.scrapes.failures).slice(0, 20), sentToken: given.some((p) => p.scrapes.sentToken) },
    published: [...new Set(given.flatMap((p) => p.published))].sort(),
    perSecond: [...seconds.values()].sort((a, b) => a.epochS - b.epochS).map((s) => ({ ...s, tS: Number.isFinite(startS) ? s.epochS - startS + (first.perSecond[0]?.tS ?? 0) : s.tS })),
    gauges,
    counters,
    firstReadEpochMs: minOrNull(given.map((p) => p.firstReadEpochMs)),
    lastReadEpochMs: maxOrNull(given.map((p) => p.lastReadEpochMs)),
    histograms: ok.length === 1 ? (ok[0] as ServerSection).histograms : {},
    client,
    decreases: given.flatMap((p) => p.decreases).slice(0, 20),
    decreaseCount: sumOf(given.map((p) => p.decreaseCount)),
    parseIssues: given.flatMap((p) => p.parseIssues).slice(0, 20),
    parseIssueCount: sumOf(given.map((p) => p.parseIssueCount)),
    raw: first.raw,
    otherShards: 0,
  };
  const unjoined = joins.map((j) => j.unjoined).filter((u): u is string => u !== null);
  return { ...merged, reconciliation: reconcile({ ...merged, ...(unjoined.length === 0 ? {} : { unbounded: unjoined.join('; ') }) }) };
}

interface Joined {
  section: ServerSection;
  /** The priming requests inside the joined window (their client totals). */
  primings: ClientTotals[];
  /** Why the window could not be joined exactly (null: it was). */
  unjoined: string | null;
}

/**
 * The shards that read one URL: one server seen several times. Each primed it with one request
 * before its own baseline read, so another shard's priming can fall inside a window that starts at
 * the earliest baseline. Shards read the server before priming too (load.json `beforePriming`): the
 * joined window starts at the earliest of those reads, every shard's priming falls inside it, and
 * their usage (load.json `priming`) joins the client's side, so the findings are exact both ways.
 */
function oneServer(parts: readonly ServerSection[]): Joined {
  const ok = parts.filter((p) => p.status === 'ok').sort((a, b) => (a.firstReadEpochMs ?? 0) - (b.firstReadEpochMs ?? 0));
  const earliest = ok[0];
  if (earliest === undefined) return { section: parts[0] as ServerSection, primings: [], unjoined: null };
  const latest = [...ok].sort((a, b) => (b.lastReadEpochMs ?? 0) - (a.lastReadEpochMs ?? 0))[0] as ServerSection;
  const missing = ok.filter((p) => p.beforePriming === undefined || p.beforePriming === null || p.priming === undefined).length;
  const joined = ok.length > 1 && missing === 0;
  const start = joined ? ok.map((p) => p.beforePriming as NonNullable<ServerSection['beforePriming']>).sort((a, b) => a.epochMs - b.epochMs)[0] : undefined;
  const counters: ServerSection['counters'] = {};
  for (const k of counterKeys) {
    const have = ok.map((p) => p.counters[k]).filter((c): c is NonNullable<typeof c> => c !== undefined);
    if (have.length === 0) continue;
    const lo = start === undefined ? Math.min(...have.map((c) => c.first)) : start.counters[k];
    if (lo === undefined) continue;
    const hi = Math.max(...have.map((c) => c.last));
    counters[k] = { first: lo, last: hi, delta: hi - lo };
  }
  const histograms: ServerSection['histograms'] = {};
  for (const k of histogramKeys) {
    const a = start === undefined ? earliest.histograms[k]?.first : start.histograms[k];
    const b = latest.histograms[k];
    if (a !== undefined && b !== undefined) histograms[k] = { first: a, last: b.last, window: windowSummary(a, b.last) };
  }
  const gauges: ServerSection['gauges'] = {};
  for (const k of gaugeKeys) {
    const have = ok.map((p) => p.gauges[k]).filter((x): x is GaugeSummary => x !== undefined);
    if (have.length > 0) gauges[k] = { max: Math.max(...have.map((x) => x.max)), mean: Math.max(...have.map((x) => x.mean)) };
  }
  const seconds = new Map<number, ServerSecond>();
  for (const p of ok) for (const s of p.perSecond) seconds.set(s.epochS, addSecond(seconds.get(s.epochS), s, true));
  const section = { ...earliest, counters, histograms, gauges, perSecond: [...seconds.values()] };
  if (ok.length < 2) return { section, primings: [], unjoined: null };
  if (!joined)
    return {
      section,
      primings: [],
      unjoined: `${missing} of the ${ok.length} shards that read ${earliest.url} recorded no read before their priming request (a load.json from an older iari, or that read failed), so another shard's priming may fall inside the joined window: the server's count is bounded from below only`,
    };
  return { section, primings: ok.flatMap((p) => (p.priming == null ? [] : [p.priming.client])), unjoined: null };
}

/** One second from two readers: of one server (the higher value), or of two (the sum). */
function addSecond(a: ServerSecond | undefined, b: ServerSecond, sameServer: boolean): ServerSecond {
  if (a === undefined) return { ...b };
  const f = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : sameServer ? Math.max(x, y) : x + y);
  return { ...a, scrapes: a.scrapes + b.scrapes, running: f(a.running, b.running), waiting: f(a.waiting, b.waiting), kvCacheUsage: a.kvCacheUsage === null ? b.kvCacheUsage : b.kvCacheUsage === null ? a.kvCacheUsage : Math.max(a.kvCacheUsage, b.kvCacheUsage), generatedPerS: f(a.generatedPerS, b.generatedPerS), promptPerS: f(a.promptPerS, b.promptPerS) };
}

function addTotals(a: ClientTotals, b: ClientTotals): ClientTotals {
  const out = { ...a };
  for (const k of Object.keys(b) as (keyof ClientTotals)[]) out[k] = a[k] + b[k];
  return out;
}

const sumOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const minOrNull = (xs: readonly (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.min(...v);
};
const maxOrNull = (xs: readonly (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.max(...v);
};
