// `iari load --repeat N`: one configuration run N times. Each metric gets its mean over the runs,
// a t-based 95% interval and the coefficient of variation; a metric whose CV exceeds
// UNSTABLE_CV is flagged unstable. `iari report compare` tests such rows by Welch's t over the runs.
import { tInterval } from '../../statistics.ts';
import { percentileKeys, type LoadResult, type MetricName } from '../results/load-result.ts';

export const UNSTABLE_CV = 0.1;
const repeatedMetrics: readonly MetricName[] = ['ttft', 'itl', 'tpot', 'e2e', 'ttfb', 'output_tps'];

export interface RepeatStat {
  mean: number;
  low: number;
  high: number;
  cv: number;
  unstable: boolean;
}

export interface RepeatSection {
  runs: number;
  runIds: string[];
  /** Key (as compare names its rows) -> one value per run. */
  values: Record<string, number[]>;
  stats: Record<string, RepeatStat>;
  /** Keys whose coefficient of variation is above UNSTABLE_CV. */
  unstable: string[];
}

export function repeatValues(results: readonly LoadResult[]): Record<string, number[]> {
  const values: Record<string, number[]> = {};
  const add = (key: string, v: number | undefined): void => {
    if (v === undefined || !Number.isFinite(v)) return;
    (values[key] ??= []).push(v);
  };
  for (const r of results) {
    for (const m of repeatedMetrics) for (const k of percentileKeys) add(`${m}.${k}`, r.metrics[m]?.percentiles[k]);
    add('throughput.rps', r.throughput.rps);
    add('throughput.ok_rps', r.throughput.okRps);
    add('throughput.output_tokens_per_s', r.throughput.outputTokensPerS);
    add('errors.rate', r.errors.rate);
    add('goodput.fraction', r.goodput.fraction);
    add('goodput.rps', r.goodput.goodputRps);
  }
  // A metric missing from some run cannot be compared run for run.
  for (const [k, v] of Object.entries(values)) if (v.length !== results.length) delete values[k];
  return values;
}

export function repeatSection(results: readonly LoadResult[]): RepeatSection {
  const values = repeatValues(results);
  const stats: Record<string, RepeatStat> = {};
  for (const [k, v] of Object.entries(values)) {
    const t = tInterval(v);
    stats[k] = { mean: t.mean, low: t.low, high: t.high, cv: t.cv, unstable: t.cv > UNSTABLE_CV };
  }
  return { runs: results.length, runIds: results.map((r) => r.meta.runId), values, stats, unstable: Object.keys(stats).filter((k) => stats[k]?.unstable === true) };
}

/** The terminal table of a repeated run: the headline rows with mean, interval and CV. */
export function repeatTable(section: RepeatSection): string {
  const shown = ['ttft.p50', 'ttft.p95', 'ttft.p99', 'itl.p50', 'itl.p95', 'itl.p99', 'e2e.p50', 'e2e.p95', 'throughput.rps', 'throughput.output_tokens_per_s', 'errors.rate', 'goodput.rps'];
  const fmt = (k: string, v: number): string => (k.startsWith('throughput') || k.startsWith('goodput') ? v.toFixed(2) : k.startsWith('errors') ? `${(v * 100).toFixed(2)}%` : `${(v / 1000).toFixed(2)}ms`);
  const rows = shown.flatMap((k) => {
    const s = section.stats[k];
    return s === undefined ? [] : [[k, fmt(k, s.mean), `${fmt(k, s.low)} … ${fmt(k, s.high)}`, `${(s.cv * 100).toFixed(1)}%`, s.unstable ? 'UNSTABLE' : '']];
  });
  const headers = ['metric', 'mean', '95% interval (t)', 'CV', ''];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  return [
    `repeated ${section.runs} runs of one configuration:`,
    line(headers),
    ...rows.map(line),
    section.unstable.length === 0 ? `no metric varies more than ${UNSTABLE_CV * 100}% (CV) between runs` : `unstable (CV > ${UNSTABLE_CV * 100}%): ${section.unstable.join(', ')}`,
  ].join('\n');
}
