import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FuzzTarget } from './target.ts';

/**
 * The fuzz runs of this checkout (reports/fuzz/runs.ndjson: one record per target per
 * `npm run fuzz`), summed per target for docs/fuzzing.md's Results table.
 */

interface Run {
  target: string;
  engine: 'jazzer' | 'fast-check';
  started: string;
  ended: string;
  seconds: number;
  ranSeconds?: number;
  executions: number;
  coverage?: { edges: number; features: number } | null;
  lines?: { lines: number; branches: number } | null;
  finding: unknown;
}

export interface TargetTotals {
  target: string;
  invariants: readonly string[];
  reference: string | null;
  runs: number;
  seconds: number;
  executions: number;
  /** libFuzzer's counters at the end of the longest run, and what the kept corpus reaches of the target's sources (the last measure). */
  edges: number | null;
  features: number | null;
  lines: number | null;
  branches: number | null;
  findings: number;
  /** Inputs kept in fuzz/regressions/<target>: one per finding fixed (a finding of two targets keeps one in each). */
  kept: number;
}

export const ledgerFile = (root: string): string => join(root, 'reports/fuzz/runs.ndjson');

export function readLedger(root: string): Run[] {
  const file = ledgerFile(root);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Run);
}

/** Time a run fuzzed: its own measure, else its box when it ran out its time, else its wall time (startup and corpus work included). */
function secondsOf(r: Run): number {
  if (r.ranSeconds !== undefined) return r.ranSeconds;
  if (r.finding === null) return r.seconds;
  return Math.max(0, (Date.parse(r.ended) - Date.parse(r.started)) / 1000);
}

export function totals(runs: readonly Run[], targets: readonly FuzzTarget[], kept: (target: string) => number): TargetTotals[] {
  return targets.map((t) => {
    const mine = runs.filter((r) => r.target === t.name);
    const longest = mine.filter((r) => r.coverage != null).sort((a, b) => secondsOf(b) - secondsOf(a))[0];
    const measured = mine.filter((r) => r.lines != null).at(-1);
    return {
      target: t.name,
      invariants: t.invariants,
      reference: t.reference ?? null,
      runs: mine.length,
      seconds: mine.reduce((s, r) => s + secondsOf(r), 0),
      executions: mine.reduce((s, r) => s + r.executions, 0),
      edges: longest?.coverage?.edges ?? null,
      features: longest?.coverage?.features ?? null,
      lines: measured?.lines?.lines ?? null,
      branches: measured?.lines?.branches ?? null,
      findings: mine.filter((r) => r.finding !== null).length,
      kept: kept(t.name),
    };
  });
}

export function formatTotals(rows: readonly TargetTotals[]): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const out = [
    '| target | invariants | reference parser | runs | time run | executions | libFuzzer edges / features | corpus reaches (lines / branches) | findings fixed (inputs in fuzz/regressions) | runs stopped by a finding |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    out.push(
      `| ${r.target} | ${cell(r.invariants.join('; '))} | ${cell(r.reference ?? '–')} | ${r.runs} | ${(r.seconds / 60).toFixed(1)} min | ${n(r.executions)} | ${r.edges === null ? '–' : `${r.edges} / ${r.features}`} | ${r.lines === null ? '–' : `${r.lines.toFixed(1)}% / ${(r.branches ?? 0).toFixed(1)}%`} | ${r.kept} | ${r.findings} |`,
    );
  }
  const seconds = rows.reduce((s, r) => s + r.seconds, 0);
  out.push(`| all | | | ${rows.reduce((s, r) => s + r.runs, 0)} | ${(seconds / 3600).toFixed(2)} h | ${n(rows.reduce((s, r) => s + r.executions, 0))} | | | ${rows.reduce((s, r) => s + r.kept, 0)} | ${rows.reduce((s, r) => s + r.findings, 0)} |`);
  return out.join('\n');
}
