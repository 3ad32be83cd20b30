// compare.json: what `iari report compare` decided, and its terminal table.
import { compareRequirementIds } from '../report/conformance-files.ts';
import { formatUs } from '../report/load-html.ts';
import type { CompareSide } from './compare-inputs.ts';
import { compareConformance, type ConformanceDiff } from './conformance-compare.ts';
import type { GateResult } from './gate-outcome.ts';
import { compareLoad, DEFAULT_MIN_EFFECT, NOISE_SOURCES, TESTS, type MetricRow } from './load-compare.ts';
import { loadMode, type NoiseCalibration } from './noise-calibration.ts';

export const COMPARE_SCHEMA = 'iari.compare/2' as const;

export interface CompareReport {
  schema: typeof COMPARE_SCHEMA;
  base: { source: string; loadRunId: string | null; conformanceRunId: string | null };
  new: { source: string; loadRunId: string | null; conformanceRunId: string | null };
  /** What each test name on a row means. */
  tests: typeof TESTS;
  /** What each noise source on a row means (a row with noise null has a within-run interval only). */
  noiseSources: typeof NOISE_SOURCES;
  /** The --noise-floors calibration used: its runs and configuration; null when none was given. */
  calibration: { runs: number; config: NoiseCalibration['config'] } | null;
  load: { minEffect: number; rows: MetricRow[]; significant: string[] } | null;
  conformance: ConformanceDiff | null;
  gates: GateResult[];
}

function sideInfo(s: CompareSide): CompareReport['base'] {
  return { source: s.source, loadRunId: s.load?.meta.runId ?? null, conformanceRunId: s.conformance?.run.id ?? null };
}

/** The comparison before gates; `notes` collect what could not be compared. */
export function buildComparison(base: CompareSide, next: CompareSide, seed = 1, minEffect = DEFAULT_MIN_EFFECT, calibration: NoiseCalibration | null = null): { report: CompareReport; notes: string[] } {
  const notes: string[] = [];
  const paired = base.pairs ?? null;
  const rows = base.load !== null && next.load !== null ? compareLoad(base.load, next.load, seed, minEffect, { base: base.records ?? null, next: next.records ?? null }, paired === null ? calibration : null, paired, base.abOrder === 'random') : null;
  if (paired !== null && calibration !== null) notes.push('an A/B run carries its own noise (the paired blocks): --noise-floors is not used');
  if (rows === null && (base.load !== null || next.load !== null)) notes.push('load.json is on one side only: load not compared');
  const conformance = base.conformance !== null && next.conformance !== null ? compareConformance(base.conformance, next.conformance, compareRequirementIds) : null;
  if (conformance === null && (base.conformance !== null || next.conformance !== null)) notes.push('conformance.json is on one side only: conformance not compared');
  if (paired === null && base.load !== null && next.load !== null && ((base.records ?? null) === null || (next.records ?? null) === null)) notes.push('requests.ndjson is missing on one side: the ttfb, tpot and output_tps percentiles are left untested (their 1 s blocks come from it)');
  if (base.load !== null && next.load !== null) {
    const ma = base.load.meta;
    const mb = next.load.meta;
    const mode = (m: typeof ma): string => (m.mode.kind === 'open' ? `rate ${m.mode.rate}/s` : `concurrency ${m.mode.concurrency}`);
    if (mode(ma) !== mode(mb)) notes.push(`the runs differ in load: base ${mode(ma)}, new ${mode(mb)}`);
    // A run written before load.json named its API sent chat completions (or embeddings, which its workload says).
    const api = (m: typeof ma): string => m.config.api ?? (m.config.workload?.embeddings === undefined ? 'chat-completions' : 'embeddings');
    if (api(ma) !== api(mb)) notes.push(`the runs went to different APIs: base ${api(ma)}, new ${api(mb)} (the rows compare the server's two endpoints)`);
    if (ma.config.maxTokens !== mb.config.maxTokens) notes.push(`the runs differ in max_tokens: base ${ma.config.maxTokens}, new ${mb.config.maxTokens}`);
    const repeated = (s: CompareSide): boolean => (s.load as { repeat?: unknown } | null)?.repeat !== undefined;
    if (repeated(base) !== repeated(next)) notes.push(`only the ${repeated(base) ? 'base' : 'new'} run was repeated (--repeat): rows are tested within each run; repeat both sides to include run-to-run noise`);
    if (calibration !== null) {
      const c = calibration.config;
      for (const [name, r] of [['base', base.load], ['new', next.load]] as const) {
        if (loadMode(r) !== c.mode || r.meta.config.maxTokens !== c.maxTokens) notes.push(`the noise calibration ran at ${c.mode}, max_tokens ${c.maxTokens}; the ${name} run at ${loadMode(r)}, max_tokens ${r.meta.config.maxTokens}: its spread may not apply`);
      }
    }
  }
  return {
    report: {
      schema: COMPARE_SCHEMA,
      base: sideInfo(base),
      new: sideInfo(next),
      tests: TESTS,
      noiseSources: NOISE_SOURCES,
      calibration: calibration === null ? null : { runs: calibration.runs, config: calibration.config },
      load: rows === null ? null : { minEffect, rows, significant: rows.filter((r) => r.significant).map((r) => r.key) },
      conformance,
      gates: [],
    },
    notes,
  };
}

export function formatValue(unit: MetricRow['unit'], v: number | null): string {
  if (v === null) return '–';
  switch (unit) {
    case 'us':
      return formatUs(v);
    case 'millitokens_per_s':
      return `${(v / 1000).toFixed(1)} tok/s`;
    case 'ratio':
      return `${(v * 100).toFixed(2)}%`;
    case 'per_s':
      return `${v.toFixed(2)}/s`;
    case 'tokens_per_s':
      return `${v.toFixed(0)} tok/s`;
  }
}

export function formatChange(r: MetricRow): string {
  if (r.change === null) return '–';
  if (r.unit === 'ratio') return `${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(2)}pp`;
  if (r.relative === null) return r.change === 0 ? '0' : `${r.change > 0 ? '+' : ''}${formatValue(r.unit, r.change)}`;
  return `${r.relative >= 0 ? '+' : ''}${(r.relative * 100).toFixed(1)}%`;
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
}

function untestedShort(r: MetricRow): string {
  const u = r.untested;
  switch (u?.kind) {
    case 'samples':
      return `no test (n ${Math.min(u.base, u.new)} < ${u.need})`;
    case 'seconds':
      return `no test (< ${u.need} s)`;
    case 'records':
      return 'no test (no requests.ndjson)';
    case 'pairs':
      return `no test (${u.usable} of ${u.need} pairs)`;
    case 'coin':
      return 'no test (random split)';
    case 'rate-of-good':
      return 'no test (see ok_rps, goodput.fraction)';
    default:
      return 'no test (one side)';
  }
}

function testLabel(r: MetricRow): string {
  if (r.test === null) return untestedShort(r);
  const how = r.noise === 'calibration' ? `${r.test}+calibration` : r.noise !== null || r.test === 'proportions' ? r.test : `${r.test}, within run`;
  return `${r.significant ? 'YES' : 'no'} (${how})`;
}

/** The rows the terminal table shows: p50/p95/p99 but of ttfb, rates, and every row a gate names. */
export function shownRows(report: CompareReport): MetricRow[] {
  const gated = new Set(report.gates.map((g) => g.key));
  return (report.load?.rows ?? []).filter((r) => gated.has(r.key) || (!/\.(p90|p99\.9)$/.test(r.key) && !r.key.startsWith('ttfb.')));
}

const OUTCOME_LABEL = { trip: 'FAIL', hold: 'ok  ', inconclusive: '??  ' } as const;

/** The terminal table: latency rows for p50/p95/p99 and gated rows (all rows are in compare.json), then rates, conformance and gates. */
export function compareTable(report: CompareReport, notes: readonly string[] = []): string {
  const lines: string[] = [`base ${report.base.source}  ->  new ${report.new.source}`];
  if (report.load !== null) {
    const shown = shownRows(report);
    const headers = ['metric', 'base', 'new', 'change', '95% interval', 'p', 'significant'];
    const body = shown.map((r) => [
      r.key,
      formatValue(r.unit, r.base),
      formatValue(r.unit, r.new),
      formatChange(r),
      r.low === null || r.high === null ? '–' : `${formatValue(r.unit, r.low)} … ${formatValue(r.unit, r.high)}`,
      r.p === null ? '–' : r.p < 0.001 ? '<0.001' : r.p.toFixed(3),
      testLabel(r),
    ]);
    const widths = headers.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
    lines.push('', pad(headers, widths), ...body.map((b) => pad(b, widths)));
    const used = new Set(report.load.rows.map((r) => r.test));
    lines.push('', `tests: ${(Object.keys(TESTS) as (keyof typeof TESTS)[]).filter((t) => used.has(t)).map((t) => `${t} = ${TESTS[t]}`).join('; ')}`);
    const noise = new Set(report.load.rows.map((r) => r.noise));
    for (const n of ['repeats', 'calibration', 'paired'] as const) if (noise.has(n)) lines.push(`noise: ${n} = ${NOISE_SOURCES[n]}`);
    if (shown.some((r) => r.test !== null && r.noise === null && r.test !== 'proportions')) lines.push('within run: that interval does not include run-to-run noise; a gate on such a row can trip but not hold (use --repeat on both sides, --noise-floors, or see docs/load.md)');
    const listed = new Set(shown.map((r) => r.key));
    const significant = report.load.significant.filter((k) => listed.has(k));
    const hidden = report.load.significant.length - significant.length;
    lines.push(`significant changes in this table (95% interval excludes 0 and, but for ratios, at least ${(report.load.minEffect * 100).toFixed(0)}% relative): ${significant.length === 0 ? 'none' : significant.join(', ')}${hidden > 0 ? `; ${hidden} more among the rows only in compare.json` : ''}`);
  }
  if (report.conformance !== null) {
    const c = report.conformance;
    lines.push('', `conformance: base ${c.summary.base.fail} fail / ${c.summary.base.total}, new ${c.summary.new.fail} fail / ${c.summary.new.total}`);
    lines.push(`  new failures: ${c.newFail.length === 0 ? 'none' : c.newFail.join(', ')}`);
    lines.push(`  fixed: ${c.fixed.length === 0 ? 'none' : c.fixed.join(', ')}`);
    lines.push(`  changed verdicts: ${c.changed.length === 0 ? 'none' : c.changed.map((x) => `${x.id} ${x.base}->${x.new}`).join(', ')}`);
    if (c.untested.length > 0) lines.push(`  tested on one side only: ${c.untested.map((x) => `${x.id} ${x.base}->${x.new}`).join(', ')}`);
  }
  for (const n of notes) lines.push(`note: ${n}`);
  if (report.gates.length > 0) {
    lines.push('');
    for (const g of report.gates) lines.push(`${OUTCOME_LABEL[g.outcome]} ${g.message}`);
  }
  return `${lines.join('\n')}\n`;
}
