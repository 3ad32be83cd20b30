// The terminal lines of a capacity search (iari load --find-capacity): the answer, its interval, and
// every run as evidence, in the order they ran.
import type { Sweep } from './load-result.ts';

const num = (x: number): string => String(Number(x.toPrecision(4)));

export function capacityLines(sweep: Sweep, fmtUs: (us: number | null) => string): string[] {
  const c = sweep.capacity;
  if (c === undefined) return [];
  const unit = sweep.kind === 'rate' ? ' req/s' : ' streams';
  const tol = `tolerance ${+(c.tolerance * 100).toFixed(2)}%`;
  const answer =
    c.capacity === null
      ? `capacity (${sweep.kind}): no level met every SLO${c.breaking === null ? '' : ` (lowest tried: ${num(c.breaking)}${unit})`}`
      : c.breaking === null
        ? `capacity (${sweep.kind}): at least ${num(c.capacity)}${unit} (every level tried met every SLO)`
        : `capacity (${sweep.kind}): ${num(c.capacity)}${unit} meets every SLO, ${num(c.breaking)} breaks one: interval [${num(c.capacity)}, ${num(c.breaking)}), ${((c.relativeWidth ?? 0) * 100).toFixed(1)}% wide (${tol})`;
  const out = [answer, `search: ${c.levels.length} levels, ${sweep.steps.length} runs, ${c.wallS} s of a ${c.budgetS} s budget; stopped: ${sweep.stopReason.replace(/_/g, ' ')}`];
  out.push(`  ${'level'.padStart(9)}  ${'phase'.padEnd(7)}  ${'req/s'.padStart(8)}  ${'out tok/s'.padStart(9)}  ${'user tok/s'.padStart(10)}  ${'TTFT p95'.padStart(9)}  ${'SLO ratio'.padStart(9)}  verdict`);
  for (const s of sweep.steps) {
    const verdict = s.slosMet && !s.saturated ? 'met' : s.saturated ? 'saturated' : 'breached';
    out.push(
      `  ${num(s.level).padStart(9)}  ${(s.phase ?? '').padEnd(7)}  ${s.achievedRps.toFixed(2).padStart(8)}  ${s.outputTokensPerS.toFixed(0).padStart(9)}  ${(s.perUserTokensPerS === null || s.perUserTokensPerS === undefined ? '-' : s.perUserTokensPerS.toFixed(1)).padStart(10)}  ${fmtUs(s.ttftP95Us).padStart(9)}  ${(s.sloRatio === null || s.sloRatio === undefined ? '-' : s.sloRatio.toFixed(2)).padStart(9)}  ${verdict}`,
    );
  }
  return out;
}
