import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { CacheReport, HistogramSummary } from './load-result.ts';
import type { ResultSection, SectionTile } from '../../sections/section-contract.ts';
import { addCounts, zeroCounts } from '../../sections/counts.ts';
import { tileMs, tileNum, tilePct, tileUs } from '../../sections/tile-format.ts';

/**
 * Prompt-cache figures of the successful measured requests, from the server's own
 * `usage.prompt_tokens_details.cached_tokens` (OpenAI's field; vLLM, SGLang and others fill it
 * when prefix caching is on): the share of prompt tokens served from the cache, how many requests
 * hit it, and TTFT split by hit (cached_tokens > 0) and miss.
 */
const cacheCounts = ['requestsReporting', 'requestsUnreported', 'promptTokens', 'cachedTokens', 'hitRequests'] as const;

export class CacheAcc {
  /** The report's counters, under its own names. */
  readonly n = zeroCounts(cacheCounts);
  readonly ttftHit: Histogram = newHistogram();
  readonly ttftMiss: Histogram = newHistogram();

  /** One successful measured request: its cached_tokens (null: not reported), prompt tokens and TTFT (µs). */
  add(cached: number | null, promptTokens: number, ttftUs: number | null): void {
    if (cached === null) {
      this.n.requestsUnreported++;
      return;
    }
    this.n.requestsReporting++;
    this.n.promptTokens += promptTokens;
    this.n.cachedTokens += cached;
    if (cached > 0) this.n.hitRequests++;
    if (ttftUs !== null) record(cached > 0 ? this.ttftHit : this.ttftMiss, ttftUs);
  }
}

export function buildCacheReport(c: CacheAcc): CacheReport | undefined {
  const n = c.n;
  if (n.requestsReporting === 0) return undefined;
  return {
    requestsReporting: n.requestsReporting,
    requestsUnreported: n.requestsUnreported,
    promptTokens: n.promptTokens,
    cachedTokens: n.cachedTokens,
    hitRate: n.promptTokens === 0 ? 0 : round6(n.cachedTokens / n.promptTokens),
    hitRequests: n.hitRequests,
    requestHitRate: round6(n.hitRequests / n.requestsReporting),
    ttftHit: c.ttftHit.totalCount === 0 ? null : summarize(c.ttftHit, 'us'),
    ttftMiss: c.ttftMiss.totalCount === 0 ? null : summarize(c.ttftMiss, 'us'),
  };
}

/** Adds the cache figures of several results (shards): sums, histograms bucket by bucket. */
export function mergeCacheReports(reports: readonly (CacheReport | undefined)[]): CacheReport | undefined {
  const acc = new CacheAcc();
  for (const r of reports) {
    if (r === undefined) continue;
    addCounts(acc.n, r, cacheCounts);
    if (r.ttftHit !== null) acc.ttftHit.add(decodeHistogram(r.ttftHit.hdr));
    if (r.ttftMiss !== null) acc.ttftMiss.add(decodeHistogram(r.ttftMiss.hdr));
  }
  return buildCacheReport(acc);
}

/** The summary line (null: the server reported no cached_tokens). */
export function cacheLine(r: CacheReport | undefined, fmt: (us: number | null | undefined) => string): string | null {
  if (r === undefined) return null;
  const p50 = (h: CacheReport['ttftHit']): string => fmt(h?.percentiles.p50);
  return `prompt cache (usage cached_tokens): ${(r.hitRate * 100).toFixed(1)}% of ${r.promptTokens} prompt tokens cached; ${r.hitRequests} of ${r.requestsReporting} requests hit (${(r.requestHitRate * 100).toFixed(1)}%); TTFT p50 hit ${p50(r.ttftHit)} (n ${r.ttftHit?.count ?? 0}), miss ${p50(r.ttftMiss)} (n ${r.ttftMiss?.count ?? 0})${r.requestsUnreported > 0 ? `; ${r.requestsUnreported} requests without cached_tokens` : ''}`;
}

function cacheTile(c: CacheReport): SectionTile {
  const group = (name: string, h: HistogramSummary | null, requests: number): string[] => [name, tileNum(requests, 0), tileUs(h?.percentiles.p50), tileUs(h?.percentiles.p95), tileUs(h?.percentiles.p99), tileUs(h?.mean)];
  return {
    id: 'cache',
    title: 'Prompt cache',
    stats: [
      { label: 'token hit rate', value: tilePct(c.hitRate), tone: 'info', hint: `${tileNum(c.cachedTokens, 0)} cached of ${tileNum(c.promptTokens, 0)} prompt tokens` },
      { label: 'request hit rate', value: tilePct(c.requestHitRate), hint: `${tileNum(c.hitRequests, 0)} of ${tileNum(c.requestsReporting, 0)} requests had cached_tokens > 0` },
      { label: 'TTFT p50 hit / miss', value: `${tileUs(c.ttftHit?.percentiles.p50)} / ${tileUs(c.ttftMiss?.percentiles.p50)}` },
    ],
    caption: `From usage.prompt_tokens_details.cached_tokens of ${tileNum(c.requestsReporting, 0)} successful requests${c.requestsUnreported > 0 ? `; ${tileNum(c.requestsUnreported, 0)} did not report it` : ''}.`,
    table: {
      head: ['requests', 'count', 'TTFT p50', 'TTFT p95', 'TTFT p99', 'TTFT mean'],
      rows: [group('cache hit', c.ttftHit, c.hitRequests), group('cache miss', c.ttftMiss, c.requestsReporting - c.hitRequests)],
      numeric: [1, 2, 3, 4, 5],
    },
    charts: [
      {
        kind: 'bars',
        title: 'TTFT, cache hit vs miss',
        series: ['hit', 'miss'],
        groups: [
          { label: 'p50', values: [tileMs(c.ttftHit, 'p50'), tileMs(c.ttftMiss, 'p50')] },
          { label: 'p95', values: [tileMs(c.ttftHit, 'p95'), tileMs(c.ttftMiss, 'p95')] },
        ],
        xLabel: 'TTFT (ms)',
        format: 'ms',
      },
    ],
  };
}

/** The `cache` section of load.json: prompt-cache hits of the successful measured requests. */
export const cacheSection: ResultSection<CacheReport, CacheAcc> = {
  key: 'cache',
  place: 'workload',
  open: () => new CacheAcc(),
  collect(acc, r) {
    if (r.outcome === 'ok') acc.add(r.timing.extras?.cachedTokens ?? null, r.timing.promptTokens, r.ttftUs);
  },
  build: (acc) => buildCacheReport(acc),
  merge: (parts) => mergeCacheReports(parts),
  summary: (out, fmt) => [cacheLine(out, fmt.us) ?? ''].filter((l) => l !== ''),
  tile: cacheTile,
  slos: [],
};

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
