import type { AbSection } from '../load/search/ab-blocks.ts';
import type { LoadResult, MetricName } from '../load/results/load-result.ts';
import { factList, html, section, simpleTable, type Html } from './html-shell.ts';

// Issue 43 item 7: "--ab shows only side A in the summary and report.html." load.json is side A with
// B in its ab section; the report shows the two sides column by column, and where to compare them.

function us(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '-';
  return v >= 1e6 ? `${(v / 1e6).toFixed(2)} s` : `${(v / 1000).toFixed(1)} ms`;
}

const LATENCIES: readonly (readonly [MetricName, string, 'p50' | 'p95' | 'p99'])[] = [
  ['ttft', 'TTFT', 'p50'],
  ['ttft', 'TTFT', 'p95'],
  ['itl', 'ITL', 'p50'],
  ['itl', 'ITL', 'p95'],
  ['e2e', 'end to end', 'p50'],
  ['e2e', 'end to end', 'p95'],
];

/** One row per figure, a column per side. */
export function abRows(a: LoadResult, b: LoadResult): string[][] {
  const rows: string[][] = [
    ['requests ok', String(a.counts.ok), String(b.counts.ok)],
    ['requests failed', String(a.counts.failed), String(b.counts.failed)],
    ['error rate', `${(a.errors.rate * 100).toFixed(2)}%`, `${(b.errors.rate * 100).toFixed(2)}%`],
    ['successful req/s', String(a.throughput.rps), String(b.throughput.rps)],
    ['output tok/s', String(a.throughput.outputTokensPerS), String(b.throughput.outputTokensPerS)],
  ];
  for (const [metric, label, p] of LATENCIES) {
    const ma = a.metrics[metric];
    const mb = b.metrics[metric];
    if (ma === undefined && mb === undefined) continue;
    rows.push([`${label} ${p}`, us(ma?.percentiles[p]), us(mb?.percentiles[p])]);
  }
  return rows;
}

/** The A/B section of report.html; empty for a run without --ab. */
export function abSection(r: LoadResult): Html | '' {
  const ab = (r as LoadResult & { ab?: AbSection }).ab;
  if (ab === undefined) return '';
  return section(
    'A/B: side B beside side A',
    html`${factList([
      ['side A', r.meta.baseUrl],
      ['side B', ab.baseUrlB],
      ['order', `${ab.order}, ${ab.pairs.length} pair(s) of ${ab.blockS} s blocks${ab.seed === undefined ? '' : ` (seed ${ab.seed})`}`],
    ])}${simpleTable(['figure', 'side A', 'side B'], abRows(r, ab.b), [1, 2])}<p class="muted">Each side's figures are its own blocks merged; whether B differs from A beyond the noise is decided pair by pair: <code>iari report compare</code> on this run's directory.</p>`,
    'ab',
  );
}
