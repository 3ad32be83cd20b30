// Two sample runs for tests and previews of `iari report compare`: a base, and the same run with
// every TTFT sample made `factor` times longer (what raising the mock's --ttft does).
import * as hdr from 'hdr-histogram-js';
import type { LoadResult } from '../src/load/results/load-result.ts';
import { summaryFromEncoded } from '../src/load/results/hdr.ts';
import { hdrValueCounts } from '../src/report/load-html.ts';

function scaled(encoded: string, factor: number): string {
  const h = hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3, autoResize: true, bitBucketSize: 32 });
  for (const { value, count } of hdrValueCounts(encoded)) h.recordValueWithCount(Math.round(value * factor), count);
  return hdr.encodeIntoCompressedBase64(h);
}

export function withSlowerTtft(r: LoadResult, factor: number): LoadResult {
  const slices = r.timeslices.map((s) => ({ ...s, ttftHdr: scaled(s.ttftHdr, factor), ttftP50Us: s.ttftP50Us === null ? null : Math.round(s.ttftP50Us * factor), ttftP99Us: s.ttftP99Us === null ? null : Math.round(s.ttftP99Us * factor) }));
  return { ...r, meta: { ...r.meta, runId: `${r.meta.runId}-slower` }, metrics: { ...r.metrics, ttft: summaryFromEncoded(scaled(r.metrics.ttft?.hdr ?? '', factor), 'us') }, timeslices: slices };
}
