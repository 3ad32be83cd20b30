// compare.html: the two runs side by side (overlaid TTFT/ITL CDFs, timeslices), every compared row
// with its test, conformance changes and the gates. Self-contained like report.html.
import type { LoadResult } from '../load/results/load-result.ts';
import { badge, html, renderPage, section, simpleTable, statGrid, type Html } from '../report/html-shell.ts';
import { cdfFromHdr } from '../report/load-html.ts';
import { lineChart, type Series } from '../report/svg-charts.ts';
import type { CompareReport } from './compare-report.ts';
import { formatChange, formatValue } from './compare-report.ts';

const ms = (v: number): string => `${v.toFixed(v < 10 ? 1 : 0)} ms`;

function cdfSeries(name: string, r: LoadResult, metric: 'ttft' | 'itl'): Series {
  const h = r.metrics[metric];
  const pts = h === undefined ? [] : cdfFromHdr(h);
  const step = Math.max(1, Math.ceil(pts.length / 400));
  return { name, points: pts.filter((_, i) => i % step === 0 || i === pts.length - 1).map((p) => ({ x: p.value, y: p.fraction })) };
}

function overlaidCdf(metric: 'ttft' | 'itl', base: LoadResult, next: LoadResult): Html {
  return lineChart({
    title: `${metric.toUpperCase()} CDF, base and new`,
    series: [cdfSeries('base', base, metric), cdfSeries('new', next, metric)],
    xLabel: `${metric} (ms)`,
    yLabel: 'fraction ≤ x',
    xFormat: ms,
    yFormat: (v) => `${Math.round(v * 100)}%`,
    zeroBased: true,
  });
}

function sliceChart(title: string, yLabel: string, base: LoadResult, next: LoadResult, pick: (s: LoadResult['timeslices'][number]) => number | null, yFormat: (v: number) => string): Html {
  const series = (name: string, r: LoadResult): Series => ({
    name,
    points: r.timeslices.flatMap((s) => {
      const y = pick(s);
      return y === null ? [] : [{ x: s.tS, y }];
    }),
  });
  return lineChart({ title, series: [series('base', base), series('new', next)], xLabel: 'seconds into the window', yLabel, yFormat, breakOver: 1.5 });
}

function loadSections(report: CompareReport, base: LoadResult, next: LoadResult): Html {
  const rows = report.load?.rows ?? [];
  const table = simpleTable(
    ['metric', 'base', 'new', 'change', '95% interval of the change', 'p', 'test', 'run-to-run noise', 'significant'],
    rows.map((r) => [
      r.key,
      formatValue(r.unit, r.base),
      formatValue(r.unit, r.new),
      formatChange(r),
      r.low === null || r.high === null ? '–' : `${formatValue(r.unit, r.low)} … ${formatValue(r.unit, r.high)}`,
      r.p === null ? '–' : r.p < 0.001 ? '<0.001' : r.p.toFixed(3),
      r.test ?? `none: ${r.untested?.kind ?? 'missing'}`,
      r.noise ?? (r.test === null || r.test === 'proportions' ? '–' : 'not included'),
      r.significant ? badge('yes', r.change !== null && (r.key.startsWith('throughput') || r.key.startsWith('goodput') ? r.change < 0 : r.change > 0) ? 'bad' : 'good') : badge('no', 'muted'),
    ]),
    [1, 2, 3, 5],
  );
  const testList = html`<ul>${Object.entries(report.tests).map(([k, v]) => html`<li><b>${k}</b>: ${v}</li>`)}${Object.entries(report.noiseSources).map(([k, v]) => html`<li><b>${k}</b> (noise): ${v}</li>`)}</ul>`;
  return html`${section('Metrics', html`${table}${testList}`, 'metrics')}${section(
    'Distributions',
    html`<div class="charts">${overlaidCdf('ttft', base, next)}${overlaidCdf('itl', base, next)}</div>`,
    'distributions',
  )}${section(
    'Over time',
    html`<div class="charts">${sliceChart('Finished requests per second', 'req/s', base, next, (s) => s.finished, (v) => v.toFixed(0))}${sliceChart('TTFT p99 per second', 'ms', base, next, (s) => (s.ttftP99Us === null ? null : s.ttftP99Us / 1000), ms)}${sliceChart(
      'Output tokens per second',
      'tok/s',
      base,
      next,
      (s) => s.outputTokens,
      (v) => v.toFixed(0),
    )}</div>`,
    'over-time',
  )}`;
}

function conformanceSection(report: CompareReport): Html {
  const c = report.conformance;
  if (c === null) return html``;
  return section(
    'Conformance',
    html`${statGrid([
      { label: 'new failures', value: c.newFail.length, tone: c.newFail.length > 0 ? 'bad' : 'good' },
      { label: 'fixed', value: c.fixed.length, tone: c.fixed.length > 0 ? 'good' : 'neutral' },
      { label: 'verdicts changed', value: c.changed.length, tone: 'neutral' },
    ])}${c.changed.length === 0 ? html`<p>No verdict changed.</p>` : simpleTable(['requirement', 'base', 'new'], c.changed.map((x) => [x.id, x.base, x.new]))}`,
    'conformance',
  );
}

export function renderCompareReport(report: CompareReport, base: LoadResult | null, next: LoadResult | null, notes: readonly string[]): string {
  const tripped = report.gates.filter((g) => g.outcome === 'trip');
  const open = report.gates.filter((g) => g.outcome === 'inconclusive');
  const status =
    report.gates.length === 0
      ? html`<p class="status status-neutral">No gates given (--fail-on).</p>`
      : tripped.length > 0
        ? html`<p class="status status-bad">${tripped.length} gate(s) failed: ${tripped.map((g) => g.message).join('; ')}</p>`
        : open.length > 0
          ? html`<p class="status status-neutral">${open.length} gate(s) inconclusive: neither tripped nor held (reasons below)</p>`
          : html`<p class="status status-good">Every gate holds.</p>`;
  const badgeOf = { trip: badge('FAIL', 'bad'), hold: badge('ok', 'good'), inconclusive: badge('inconclusive', 'muted') } as const;
  const gates = report.gates.length === 0 ? html`` : html`<ul>${report.gates.map((g) => html`<li>${badgeOf[g.outcome]} ${g.message}</li>`)}</ul>`;
  const noteList = notes.length === 0 ? html`` : html`<ul>${notes.map((n) => html`<li>${n}</li>`)}</ul>`;
  const body = html`${section('Verdict', html`${status}${gates}${noteList}`, 'verdict')}${base !== null && next !== null ? loadSections(report, base, next) : ''}${conformanceSection(report)}`;
  return renderPage({
    title: 'iari compare',
    subtitle: `base ${report.base.source} → new ${report.new.source}`,
    body,
    css: '.status{font-size:16px;font-weight:650;margin:0 0 12px;padding:8px 12px;border-radius:8px}.status-good{color:var(--good);background:var(--good-bg)}.status-bad{color:var(--bad);background:var(--bad-bg)}.status-neutral{color:var(--muted);background:var(--muted-bg)}',
  });
}
