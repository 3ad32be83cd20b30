// The Pareto charts of report.html's sweep section (load-html.ts): aggregate against per-user
// tokens/s, and TTFT p95 against aggregate tokens/s, each run a point, the SLO boundary marked.
import type { LoadResult, SweepStep } from '../load/results/load-result.ts';
import { html, type Html } from './html-shell.ts';
import { paretoChart } from './pareto-chart.ts';
import { sweepChart } from './svg-charts.ts';

const r1 = (v: number): string => String(Math.round(v * 10) / 10);

function tip(s: SweepStep, unit: string): string {
  const ttft = s.ttftP95Us === null ? '-' : `${r1(s.ttftP95Us / 1000)} ms`;
  return `${unit} ${s.level}${s.phase === undefined ? '' : ` (${s.phase})`}\naggregate ${r1(s.outputTokensPerS)} tok/s\nper user ${s.perUserTokensPerS == null ? '-' : r1(s.perUserTokensPerS)} tok/s\nTTFT p95 ${ttft}\n${s.slosMet && !s.saturated ? 'meets SLOs' : 'breaks SLOs'}`;
}

export function paretoCharts(r: LoadResult): Html | '' {
  const sweep = r.sweep;
  if (sweep === null || sweep.steps.length < 2) return '';
  const unit = sweep.kind === 'rate' ? 'rate' : 'concurrency';
  const ok = (s: SweepStep): boolean => s.slosMet && !s.saturated;
  const best = sweep.best === null ? undefined : sweep.steps.find((s) => s.level === sweep.best && ok(s));
  const label = `SLO boundary: ${unit} ${sweep.best ?? ''}`;
  const pareto = paretoChart({
    title: 'Aggregate vs per-user output tokens/s (Pareto)',
    points: sweep.steps.flatMap((s) => (s.perUserTokensPerS == null ? [] : [{ x: s.perUserTokensPerS, y: s.outputTokensPerS, ok: ok(s), level: s.level, tip: tip(s, unit) }])),
    ...(best?.perUserTokensPerS == null ? {} : { boundary: { x: best.perUserTokensPerS, label } }),
  });
  const ttftSlo = r.slos.find((s) => s.metric === 'ttft' && s.unit === 'us');
  const latency = sweepChart({
    title: 'TTFT p95 by aggregate output tokens/s',
    points: sweep.steps.flatMap((s) => (s.ttftP95Us === null ? [] : [{ x: s.outputTokensPerS, y: s.ttftP95Us / 1000, ok: ok(s), tip: tip(s, unit) }])),
    xLabel: 'aggregate output tokens/s',
    yLabel: 'TTFT p95 (ms)',
    yFormat: (v) => `${r1(v)} ms`,
    ...(ttftSlo === undefined ? {} : { slo: { value: ttftSlo.threshold / 1000, label: `SLO ${ttftSlo.expr}` } }),
    ...(best === undefined ? {} : { best: { value: best.outputTokensPerS, label } }),
  });
  return html`${pareto}${latency}`;
}

/** After "Highest level meeting every SLO: N": the capacity search's interval and its evidence count. */
export function capacityNote(sweep: NonNullable<LoadResult['sweep']>): string {
  const c = sweep.capacity;
  if (c === undefined) return '';
  const interval = c.capacity !== null && c.breaking !== null ? `; ${c.breaking} broke one: interval [${c.capacity}, ${c.breaking}), ${((c.relativeWidth ?? 0) * 100).toFixed(1)}% wide, tolerance ${+(c.tolerance * 100).toFixed(2)}%` : '';
  return `${interval}; capacity search of ${c.levels.length} levels, ${sweep.steps.length} runs, ${c.wallS} s of a ${c.budgetS} s budget`;
}
