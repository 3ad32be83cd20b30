import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { percentileKeys, percentileValues, type HistogramSummary, type MetricUnit, type Percentiles } from './load-result.ts';

export type { Histogram };

/** µs resolution (lowest discernible value 1), 3 significant digits, auto-resizing. */
export function newHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3, autoResize: true, bitBucketSize: 32 });
}

/** Records a non-negative value rounded to an integer; negative values clamp to 0. */
export function record(h: Histogram, value: number, count = 1): void {
  const v = value <= 0 || !Number.isFinite(value) ? 0 : Math.round(value);
  if (count === 1) h.recordValue(v);
  else h.recordValueWithCount(v, count);
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  const h = hdr.decodeFromCompressedBase64(encoded, 32);
  h.autoResize = true;
  return h;
}

/** Exact merge: counts of equal buckets add. */
export function mergeInto(target: Histogram, source: Histogram): void {
  target.add(source);
}

export function percentilesOf(h: Histogram): Percentiles {
  const out = {} as Percentiles;
  for (const k of percentileKeys) out[k] = h.totalCount === 0 ? 0 : h.getValueAtPercentile(percentileValues[k]);
  return out;
}

export function percentileOrNull(h: Histogram, p: number): number | null {
  return h.totalCount === 0 ? null : h.getValueAtPercentile(p);
}

export function summarize(h: Histogram, unit: MetricUnit): HistogramSummary {
  const empty = h.totalCount === 0;
  return {
    unit,
    count: h.totalCount,
    min: empty ? 0 : h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : Math.min(h.minNonZeroValue, h.getValueAtPercentile(0)),
    max: empty ? 0 : h.maxValue,
    mean: empty ? 0 : round3(h.mean),
    stddev: empty ? 0 : round3(h.stdDeviation),
    percentiles: percentilesOf(h),
    hdr: encodeHistogram(h),
  };
}

export function summaryFromEncoded(encoded: string, unit: MetricUnit): HistogramSummary {
  return summarize(decodeHistogram(encoded), unit);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
