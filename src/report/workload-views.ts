/**
 * The workload sections of the load `report.html`, each shown only when load.json carries its data:
 * conversations by turn (`turns`), prompt-cache hits (`cache`), reasoning vs answer timing
 * (`reasoning`) and tool-call validity (`toolCalls`).
 */
import type { HistogramSummary, LoadResult, ReasoningReport, TurnReport } from '../load/results/load-result.ts';
import { sectionTiles, type SectionFigures } from '../sections/section-run.ts';
import type { AnySection } from '../sections/section-contract.ts';
import { defaultLoadSections } from '../load/results/load-sections.ts';
import { tileCard } from './section-tile.ts';
import { html, section, simpleTable, statGrid, type Html } from './html-shell.ts';
import { barChart } from './svg-bars.ts';
import { lineChart } from './svg-charts.ts';

function us(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const ms = value / 1000;
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) >= 100) return `${ms.toFixed(0)} ms`;
  if (Math.abs(ms) >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

function msLabel(value: number): string {
  return `${Number(value.toPrecision(3))} ms`;
}

function num(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function pct(value: number): string {
  return `${(value * 100).toFixed(value < 0.01 && value > 0 ? 2 : 1)}%`;
}

const p50 = (h: HistogramSummary | null | undefined): number | null => (h === null || h === undefined ? null : h.percentiles.p50 / 1000);
const p95 = (h: HistogramSummary | null | undefined): number | null => (h === null || h === undefined ? null : h.percentiles.p95 / 1000);

/** Turns are whole numbers: the ticks between them stay unlabelled. */
const turnTick = (v: number): string => (Number.isInteger(v) ? String(v) : '');

function turnsSection(t: TurnReport): Html {
  const label = (row: TurnReport['byTurn'][number]) => `${row.turn}${row.pooled ? '+' : ''}`;
  const rows = t.byTurn.map((row) => [
    label(row),
    num(row.requests, 0),
    us(row.ttft?.percentiles.p50),
    us(row.ttft?.percentiles.p95),
    // Prompt tokens are kept in the histogram's `us` slot: the values are token counts.
    num(row.promptTokens?.mean, 1),
    num(row.promptTokens?.percentiles.p95, 0),
    num(row.cachedTokensMean, 1),
  ]);
  const point = (f: (row: TurnReport['byTurn'][number]) => number | null) =>
    t.byTurn.flatMap((row) => {
      const y = f(row);
      return y === null ? [] : [{ x: row.turn, y }];
    });
  const charts = html`<div class="charts" style="margin-top:14px">${lineChart({
    title: 'TTFT by turn',
    series: [
      { name: 'TTFT p50', points: point((row) => p50(row.ttft)) },
      { name: 'TTFT p95', points: point((row) => p95(row.ttft)) },
    ],
    xLabel: 'turn',
    xFormat: turnTick,
    yLabel: 'ms',
    yFormat: msLabel,
    zeroBased: true,
  })}${lineChart({
    title: 'Prompt tokens by turn',
    series: [
      { name: 'prompt tokens (mean)', points: point((row) => row.promptTokens?.mean ?? null) },
      { name: 'cached tokens (mean)', points: point((row) => row.cachedTokensMean) },
    ],
    xLabel: 'turn',
    xFormat: turnTick,
    yLabel: 'tokens',
    zeroBased: true,
  })}</div>`;
  return section(
    'Conversations by turn',
    html`<p>${t.loop === 'closed' ? 'Closed loop: a conversation holds its slot until its last turn' : 'Open loop: arrivals are conversations'}; think time ${num(t.thinkTimeMs, 0)} ms; ${num(t.conversationsStarted, 0)} conversations started, ${num(t.conversationsCompleted, 0)} completed.</p>${simpleTable(
      ['turn', 'requests', 'TTFT p50', 'TTFT p95', 'prompt tokens mean', 'prompt tokens p95', 'cached tokens mean'],
      rows,
      [1, 2, 3, 4, 5, 6],
    )}${charts}`,
    'turns',
  );
}

function reasoningSection(x: ReasoningReport, ttft: HistogramSummary | undefined): Html {
  const row = (name: string, h: HistogramSummary | null | undefined, f: (v: number | null | undefined) => string = us) => [name, f(h?.percentiles.p50), f(h?.percentiles.p95), f(h?.percentiles.p99), f(h?.mean), num(h?.count ?? 0, 0)];
  const tokens = (v: number | null | undefined) => num(v, 0);
  return section(
    'Reasoning vs answer',
    html`${statGrid([
      { label: 'requests with reasoning', value: num(x.requests, 0), hint: `${num(x.fromUsage, 0)} reported reasoning_tokens in usage; the others were counted` },
      { label: 'reasoning tokens', value: num(x.reasoningTokens, 0) },
      { label: 'TTFT / TTFO p50', value: `${us(ttft?.percentiles.p50)} / ${us(x.ttfo?.percentiles.p50)}`, tone: 'info', hint: 'time to the first token (reasoning included) and to the first answer token' },
      { label: 'ITL p50 all / answer', value: `${us(x.itlAll?.percentiles.p50)} / ${us(x.itlAnswer?.percentiles.p50)}` },
    ])}<div class="charts" style="margin-top:14px">${simpleTable(
      ['metric', 'p50', 'p95', 'p99', 'mean', 'samples'],
      [
        row('TTFT (first token, reasoning included)', ttft),
        row('TTFO (first answer token)', x.ttfo),
        row('reasoning phase (TTFO − TTFT)', x.reasoningPhase),
        row('reasoning tokens per request', x.reasoningTokensPerRequest, tokens),
        row('ITL, every token', x.itlAll),
        row('ITL, answer tokens only', x.itlAnswer),
      ],
      [1, 2, 3, 4, 5],
    )}${barChart({
      title: 'Reasoning vs answer timing (p50 and p95)',
      series: ['p50', 'p95'],
      groups: [
        { label: 'TTFT', values: [p50(ttft), p95(ttft)] },
        { label: 'TTFO', values: [p50(x.ttfo), p95(x.ttfo)] },
        { label: 'ITL all', values: [p50(x.itlAll), p95(x.itlAll)] },
        { label: 'ITL answer', values: [p50(x.itlAnswer), p95(x.itlAnswer)] },
      ],
      xLabel: 'ms',
      format: msLabel,
    })}</div>`,
    'reasoning',
  );
}

/** The sections whose data the run has, in the order turns, reasoning, the sections' cards (cache, tool calls); '' when none. */
export function workloadSections(r: LoadResult, sections: readonly AnySection[] = defaultLoadSections): Html {
  const cards = sectionTiles(sections, r as unknown as SectionFigures, 'workload').map(tileCard);
  return html`${r.turns === undefined ? '' : turnsSection(r.turns)}${r.reasoning === undefined ? '' : reasoningSection(r.reasoning, r.metrics.ttft)}${cards}`;
}
