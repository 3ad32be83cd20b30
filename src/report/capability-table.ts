import type { CapabilityRow } from '../checks/registry/capabilities.ts';

// The capability table of every report format (terminal, conformance.json, report.html, the GitHub
// step summary): which features beyond the seed's core the server offers, and what iari did with
// the requirements each carries.

export const CAPABILITY_HEADERS = ['capability', 'carried by', 'server', 'requirements', 'detail'] as const;

/** What the "requirements" column says for one row. */
export function capabilityOutcome(row: CapabilityRow): string {
  const ids = row.requirementIds.length === 0 ? 'none' : row.requirementIds.join(', ');
  if (row.outcome === 'fail') return `FAIL (--expect): ${ids}`;
  if (row.outcome === 'judged') return row.requirementIds.length === 0 ? 'reported only' : `judged: ${ids}`;
  return row.requirementIds.length === 0 ? 'reported only' : `skipped: ${ids}`;
}

/** The table as cells, one row per capability. */
export function capabilityCells(rows: readonly CapabilityRow[]): string[][] {
  return rows.map((r) => [`${r.name}${r.expected ? ' (expected)' : ''}`, r.member, r.status, capabilityOutcome(r), r.detail]);
}

/** Terminal lines: name, status and outcome aligned, no detail (the report files have it). */
export function capabilityLines(rows: readonly CapabilityRow[]): string[] {
  if (rows.length === 0) return [];
  const cells = rows.map((r) => [`${r.name}${r.expected ? '*' : ''}`, r.status, capabilityOutcome(r)]);
  const widths = [0, 1].map((i) => Math.max(...cells.map((c) => (c[i] ?? '').length)));
  return ['capabilities beyond the seed (* = --expect):', ...cells.map((c) => `  ${(c[0] ?? '').padEnd(widths[0] ?? 0)}  ${(c[1] ?? '').padEnd(widths[1] ?? 0)}  ${c[2] ?? ''}`)];
}
