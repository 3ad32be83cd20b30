import { undecidedCauses, type Verdict } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { noTokenHeadline } from '../checks/runner/conformance-results.ts';
import { capabilityLines } from './capability-table.ts';

const baseColumns: Verdict[] = ['pass', 'fail', 'non-strict', 'informational', 'skipped'];
const baseHeaders = ['area', 'pass', 'fail', 'non-strict', 'info', 'skipped'];

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
}

/** IDs a few to a line, indented, so a long undecided list stays readable. */
function wrapIds(ids: readonly string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < ids.length; i += 8) lines.push(`  ${ids.slice(i, i + 8).join(' ')}`);
  return lines;
}

/** "not decided: <root cause> (HDR-012, request id …)" in a blocked requirement's message (check-http.ts). */
const ROOT_CAUSE = /not decided: (.+ \(HDR-012, request id [^)]*\))/;

/** The compact terminal summary: verdict counts per area, then each failed requirement on one line. */
export function formatSummary(report: ConformanceReport): string {
  // The `known` column shows only when a baseline was applied, so runs without one read as before.
  const withKnown = report.baseline !== undefined || report.summary.known > 0;
  // Likewise `undecided` (issue 37): counted apart from failures, shown when a run left any.
  const withUndecided = (report.summary.undecided ?? 0) > 0;
  const columns: Verdict[] = [...baseColumns, ...(withKnown ? (['known'] as const) : []), ...(withUndecided ? (['undecided'] as const) : [])];
  const headers = [...baseHeaders, ...(withKnown ? ['known'] : []), ...(withUndecided ? ['undecided'] : [])];
  const areas = [...new Set(report.results.map((r) => r.area))];
  const rows = areas.map((area) => {
    const rs = report.results.filter((r) => r.area === area);
    return [area, ...columns.map((v) => String(rs.filter((r) => r.verdict === v).length))];
  });
  const s = report.summary;
  rows.push(['total', ...columns.map((v) => String(s[v] ?? 0))]);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const lines = [pad(headers, widths), ...rows.map((r) => pad(r, widths))];
  // One root cause, not a cascade (issue 22): what a never-ending answer blocked is listed under it, first.
  const causes = new Map<string, string[]>();
  const blocked = new Set<string>();
  for (const r of report.results) {
    const text = r.verdict === 'fail' ? (r.failures[0]?.message ?? '') : r.verdict === 'skipped' ? r.reason : '';
    const cause = ROOT_CAUSE.exec(text)?.[1];
    if (cause === undefined) continue;
    blocked.add(r.id);
    causes.set(cause, [...(causes.get(cause) ?? []), `  ${r.verdict === 'fail' ? 'FAIL   ' : 'blocked'} ${r.id} (${r.grade})`]);
  }
  for (const [cause, list] of causes) lines.push('', `ROOT CAUSE ${cause}: ${list.length} requirement(s) not decided`, ...list);
  const bad = report.results.filter((r) => (r.verdict === 'fail' || r.verdict === 'non-strict') && !blocked.has(r.id));
  if (bad.length > 0) {
    lines.push('');
    for (const r of bad) {
      if (r.verdict !== 'fail' && r.verdict !== 'non-strict') continue;
      const f = r.failures[0];
      lines.push(`${r.verdict === 'fail' ? 'FAIL' : 'NS  '} ${r.id} (${r.grade}) ${f?.message ?? ''}${f?.requestId === undefined ? '' : ` [${f.requestId}]`}`);
    }
  }
  const known = report.results.filter((r) => r.verdict === 'known');
  if (known.length > 0) {
    lines.push('');
    for (const r of known) {
      if (r.verdict !== 'known') continue;
      lines.push(`KNOWN ${r.id} (${r.grade}) ${r.known.reason}${r.known.expires === undefined ? '' : ` [until ${r.known.expires}]`}: ${r.failures[0]?.message ?? ''}`);
    }
  }
  // Undecided apart from the findings, one block per cause: nothing here is the server's fault, nor a pass.
  for (const cause of undecidedCauses) {
    const open = report.results.filter((r) => r.verdict === 'undecided' && r.cause === cause);
    if (open.length === 0) continue;
    const first = open[0]?.verdict === 'undecided' ? open[0].reason : '';
    lines.push('', `UNDECIDED (${cause}) ${open.length} requirement(s): ${first}`, ...wrapIds(open.map((r) => r.id)));
  }
  // A failure outside any requirement (an unmet --expect) fails the run: listed as a failure, and counted.
  const outside = report.runFailures ?? [];
  if (outside.length > 0) lines.push('', ...outside.map((f) => `FAIL ${f}`));
  const caps = capabilityLines(report.capabilities ?? []);
  if (caps.length > 0) lines.push('', ...caps);
  const c = report.coverage;
  const profile = report.run.profile === 'strict' ? 'profile strict (profile choices SHOULD)' : 'profile default (profile choices INFO)';
  lines.push('', `${s.total} requirements, ${c.exercised}/${c.registry} exercised by the suites, ${profile}, seed ${report.run.seed}, ${(report.run.durationMs / 1000).toFixed(1)} s`);
  if (report.run.scope === 'openai') {
    const out = report.results.filter((r) => r.verdict === 'skipped' && r.reason?.startsWith('not judged in scope openai') === true).length;
    lines.push(`scope openai: ${out} requirements of the interface's extras (/v1/me, /v1/me/usage, public /v1/models, Receipts) not judged; this run is not a verdict on the interface`);
  }
  if (outside.length > 0) lines.push(`FAILED: ${s.fail} requirement(s) failed and ${outside.length} failure(s) outside the requirements`);
  if (withUndecided) lines.push(`UNDECIDED: ${s.undecided} requirement(s) not decided, listed above by cause; the run is not a pass (exit ${s.fail > 0 || outside.length > 0 ? 1 : 4})`);
  // Issue 43: a run without a token says so on its first line, above the table.
  const head = noTokenHeadline(report);
  return `${[...(head === undefined ? [] : [head, '']), ...lines].join('\n')}\n`;
}
