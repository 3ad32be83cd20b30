// report.html's server tile (iari load --server-metrics), as data for the result-section contract:
// the server's running and waiting requests, KV-cache usage and counted tokens/s on the same time
// axis as the client's TTFT p95 and received tokens/s, then the reconciliation findings, both
// numbers each (docs/server-metrics.md).
import * as hdr from 'hdr-histogram-js';
import type { SectionTile, SectionTimeslice, TileChart, TileCell } from '../sections/section-contract.ts';
import type { ServerSection } from './server-section.ts';

/** TTFT p95 (ms) of the requests that finished in a second, from the slice's exact histogram. */
function ttftP95Ms(s: SectionTimeslice): number | null {
  if (s.ttftHdr === '') return null;
  try {
    const h = hdr.decodeFromCompressedBase64(s.ttftHdr, 32);
    return h.totalCount === 0 ? null : h.getValueAtPercentile(95) / 1000;
  } catch {
    return null;
  }
}

const pts = <T>(rows: readonly T[], x: (r: T) => number, y: (r: T) => number | null): { x: number; y: number }[] =>
  rows.flatMap((r) => {
    const v = y(r);
    return v === null ? [] : [{ x: x(r), y: v }];
  });

/** A finding's number: TTFT means are µs, shown in ms. */
const cell = (v: number | null, us: boolean): string => (v === null ? '–' : us ? `${(v / 1000).toFixed(1)} ms` : v.toLocaleString('en-US'));

export function serverTile(s: ServerSection, timeslices: readonly SectionTimeslice[]): SectionTile {
  const caption = `${s.url}${s.engine === null ? '' : ` · ${s.engine} names`} · ${s.scrapes.ok} of ${s.scrapes.attempts} reads ok every ${s.intervalMs} ms${s.scrapes.meanMs === null ? '' : ` (${s.scrapes.meanMs} ms each)`}${s.note === null ? '' : `. ${s.note}`}`;
  const base = { id: 'server', title: 'Server', toc: 'Server', caption } as const;
  if (s.status !== 'ok') return base;
  const rows = s.perSecond;
  const xs = [...rows.map((p) => p.tS), ...timeslices.map((t) => t.tS)];
  const axis = { xLabel: 'time (s)', xDomain: [Math.min(...xs), Math.max(...xs)] as const, breakOver: 1, xIntegers: false, format: 'plain' } as const;
  const charts: TileChart[] = [
    { kind: 'lines', title: 'Client TTFT p95 of requests finishing each second', series: [{ name: 'client TTFT p95', points: pts(timeslices, (t) => t.tS, ttftP95Ms) }], yLabel: 'ms', ...axis },
    { kind: 'lines', title: 'Server: running and waiting requests', series: [{ name: 'running', points: pts(rows, (p) => p.tS, (p) => p.running) }, { name: 'waiting', tone: 'bad', points: pts(rows, (p) => p.tS, (p) => p.waiting) }], yLabel: 'requests', ...axis },
    // An engine that publishes no KV-cache usage (TGI, llama.cpp's server) gets no empty chart.
    ...(s.gauges.kvCacheUsage === undefined
      ? []
      : [{ kind: 'lines', title: 'Server: KV-cache usage', series: [{ name: 'KV-cache usage', points: pts(rows, (p) => p.tS, (p) => (p.kvCacheUsage === null ? null : p.kvCacheUsage * 100)) }], yLabel: '%', ...axis } as const]),
    {
      kind: 'lines',
      title: 'Generated tokens per second: counted by the server, received by the client',
      series: [{ name: 'server counted', points: pts(rows, (p) => p.tS, (p) => p.generatedPerS) }, { name: 'client received (answers ending that second)', points: pts(timeslices, (t) => t.tS, (t) => t.outputTokens) }],
      yLabel: 'tokens/s',
      ...axis,
    },
  ];
  const findings: TileCell[][] = s.reconciliation.map((f) => [
    f.id.replace(/_/g, ' '),
    cell(f.server, f.id === 'ttft'),
    cell(f.client, f.id === 'ttft'),
    f.tolerance.why,
    { badge: f.verdict === 'no_data' ? 'no data' : f.verdict, tone: f.verdict === 'agree' ? 'good' : f.verdict === 'disagree' ? 'bad' : 'warn' },
    f.message,
  ]);
  return { ...base, charts, table: { head: ['check', 'server', 'client', 'tolerance', 'verdict', 'finding'], rows: findings, numeric: [1, 2], after: { title: "Do the server's counters agree with what it served?" } } };
}
