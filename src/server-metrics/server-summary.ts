// The short server block of `iari load`'s terminal summary.
import type { ServerSection } from './server-section.ts';

const fmt = (x: number): string => (Number.isInteger(x) ? x.toLocaleString('en-US') : x.toFixed(2));

/**
 * `warmupRequests`: the run's warmup requests. Issue 43: "With --warmup the server window includes warmup,
 * so the summary prints two different prompt-token totals with no label": the block says its window.
 */
export function serverBlock(s: ServerSection | undefined, warmupRequests = 0): string {
  if (s === undefined) return '';
  const lines = [`server metrics (${s.url}${s.engine === null ? '' : `, ${s.engine} names`}): ${s.scrapes.ok} of ${s.scrapes.attempts} reads ok${s.scrapes.meanMs === null ? '' : `, ${s.scrapes.meanMs} ms each`}`];
  if (warmupRequests > 0) lines.push(`  window: the whole run, warmup included (${fmt(warmupRequests)} warmup request(s)): these totals count them, the summary's token lines above count the measured window only`);
  if (s.note !== null) lines.push(`  ${s.note}`);
  const g = s.gauges;
  const gauge = (label: string, v: { max: number; mean: number } | undefined, pct = false): string | null =>
    v === undefined ? null : `${label} max ${pct ? `${(v.max * 100).toFixed(1)}%` : fmt(v.max)} (mean ${pct ? `${(v.mean * 100).toFixed(1)}%` : fmt(v.mean)})`;
  const parts = [gauge('running', g.running), gauge('waiting', g.waiting), gauge('KV cache', g.kvCacheUsage, true)].filter((x): x is string => x !== null);
  if (s.counters.preemptions !== undefined) parts.push(`preemptions ${fmt(s.counters.preemptions.delta)}`);
  if (parts.length > 0) lines.push(`  ${parts.join(', ')}`);
  for (const f of s.reconciliation) {
    const mark = f.verdict === 'agree' ? 'ok  ' : f.verdict === 'disagree' ? 'FAIL' : '--  ';
    lines.push(`  ${mark} ${f.id.replace(/_/g, ' ')}: ${f.message}${f.verdict === 'no_data' ? '' : ` (${f.tolerance.why})`}`);
  }
  if (s.scrapes.failed > 0) lines.push(`  ${s.scrapes.failed} read(s) failed, e.g. at ${s.scrapes.failures[0]?.tS ?? '?'} s: ${s.scrapes.failures[0]?.why ?? '?'}`);
  if (s.parseIssueCount > 0) lines.push(`  ${s.parseIssueCount} line(s) of the text could not be read, e.g. line ${s.parseIssues[0]?.line ?? '?'}: ${s.parseIssues[0]?.why ?? '?'}`);
  return lines.join('\n');
}
