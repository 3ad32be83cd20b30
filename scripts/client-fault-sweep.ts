// Runs the CLIENT checks (real client libraries) against the bundled mock under every fault and
// legal mode, and prints which CLIENT requirements each one changes (`--markdown`: the table in docs/clients.md). This is how the client
// impact table (mock-server/core/client-impact.ts) was derived and how to re-derive it after a
// client library or a fault changes: `npx tsx scripts/client-fault-sweep.ts [--json] [--ids=CLIENT-RESP] [NAME...]`
// (--ids: only the operations whose requirement IDs start with it; NAME: only those faults, or those starting `prefix*`).
// openai-python's operations run in the interpreter IARI_PYTHON names (else python3; skipped without openai).
// The fault matrix (suites/meta/fault-matrix.test.ts) then asserts the table.
import { startMockServer, faults, type MockServer } from '../mock-server/index.ts';
import { catalog } from '../src/checks/runner/catalog.ts';
import { createCheckContext, type RunSettings } from '../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../src/checks/runner/run-catalog.ts';
import type { CheckOutcome } from '../src/checks/context/check-types.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const markdown = args.includes('--markdown');
const names = args.filter((a) => !a.startsWith('--'));
const idPrefix = args.find((a) => a.startsWith('--ids='))?.slice('--ids='.length);
const checks = catalog.filter((c) => c.area === 'clients' && (idPrefix === undefined || c.ids.some((id) => id.startsWith(idPrefix))));
const wanted = (name: string): boolean => names.length === 0 || names.some((n) => (n.endsWith('*') ? name.startsWith(n.slice(0, -1)) : name === n));

function settingsOf(m: MockServer, fault?: string): RunSettings {
  const capped = m.tokens.byAccount['acct_capped'];
  const python = process.env['IARI_PYTHON'];
  return { root: m.origin, token: m.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(python === undefined ? {} : { python }), ...(capped === undefined ? {} : { limitTokens: { capped } }), ...(fault === undefined ? {} : { fault }) };
}

async function outcomes(m: MockServer, fault?: string): Promise<Map<string, CheckOutcome>> {
  return (await runChecksInProcess(createCheckContext(settingsOf(m, fault)), checks)).outcomes;
}

const shared = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
const baseline = await outcomes(shared);
const rows: { fault: string; kind: string; changed: Record<string, string> }[] = [];
for (const f of faults) {
  if (!wanted(f.name)) continue;
  const fresh = f.breaks.some((id) => id.startsWith('RCPT-') || id.startsWith('LIMIT-'));
  const m = fresh ? await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 }) : shared;
  try {
    const got = await outcomes(m, f.name);
    const changed: Record<string, string> = {};
    for (const [id, o] of got) {
      if (o.verdict === baseline.get(id)?.verdict) continue;
      changed[id] = o.verdict === 'fail' || o.verdict === 'non-strict' ? `${o.verdict}: ${o.failures[0]?.message ?? ''}` : o.verdict === 'skipped' ? `skipped: ${o.reason}` : o.verdict;
    }
    rows.push({ fault: f.name, kind: f.kind, changed });
    if (!json && !markdown) process.stdout.write(`${f.kind === 'legal' ? 'legal' : 'fault'} ${f.name}: ${Object.keys(changed).length === 0 ? '-' : Object.entries(changed).map(([id, v]) => `\n    ${id} ${v.slice(0, 220)}`).join('')}\n`);
  } finally {
    if (fresh) await m.close();
  }
}
await shared.close();
if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
if (markdown) {
  const lines = ['| fault | CLIENT requirements that fail | what the client says (first) |', '|---|---|---|'];
  for (const r of rows) {
    const failed = Object.entries(r.changed).filter(([, v]) => v.startsWith('fail'));
    if (failed.length === 0) continue;
    const first = (failed[0]?.[1] ?? '').replace(/^fail: /, '').replace(/\|/g, '\\|').replace(/\s+/g, ' ');
    lines.push(`| \`${r.fault}\` | ${failed.map(([id]) => id.replace('CLIENT-', '')).join(' ')} | ${first.length > 160 ? `${first.slice(0, 160)}…` : first} |`);
  }
  const clean = rows.filter((r) => Object.values(r.changed).every((v) => !v.startsWith('fail'))).map((r) => `\`${r.fault}\``);
  lines.push('', `No CLIENT operation fails under the other ${clean.length} faults and legal modes.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
