// The 1 s blocks of a run for the block bootstrap (block-bootstrap.ts): each measured second's values
// of a metric. TTFT, e2e and ITL come from load.json's timeslices (their histograms of the requests
// finishing in that second); TTFB, TPOT and per-request tokens/s from requests.ndjson, grouped by the
// second each request finished.
import type { LoadResult, MetricName, RequestRecord, Timeslice } from '../load/results/load-result.ts';
import { hdrValueCounts } from '../report/load-html.ts';
import type { ValueCount } from '../statistics.ts';

const sliceHdr: Partial<Record<MetricName, keyof Pick<Timeslice, 'ttftHdr' | 'e2eHdr' | 'itlHdr'>>> = { ttft: 'ttftHdr', e2e: 'e2eHdr', itl: 'itlHdr' };

/** Whole seconds inside the measured window (the last, partial one is left out). */
export function measuredSlices(slices: readonly Timeslice[], windowS: number): Timeslice[] {
  return slices.filter((s) => s.tS >= 0 && s.tS + 1 <= Math.max(1, Math.floor(windowS)));
}

function recordValue(m: MetricName, r: RequestRecord): number | null {
  switch (m) {
    case 'ttfb':
      return r.ttfbUs;
    case 'tpot':
      return r.tpotUs;
    case 'output_tps':
      // As the collector records it: millitokens per second of the request's whole life.
      return r.outputTokens > 0 && r.e2eUs !== null && r.e2eUs > 0 ? (r.outputTokens / (r.e2eUs / 1e6)) * 1000 : null;
    default:
      return null;
  }
}

/** The metric's values per measured second; null when the run carries none (no slice histogram, no requests.ndjson). */
export function metricBlocks(r: LoadResult, m: MetricName, records: Iterable<RequestRecord> | null): ValueCount[][] | null {
  const field = sliceHdr[m];
  const window = Math.max(1, Math.floor(r.throughput.windowS));
  if (field !== undefined) {
    return measuredSlices(r.timeslices, r.throughput.windowS).map((s) => hdrValueCounts(s[field]));
  }
  if (records === null) return null;
  const blocks: Map<number, number>[] = Array.from({ length: window }, () => new Map());
  for (const rec of records) {
    if (rec.phase !== 'measure' || rec.error !== null || rec.e2eUs === null) continue;
    const v = recordValue(m, rec);
    const second = Math.floor((rec.sentUs + rec.e2eUs) / 1e6);
    // Three significant digits, as the HDR histograms record them.
    const q = v === null ? null : Number(v.toPrecision(3));
    const block = second >= 0 && second < window ? blocks[second] : undefined;
    if (q !== null && block !== undefined) block.set(q, (block.get(q) ?? 0) + 1);
  }
  return blocks.map((b) => [...b].map(([value, count]) => ({ value, count })));
}
