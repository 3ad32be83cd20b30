// The load half of `iari report compare`: every metric and percentile of two load.json files, the
// change, and whether it is significant by a test named on each row (docs/load.md, "Comparing runs").
import type { LoadResult, MetricName, RequestRecord, Timeslice } from '../load/results/load-result.ts';
import { percentileKeys, percentileValues } from '../load/results/load-result.ts';
import type { ValueCount } from '../statistics.ts';
import { hdrValueCounts } from '../report/load-html.ts';
import { meanSummary, studentTwoSidedP, tInterval, twoProportions, welch, type DifferenceTest } from '../statistics.ts';
import { blockPercentileDifferences, MIN_BLOCKS } from './block-bootstrap.ts';
import { blockSamplesNeeded, MIN_PAIRS, pairedPercentileDifferences, type PairedPercentile } from './paired-differences.ts';
import type { AbBlock } from '../load/search/ab-blocks.ts';
import { measuredSlices, metricBlocks } from './run-blocks.ts';
import { calibratedInterval, type NoiseCalibration } from './noise-calibration.ts';

export type RowUnit = 'us' | 'millitokens_per_s' | 'ratio' | 'per_s' | 'tokens_per_s';

export const TESTS = {
  paired: "A/B run: one difference per pair of blocks (B's percentile minus A's in the block next to it), sign-test 95% interval of their median (and of the pairs' relative changes, for % gates); a pair is left out when a block has too few values for the percentile (p95: 20); rates: paired t over the blocks",
  blocks: 'block bootstrap of the percentile over the 1 s timeslices (whole seconds of requests resampled, 2000 draws, 95% interval of the difference); within one run, so it does not include run-to-run noise',
  proportions: 'two-proportion z-test over the requests',
  timeslices: "Welch's t-test over the 1 s timeslices (within one run, so it does not include run-to-run noise)",
  repeats: "Welch's t-test over the repeated runs' values (--repeat)",
} as const;
export type TestName = keyof typeof TESTS;

/** Where a row's interval gets its run-to-run noise from (null: it has none, the within-run test alone). */
export type NoiseSource = 'repeats' | 'calibration' | 'paired';
export const NOISE_SOURCES: Record<NoiseSource, string> = {
  paired: "an A/B run (iari load --ab): both sides ran in alternating blocks, and the interval is over the pairs' differences (sign test of the median for percentiles, paired t for rates), so the drift between blocks is in it and what a pair shares cancels",
  repeats: 'both sides were run with iari load --repeat: the interval is over the runs, so it includes their run-to-run spread',
  calibration: "--noise-floors: the within-run interval widened to the run-to-run spread of identical runs measured by iari report noise (the wider of the two)",
};

/** Why a row has no test: what a gate on it needs and the run lacked. */
export type Untested =
  /** A percentile needs MIN_TAIL samples beyond it on each side: `need` per side (requests, or inter-token gaps for itl). */
  | { kind: 'samples'; need: number; base: number; new: number; per: 'requests' | 'inter-token gaps'; ratePerS: number }
  /** The block bootstrap needs MIN_BLOCKS whole measured seconds on each side. */
  | { kind: 'seconds'; need: number; base: number; new: number }
  /** An A/B run's percentile needs MIN_PAIRS pairs whose blocks both hold `perBlock` values; `usable` of `of` did. */
  | { kind: 'pairs'; need: number; usable: number; of: number; perBlock: number; per: 'requests' | 'inter-token gaps'; dropped: string[] }
  /** A rate of an A/B run at random: each side's share of the requests is a coin's. */
  | { kind: 'coin' }
  /** goodput.rps without repeats: the seconds of a run do not count its good requests, so it has no within-run test. */
  | { kind: 'rate-of-good' }
  /** ttfb, tpot and output_tps blocks come from requests.ndjson, missing on a side. */
  | { kind: 'records' }
  /** The metric is not on both sides. */
  | { kind: 'missing' };

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
  /** low / base and high / base: the interval of the relative change; null when base is 0 or no test ran. */
  relativeLow: number | null;
  relativeHigh: number | null;
  /** The run-to-run noise [low, high] includes; null: none (a within-run interval). */
  noise: NoiseSource | null;
  /** Why `test` is null. */
  untested: Untested | null;
  /** The 95% interval (low … high) excludes 0. */
  statisticallySignificant: boolean;
  /** The relative change this row needs to be significant: --min-effect (ratios: none). */
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

function row(key: string, unit: RowUnit, base: number | null, next: number | null, test: TestName | null, t: DifferenceTest | null, minEffect: number, extra: { noise?: NoiseSource | null; untested?: Untested | null; baseMean?: number; relative?: DifferenceTest | null } = {}): MetricRow {
  // An A/B percentile: the change is the pairs' (median difference, median relative change), not the pooled values'.
  const paired = t !== null && extra.relative !== undefined && extra.relative !== null ? extra.relative : null;
  const change = paired !== null ? (t as DifferenceTest).difference : base === null || next === null ? null : next - base;
  const relative = paired !== null ? paired.difference : change === null || base === null || base === 0 ? null : change / base;
  const stat = t?.significant ?? false;
  const large = unit === 'ratio' || relative === null || Math.abs(relative) >= minEffect;
  // The interval is of new - base; repeats compare the runs' means, so their relative interval is over the base mean.
  const over = extra.baseMean ?? base;
  const rel = (x: number | undefined): number | null => (x === undefined || over === null || over === 0 ? null : x / over);
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
    relativeLow: paired !== null ? paired.low : rel(t?.low),
    relativeHigh: paired !== null ? paired.high : rel(t?.high),
    noise: t === null ? null : (extra.noise ?? null),
    untested: t === null ? (extra.untested ?? { kind: 'missing' }) : null,
    statisticallySignificant: stat,
    minEffect,
    significant: stat && large,
  };
}

/** The within-run test widened to the calibrated run-to-run spread: the wider of the two intervals. */
function withCalibration(key: string, t: DifferenceTest | null, base: number | null, next: number | null, calibration: NoiseCalibration | null): { t: DifferenceTest | null; noise: NoiseSource | null } {
  const k = calibration?.keys[key];
  if (k === undefined || base === null || next === null) return { t, noise: null };
  const c = calibratedInterval(k, base, next);
  if (c === null) return { t, noise: null };
  const low = Math.min(c.low, t?.low ?? c.low);
  const high = Math.max(c.high, t?.high ?? c.high);
  return { t: { difference: next - base, low, high, p: t?.p ?? 1, significant: low > 0 || high < 0 }, noise: 'calibration' };
}

function repeatsOf(r: LoadResult): RepeatValues | null {
  const rep = (r as LoadResult & { repeat?: { values: RepeatValues } }).repeat;
  return rep === undefined ? null : rep.values;
}

/** A rate of an A/B run: a paired t over the blocks' differences (B - A), scaled to the merged base. */
function pairedRate(pairs: readonly { a: AbBlock; b: AbBlock }[], key: string, base: number, next: number): DifferenceTest | null {
  const rate = (x: AbBlock): number => (key === 'throughput.rps' ? x.finished : key === 'throughput.ok_rps' ? x.ok : x.outputTokens) / Math.max(1e-9, x.windowS);
  const d = pairs.map((p) => rate(p.b) - rate(p.a));
  if (d.length < MIN_BLOCKS) return null;
  const t = tInterval(d);
  const se = t.sd / Math.sqrt(t.n);
  const p = se === 0 ? (t.mean === 0 ? 1 : 0) : studentTwoSidedP(t.mean / se, t.n - 1);
  // The interval is of the mean block difference (the blocks are of one length, so it is the merged runs' difference up to rounding).
  return { difference: next - base, low: t.low, high: t.high, p, significant: t.low > 0 || t.high < 0 };
}

/** Samples a percentile needs on each side to be tested: MIN_TAIL beyond it (p95: 100, p99: 500). */
export function samplesNeeded(percentile: number): number {
  return Math.ceil(MIN_TAIL / (1 - percentile / 100) - 1e-9);
}

/**
 * Compares two load results metric by metric. Intervals of repeated runs are used when both have
 * them; otherwise the within-run test's, widened by `calibration` (iari report noise) when given.
 */
function pairsUntested(x: PairedPercentile | undefined, p: number, per: 'requests' | 'inter-token gaps'): Untested {
  const of = x?.pairs ?? 0;
  const dropped = x?.dropped ?? [];
  return { kind: 'pairs', need: MIN_PAIRS, usable: of - dropped.length, of, perBlock: blockSamplesNeeded(p), per, dropped: dropped.map((d) => `pair ${d.pair}: ${d.reason}`) };
}

export function compareLoad(
  base: LoadResult,
  next: LoadResult,
  seed = 1,
  minEffect = DEFAULT_MIN_EFFECT,
  records: { base: Iterable<RequestRecord> | null; next: Iterable<RequestRecord> | null } = { base: null, next: null },
  calibration: NoiseCalibration | null = null,
  paired: readonly { a: AbBlock; b: AbBlock }[] | null = null,
  /** The A/B run assigned requests at random: its rates are a coin's split, not the servers'. */
  coin = false,
): MetricRow[] {
  const rows: MetricRow[] = [];
  const ra = repeatsOf(base);
  const rb = repeatsOf(next);
  const byRepeats = (key: string): { t: DifferenceTest; baseMean: number } | null => {
    const a = ra?.[key];
    const b = rb?.[key];
    if (a === undefined || b === undefined) return null;
    const sa = meanSummary(a);
    const t = welch(sa, meanSummary(b));
    return t === null ? null : { t, baseMean: sa.mean };
  };
  /** A row tested within the runs (widened by the calibration), or by the repeats when both sides have them. */
  const push = (key: string, unit: RowUnit, a: number | null, b: number | null, test: TestName, within: DifferenceTest | null, untested: Untested | null = null, pairedRelative: DifferenceTest | null = null): void => {
    const rep = byRepeats(key);
    if (rep !== null) {
      rows.push(row(key, unit, a, b, 'repeats', rep.t, minEffect, { noise: 'repeats', baseMean: rep.baseMean }));
      return;
    }
    // Too few samples for the percentile, or the metric on one side only: nothing to widen.
    if (untested !== null && (untested.kind === 'samples' || untested.kind === 'missing')) {
      rows.push(row(key, unit, a, b, test, null, minEffect, { untested }));
      return;
    }
    if (paired !== null && test !== 'proportions') {
      rows.push(row(key, unit, a, b, 'paired', within, minEffect, { noise: 'paired', untested, relative: pairedRelative }));
      return;
    }
    const c = withCalibration(key, within, a, b, calibration);
    rows.push(row(key, unit, a, b, test, c.t, minEffect, { noise: c.noise, untested }));
  };
  for (const m of comparedMetrics) {
    const a = base.metrics[m];
    const b = next.metrics[m];
    if (a === undefined && b === undefined) continue;
    const va = a === undefined ? [] : hdrValueCounts(a.hdr);
    const vb = b === undefined ? [] : hdrValueCounts(b.hdr);
    const na = va.reduce((n, x) => n + x.count, 0);
    const nb = vb.reduce((n, x) => n + x.count, 0);
    const unit: RowUnit = m === 'output_tps' ? 'millitokens_per_s' : 'us';
    const pairBlocks = (side: 'a' | 'b'): ValueCount[][] | null => paired?.map((p) => hdrValueCounts(p[side].hdr[m] ?? '')) ?? null;
    const ba = a === undefined ? null : (pairBlocks('a') ?? metricBlocks(base, m, records.base));
    const bb = b === undefined ? null : (pairBlocks('b') ?? metricBlocks(next, m, records.next));
    const ps = percentileKeys.map((k) => percentileValues[k]);
    const per = m === 'itl' ? 'inter-token gaps' : 'requests';
    const pairTests = ba === null || bb === null || paired === null ? null : pairedPercentileDifferences(ba, bb, ps, per);
    const blockTests = ba === null || bb === null ? percentileKeys.map(() => null) : pairTests !== null ? pairTests.map((x) => x.test) : blockPercentileDifferences(ba, bb, ps, seed);
    const nonEmpty = (x: readonly (readonly unknown[])[] | null): number => x?.filter((s) => s.length > 0).length ?? 0;
    percentileKeys.forEach((k, i) => {
      const key = `${m}.${k}`;
      // A percentile with fewer than MIN_TAIL samples beyond it on either side is near the maximum,
      // where the bootstrap is known to be unreliable (Bickel & Freedman 1981): left untested.
      const need = samplesNeeded(percentileValues[k]);
      const rate = Math.min(na / Math.max(1e-9, base.throughput.windowS), nb / Math.max(1e-9, next.throughput.windowS));
      const untested: Untested | null =
        a === undefined || b === undefined
          ? { kind: 'missing' }
          : na < need || nb < need
            ? { kind: 'samples', need, base: na, new: nb, per: m === 'itl' ? 'inter-token gaps' : 'requests', ratePerS: rate }
            : ba === null || bb === null
              ? { kind: 'records' }
              : blockTests[i] === null || blockTests[i] === undefined
                ? pairTests !== null
                  ? pairsUntested(pairTests[i], percentileValues[k], per)
                  : { kind: 'seconds', need: MIN_BLOCKS, base: nonEmpty(ba), new: nonEmpty(bb) }
                : null;
      push(key, unit, a?.percentiles[k] ?? null, b?.percentiles[k] ?? null, 'blocks', untested === null ? (blockTests[i] ?? null) : null, untested, pairTests?.[i]?.relative ?? null);
    });
  }
  const ta = measuredSlices(base.timeslices, base.throughput.windowS);
  const tb = measuredSlices(next.timeslices, next.throughput.windowS);
  const perSecond = (key: string, pick: (s: Timeslice) => number, a: number, b: number, unit: RowUnit): void => {
    if (paired !== null && coin) {
      push(key, unit, a, b, 'timeslices', null, { kind: 'coin' });
      return;
    }
    const t = paired === null ? welch(meanSummary(ta.map(pick)), meanSummary(tb.map(pick))) : pairedRate(paired, key, a, b);
    push(key, unit, a, b, 'timeslices', t, t === null ? { kind: 'seconds', need: 2, base: ta.length, new: tb.length } : null);
  };
  perSecond('throughput.rps', (s) => s.finished, base.throughput.rps, next.throughput.rps, 'per_s');
  perSecond('throughput.ok_rps', (s) => s.ok, base.throughput.okRps, next.throughput.okRps, 'per_s');
  perSecond('throughput.output_tokens_per_s', (s) => s.outputTokens, base.throughput.outputTokensPerS, next.throughput.outputTokensPerS, 'tokens_per_s');
  const ratio = (key: string, xa: number, na: number, xb: number, nb: number, a: number, b: number): void => {
    push(key, 'ratio', a, b, 'proportions', twoProportions(xa, na, xb, nb));
  };
  ratio('errors.rate', base.errors.total, base.counts.finished, next.errors.total, next.counts.finished, base.errors.rate, next.errors.rate);
  ratio('goodput.fraction', base.goodput.goodRequests, base.counts.finished, next.goodput.goodRequests, next.counts.finished, base.goodput.fraction, next.goodput.fraction);
  // Goodput per second: its interval is the runs' (--repeat) or none. Issue 43: it carried the
  // proportions test of the good fraction, so two servers equally good at different speeds read
  // "goodput.rps not significant (p 1.000)" beside "throughput.rps p < 0.001". The seconds of a run
  // do not count its good requests, so without repeats it is untested, pointing at the rows that are.
  const gRep = byRepeats('goodput.rps');
  rows.push(gRep === null ? row('goodput.rps', 'per_s', base.goodput.goodputRps, next.goodput.goodputRps, null, null, minEffect, { untested: { kind: 'rate-of-good' } }) : row('goodput.rps', 'per_s', base.goodput.goodputRps, next.goodput.goodputRps, 'repeats', gRep.t, minEffect, { noise: 'repeats', baseMean: gRep.baseMean }));
  return rows;
}
