// The load half of `iari report compare`: every metric and percentile of two load.json files, the
// change, and whether it is significant by a test named on each row (docs/load.md, "Comparing runs").
import type { LoadResult, MetricName, RequestRecord, Timeslice } from '../load/results/load-result.ts';
import { percentileKeys, percentileValues } from '../load/results/load-result.ts';
import { hdrValueCounts } from '../report/load-html.ts';
import { meanSummary, twoProportions, welch, type DifferenceTest } from '../statistics.ts';
import { blockPercentileDifferences } from './block-bootstrap.ts';
import { measuredSlices, metricBlocks } from './run-blocks.ts';
import { noiseFloor } from './noise-floors.ts';

export type RowUnit = 'us' | 'millitokens_per_s' | 'ratio' | 'per_s' | 'tokens_per_s';

export const TESTS = {
  blocks: 'block bootstrap of the percentile over the 1 s timeslices (whole seconds of requests resampled, 2000 draws, 95% interval of the difference), significant only beyond the run-to-run noise floor of that percentile (the minEffect of the row)',
  proportions: 'two-proportion z-test over the requests',
  timeslices: "Welch's t-test over the 1 s timeslices",
  repeats: "Welch's t-test over the repeated runs' values (--repeat)",
} as const;
export type TestName = keyof typeof TESTS;

export interface MetricRow {
  /** As a --fail-on gate names it: ttft.p95, errors.rate, throughput.output_tokens_per_s. */
  key: string;
  unit: RowUnit;
  base: number | null;
  new: number | null;
  /** new - base. */
  change: number | null;
  /** (new - base) / base; null when base is 0 or missing. */
  relative: number | null;
  test: TestName | null;
  /** 95% interval of new - base, when a test ran. */
  low: number | null;
  high: number | null;
  p: number | null;
  /** The test's 95% interval of the change excludes 0. */
  statisticallySignificant: boolean;
  /** The relative change this row needs to be significant: --min-effect, or the percentile's run-to-run noise floor (noise-floors.ts) when larger and the runs were not repeated. */
  minEffect: number;
  /** Statistically significant and, except for ratios, at least minEffect in relative size. */
  significant: boolean;
}

/** Per-key values of repeated runs (load.json `repeat`, written by iari load --repeat). */
export type RepeatValues = Record<string, number[]>;

/** Samples needed beyond a percentile, on both sides, to test it. */
export const MIN_TAIL = 5;

export const comparedMetrics: readonly MetricName[] = ['ttft', 'itl', 'tpot', 'e2e', 'ttfb', 'output_tps'];

/** Relative change below which a statistically significant change is not called significant. */
export const DEFAULT_MIN_EFFECT = 0.05;

function row(key: string, unit: RowUnit, base: number | null, next: number | null, test: TestName | null, t: DifferenceTest | null, minEffect: number): MetricRow {
  const change = base === null || next === null ? null : next - base;
  const relative = change === null || base === null || base === 0 ? null : change / base;
  const stat = t?.significant ?? false;
  // Two runs of one configuration differ by more than their within-run sampling error (the machine,
  // the server's state): a floor on the effect keeps such noise from being reported as a change.
  const floor = test === 'blocks' ? Math.max(minEffect, noiseFloor(key)) : minEffect;
  const large = unit === 'ratio' || relative === null || Math.abs(relative) >= floor;
  return {
    key,
    unit,
    base,
    new: next,
    change,
    relative,
    test: t === null ? null : test,
    low: t?.low ?? null,
    high: t?.high ?? null,
    p: t?.p ?? null,
    statisticallySignificant: stat,
    minEffect: floor,
    significant: stat && large,
  };
}

function repeatsOf(r: LoadResult): RepeatValues | null {
  const rep = (r as LoadResult & { repeat?: { values: RepeatValues } }).repeat;
  return rep === undefined ? null : rep.values;
}

/** Compares two load results metric by metric; intervals of repeated runs are used when both have them. */
export function compareLoad(base: LoadResult, next: LoadResult, seed = 1, minEffect = DEFAULT_MIN_EFFECT, records: { base: readonly RequestRecord[] | null; next: readonly RequestRecord[] | null } = { base: null, next: null }): MetricRow[] {
  const rows: MetricRow[] = [];
  const ra = repeatsOf(base);
  const rb = repeatsOf(next);
  const byRepeats = (key: string): DifferenceTest | null => {
    const a = ra?.[key];
    const b = rb?.[key];
    return a === undefined || b === undefined ? null : welch(meanSummary(a), meanSummary(b));
  };
  for (const m of comparedMetrics) {
    const a = base.metrics[m];
    const b = next.metrics[m];
    if (a === undefined && b === undefined) continue;
    const va = a === undefined ? [] : hdrValueCounts(a.hdr);
    const vb = b === undefined ? [] : hdrValueCounts(b.hdr);
    const unit: RowUnit = m === 'output_tps' ? 'millitokens_per_s' : 'us';
    const ba = a === undefined ? null : metricBlocks(base, m, records.base);
    const bb = b === undefined ? null : metricBlocks(next, m, records.next);
    const blockTests = ba === null || bb === null ? percentileKeys.map(() => null) : blockPercentileDifferences(ba, bb, percentileKeys.map((k) => percentileValues[k]), seed);
    percentileKeys.forEach((k, i) => {
      const key = `${m}.${k}`;
      const rep = byRepeats(key);
      // A percentile with fewer than MIN_TAIL samples beyond it on either side is near the maximum,
      // where the bootstrap is known to be unreliable (Bickel & Freedman 1981): left untested.
      const tail = (v: typeof va): number => v.reduce((n, x) => n + x.count, 0) * (1 - percentileValues[k] / 100);
      const testable = tail(va) >= MIN_TAIL && tail(vb) >= MIN_TAIL;
      const t = rep ?? (testable ? (blockTests[i] ?? null) : null);
      rows.push(row(key, unit, a?.percentiles[k] ?? null, b?.percentiles[k] ?? null, rep === null ? 'blocks' : 'repeats', t, minEffect));
    });
  }
  const ta = measuredSlices(base.timeslices, base.throughput.windowS);
  const tb = measuredSlices(next.timeslices, next.throughput.windowS);
  const perSecond = (key: string, pick: (s: Timeslice) => number, a: number, b: number, unit: RowUnit): void => {
    const rep = byRepeats(key);
    const t = rep ?? welch(meanSummary(ta.map(pick)), meanSummary(tb.map(pick)));
    rows.push(row(key, unit, a, b, rep === null ? 'timeslices' : 'repeats', t, minEffect));
  };
  perSecond('throughput.rps', (s) => s.finished, base.throughput.rps, next.throughput.rps, 'per_s');
  perSecond('throughput.ok_rps', (s) => s.ok, base.throughput.okRps, next.throughput.okRps, 'per_s');
  perSecond('throughput.output_tokens_per_s', (s) => s.outputTokens, base.throughput.outputTokensPerS, next.throughput.outputTokensPerS, 'tokens_per_s');
  const ratio = (key: string, xa: number, na: number, xb: number, nb: number, a: number, b: number): void => {
    const rep = byRepeats(key);
    rows.push(row(key, 'ratio', a, b, rep === null ? 'proportions' : 'repeats', rep ?? twoProportions(xa, na, xb, nb), minEffect));
  };
  ratio('errors.rate', base.errors.total, base.counts.finished, next.errors.total, next.counts.finished, base.errors.rate, next.errors.rate);
  ratio('goodput.fraction', base.goodput.goodRequests, base.counts.finished, next.goodput.goodRequests, next.counts.finished, base.goodput.fraction, next.goodput.fraction);
  // Goodput per second moves with the fraction of good requests at a given arrival rate.
  const gRep = byRepeats('goodput.rps');
  const gTest = gRep ?? twoProportions(base.goodput.goodRequests, base.counts.finished, next.goodput.goodRequests, next.counts.finished);
  const g = row('goodput.rps', 'per_s', base.goodput.goodputRps, next.goodput.goodputRps, gRep === null ? 'proportions' : 'repeats', gTest, minEffect);
  // The proportions test's interval is of the good fraction, not of requests per second.
  rows.push(gRep === null ? { ...g, low: null, high: null } : g);
  return rows;
}
