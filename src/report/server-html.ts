// report.html's server section (iari load --server-metrics): the server's running and waiting
// requests, KV-cache usage and counted tokens/s on the same time axis as the client's TTFT p95 and
// received tokens/s, then the reconciliation findings, both numbers each (docs/server-metrics.md).
import * as hdr from 'hdr-histogram-js';
import type { LoadResult, Timeslice } from '../load/results/load-result.ts';
import { badge, html, section, simpleTable, type Html } from './html-shell.ts';
import { lineChart } from './svg-charts.ts';

/** TTFT p95 (ms) of the requests that finished in a second, from the slice's exact histogram. */
function ttftP95Ms(s: Timeslice): number | null {
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

export function serverSection(r: LoadResult): Html | '' {
  const s = r.server;
  if (s === undefined) return '';
  const head = html`<p>${s.url}${s.engine === null ? '' : html` · ${s.engine} names`} · ${String(s.scrapes.ok)} of ${String(s.scrapes.attempts)} reads ok every ${String(s.intervalMs)} ms${s.scrapes.meanMs === null ? '' : ` (${s.scrapes.meanMs} ms each)`}${s.note === null ? '' : html`<br><strong>${s.note}</strong>`}</p>`;
  if (s.status !== 'ok') return section('Server', head, 'server');
  const rows = s.perSecond;
  const xs = [...rows.map((p) => p.tS), ...r.timeslices.map((t) => t.tS)];
  const xDomain: [number, number] = [Math.min(...xs), Math.max(...xs)];
  const axis = { xLabel: 'time (s)', xDomain, breakOver: 1 } as const;
  const charts = html`<div class="charts">${lineChart({
    title: 'Client TTFT p95 of requests finishing each second',
    series: [{ name: 'client TTFT p95', points: pts(r.timeslices, (t) => t.tS, ttftP95Ms) }],
    yLabel: 'ms',
    ...axis,
  })}${lineChart({
    title: 'Server: running and waiting requests',
    series: [{ name: 'running', points: pts(rows, (p) => p.tS, (p) => p.running) }, { name: 'waiting', tone: 'bad', points: pts(rows, (p) => p.tS, (p) => p.waiting) }],
    yLabel: 'requests',
    ...axis,
  })}${
    // An engine that publishes no KV-cache usage (TGI, llama.cpp's server) gets no empty chart.
    s.gauges.kvCacheUsage === undefined
      ? ''
      : lineChart({
          title: 'Server: KV-cache usage',
          series: [{ name: 'KV-cache usage', points: pts(rows, (p) => p.tS, (p) => (p.kvCacheUsage === null ? null : p.kvCacheUsage * 100)) }],
          yLabel: '%',
          ...axis,
        })
  }${lineChart({
    title: 'Generated tokens per second: counted by the server, received by the client',
    series: [{ name: 'server counted', points: pts(rows, (p) => p.tS, (p) => p.generatedPerS) }, { name: 'client received (answers ending that second)', points: pts(r.timeslices, (t) => t.tS, (t) => t.outputTokens) }],
    yLabel: 'tokens/s',
    ...axis,
  })}</div>`;
  const findings = simpleTable(
    ['check', 'server', 'client', 'tolerance', 'verdict', 'finding'],
    s.reconciliation.map((f) => [
      f.id.replace(/_/g, ' '),
      cell(f.server, f.id === 'ttft'),
      cell(f.client, f.id === 'ttft'),
      f.tolerance.why,
      badge(f.verdict === 'no_data' ? 'no data' : f.verdict, f.verdict === 'agree' ? 'good' : f.verdict === 'disagree' ? 'bad' : 'warn'),
      f.message,
    ]),
    [1, 2],
  );
  return section('Server', html`${head}${charts}<h3>Do the server's counters agree with what it served?</h3>${findings}`, 'server');
}
