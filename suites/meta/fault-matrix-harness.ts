import { afterAll, beforeAll, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer, faults, type MockServer } from '../../mock-server/index.ts';
import type { FaultDefinition } from '../../mock-server/faults.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import type { CheckDef, CheckOutcome } from '../../src/checks/context/check-types.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import { gradeOf } from '../../src/checks/registry/registry-view.ts';
import { loadRequirements } from '../../src/checks/registry/requirements-registry.ts';
import { capabilityOfId, isCapability, type Capability } from '../../src/checks/registry/capabilities.ts';
import { defaultProtocols } from '../../src/protocols/registry.ts';
import { openaiPythonClientChecks } from '../../src/checks/areas/clients-openai-python.ts';
import { openaiPythonResponsesClientChecks } from '../../src/checks/areas/clients-openai-python-responses.ts';
import { openaiPythonVenv, type OpenaiPython } from '../../test-support/openai-python-venv.ts';
import { loadAccountsFile, type AccountsFile } from '../../mock-server/core/accounts.ts';

// The fault matrix's machinery, shared by its two files (fault-matrix.test.ts and
// fault-matrix-clients.test.ts, split so the shared tier's two workers share it). Proof that each
// check can fail (DESIGN.md, Conformance model): the faithful mock passes everything; each fault
// makes exactly the IDs it breaks fail (or non-strict where graded SHOULD) and changes no other
// verdict among the checks it touches; legal modes fail nothing.
//
// Every run (the baseline and each fault) has a mock of its own, started afresh with the same seed:
// a fault's verdicts never depend on what earlier runs left on a shared mock (a retired model, a
// grown receipt chain, spent usage), so any fault run alone (`-t`) or in any order decides the same.
// Each mock's default account has already served a day's traffic today (its accounts fixture), as a
// server has after any earlier run: the usage checks read today's row, and a fault that leaves out
// zero rows (usage-rows-not-zero-filled) or refunds spend (spend-refunded) would otherwise also move
// what the day's first requests decide (USAGE-008, USAGE-012), which a server in use never shows.

const full = process.env['IARI_META_FULL'] === '1';
const profileIds = new Set(loadRequirements().filter((r) => r.source === 'profile').map((r) => r.id));

function accountsActiveToday(): AccountsFile {
  const file = loadAccountsFile(undefined);
  return { ...file, accounts: file.accounts.map((a) => (a.id === file.default ? { ...a, history: [...(a.history ?? []), { days_ago: 0, requests: 40, prompt_tokens: 4_000, completion_tokens: 8_000 }] } : a)) };
}
const accounts = accountsActiveToday();

export interface Matrix {
  /** openai-python's venv (test-support/openai-python-venv.ts): where it cannot be made, its CLIENT operations are skipped, and expected so. */
  py: OpenaiPython;
  pythonIds: ReadonlySet<string>;
}

export function setUpMatrix(): Matrix {
  const py = openaiPythonVenv();
  if (py.skip !== undefined) process.stderr.write(`fault matrix: openai-python's operations are expected skipped: ${py.skip}\n`);
  return { py, pythonIds: new Set([...openaiPythonClientChecks, ...openaiPythonResponsesClientChecks].flatMap((c) => c.ids)) };
}

/**
 * Receipt and limit faults leave state behind (a broken chain, a spent window), so they run with
 * the limits on and a fake clock that the limits checks advance instead of waiting Retry-After.
 */
export function needsFakeClock(f: FaultDefinition): boolean {
  return f.breaks.some((id) => id.startsWith('RCPT-') || id.startsWith('LIMIT-'));
}

/** The capabilities a fault makes the server ignore or refuse, declared with --expect so that they fail. */
export function expectOf(name: string | undefined): Capability[] | undefined {
  const e = faults.find((x) => x.name === name)?.expect;
  return e === undefined ? undefined : e.filter((c) => isCapability(c));
}

export function mockSettings(m: MockServer, mx: Matrix): RunSettings {
  const second = m.tokens.byAccount['acct_team'];
  // The capped account is answered 429 at once, which the CLIENT checks need (as `iari test` gives them).
  const capped = m.tokens.byAccount['acct_capped'];
  return { root: m.origin, token: m.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(mx.py.python === undefined ? {} : { python: mx.py.python }), ...(second === undefined ? {} : { secondToken: second }), ...(capped === undefined ? {} : { limitTokens: { capped } }) };
}

/** Runs checks on a mock of their own (real clock), with these settings over the mock's. */
export async function runOnOwnMock(mx: Matrix, checks: readonly CheckDef[], extra: Partial<RunSettings> = {}, grade: (id: string) => ReturnType<typeof gradeOf> = gradeOf): Promise<Map<string, CheckOutcome>> {
  const own = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, accounts });
  try {
    return (await runChecksInProcess(createCheckContext({ ...mockSettings(own, mx), ...extra }), checks, grade)).outcomes;
  } finally {
    await own.close();
  }
}

/** Runs checks on a mock of their own with the limits on and a fake clock (receipt and limit faults, and their baseline). */
export async function runWithFakeClock(mx: Matrix, checks: readonly CheckDef[], fault?: string): Promise<Map<string, CheckOutcome>> {
  let clock = Date.now();
  const fresh = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, accounts, now: () => clock });
  try {
    const byAccount = fresh.tokens.byAccount;
    const s: RunSettings = {
      ...mockSettings(fresh, mx),
      includeLimits: true,
      limitTokens: {
        ...(byAccount['acct_free'] === undefined ? {} : { requestLimited: byAccount['acct_free'] }),
        ...(byAccount['acct_team'] === undefined ? {} : { tokenLimited: byAccount['acct_team'] }),
        ...(byAccount['acct_capped'] === undefined ? {} : { capped: byAccount['acct_capped'] }),
      },
      ...(fault === undefined ? {} : { fault }),
      // The whole catalog held to 20 chat requests a minute outlasts the default 10-minute wait budget
      // since the Responses checks joined it: only the faults that break LIMIT-010 are about that budget.
      ...(faults.find((x) => x.name === fault)?.breaks.includes('LIMIT-010') === true ? {} : { maxRateLimitWaitMs: 60 * 60_000 }),
    };
    const declared = expectOf(fault);
    const ctx = createCheckContext({ ...s, ...(declared === undefined ? {} : { expect: declared }) }, { sleep: async (ms) => { clock += ms; }, now: () => clock, progress: () => {} });
    return (await runChecksInProcess(ctx, checks)).outcomes;
  } finally {
    await fresh.close();
  }
}

/**
 * A fault the mock applies on one API's routes alone changes only those routes' answers. A client
 * operation of another API never calls them: it is sent the baseline's answers and decides the
 * baseline's verdict. So such a fault runs, of the CLIENT operations, only its API's. Which API a fault
 * is applied on is read from the sources, not declared: a protocol's own faults (its mock applies
 * them, src/protocols/registry.ts), and the faults whose names only chat's wire reads (chat-faults.ts,
 * which handler.ts applies to chat's route alone, and src/protocols/chat-completions/). A fault named
 * anywhere else is applied on every route, and runs every operation.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECLARATIONS = new Set(['mock-server/core/fault-catalogue.ts', 'mock-server/core/client-impact.ts']);
const chatWireOnly = (file: string): boolean => file === 'mock-server/core/chat-faults.ts' || file.startsWith('src/protocols/chat-completions/');
function sources(): { file: string; text: string }[] {
  return ['mock-server', 'src'].flatMap((top) =>
    readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => ({ file: `${top}/${f.split(sep).join('/')}`, text: readFileSync(join(ROOT, top, f), 'utf8') })),
  );
}
const src = sources();
/** The files that read a fault's name (beyond the lists that declare it). */
export function readersOf(name: string): string[] {
  return src.filter((s) => !DECLARATIONS.has(s.file) && s.text.includes(`'${name}'`)).map((s) => s.file);
}
const protocolIds = defaultProtocols.flatMap((p) => (p.capability === undefined ? [] : [{ name: p.name, ids: new Set(p.capability.ids) }]));
const ofProtocol = new Map(defaultProtocols.flatMap((p) => (p.mock?.faults ?? []).map((f) => [f.name, p.name] as const)));
/** The API whose routes alone the fault changes, or undefined where it may change any. */
export function apiOf(f: FaultDefinition): string | undefined {
  const own = ofProtocol.get(f.name);
  if (own !== undefined) return own;
  const readers = readersOf(f.name);
  return readers.length > 0 && readers.every(chatWireOnly) ? 'chat-completions' : undefined;
}
/** Whether a CLIENT operation calls this API: its IDs are the API's capability's, or (the base API, chat) no API's. */
function callsApi(c: CheckDef, api: string): boolean {
  const own = protocolIds.find((p) => p.name === api);
  return own !== undefined ? c.ids.some((id) => own.ids.has(id)) : !c.ids.some((id) => protocolIds.some((p) => p.ids.has(id)));
}

/** The checks a fault touches: every check of each area whose IDs it breaks or exercises (all of them under IARI_META_FULL=1). */
export function checksFor(f: FaultDefinition): CheckDef[] {
  // A rate limit of the run's account is met only by the traffic of the whole run.
  if (full || (f.exercises ?? []).includes('LIMIT-010')) return [...catalog];
  const ids = new Set([...f.breaks, ...(f.exercises ?? [])]);
  const areas = new Set(catalog.filter((c) => c.ids.some((id) => ids.has(id))).map((c) => c.area));
  const api = apiOf(f);
  const reaches = (c: CheckDef): boolean => c.area !== 'clients' || api === undefined || callsApi(c, api);
  return catalog.filter((c) => (areas.has(c.area) && reaches(c)) || c.ids.some((id) => ids.has(id)));
}

export function touchesClients(f: FaultDefinition): boolean {
  return checksFor(f).some((c) => c.area === 'clients');
}

/** Whether the fault runs chat's client operations (openai-node, the AI SDK, LangChain, openai-python: most of the matrix's CPU). */
export function runsChatClients(f: FaultDefinition): boolean {
  return checksFor(f).some((c) => c.area === 'clients' && callsApi(c, 'chat-completions'));
}

export function touchesCancel(f: FaultDefinition): boolean {
  return f.breaks.some((id) => id.startsWith('CANCEL-'));
}

export function summary(o: CheckOutcome | undefined): string {
  if (o === undefined) return 'absent';
  if (o.verdict === 'fail' || o.verdict === 'non-strict') return `${o.verdict}: ${o.failures[0]?.message ?? ''}`;
  return o.verdict;
}

export interface Baselines {
  /** The whole catalog on a faithful mock of its own. */
  plain: Map<string, CheckOutcome>;
  /** The limits and receipts areas with the limits on and a fake clock. */
  fakeClock: Map<string, CheckOutcome>;
}

export async function runBaselines(mx: Matrix): Promise<Baselines> {
  return { plain: await runOnOwnMock(mx, catalog), fakeClock: await runWithFakeClock(mx, catalog.filter((c) => c.area === 'limits' || c.area === 'receipts')) };
}

export interface Row {
  fault: string;
  kind: string;
  expected: string;
  detected: boolean;
  note: string;
}

/** Runs one fault and says what is wrong with its verdicts: an ID it breaks that did not fail, or another verdict that moved. */
export async function judgeFault(mx: Matrix, base: Baselines, f: FaultDefinition): Promise<{ row: Row; problems: string[] }> {
  const fake = needsFakeClock(f);
  const declared = expectOf(f.name);
  const outcomes = fake ? await runWithFakeClock(mx, checksFor(f), f.name) : await runOnOwnMock(mx, checksFor(f), { fault: f.name, ...(declared === undefined ? {} : { expect: declared }) });
  const reference = (id: string): CheckOutcome | undefined => (fake ? (base.fakeClock.get(id) ?? base.plain.get(id)) : base.plain.get(id));
  const problems: string[] = [];
  for (const id of f.breaks) {
    const o = outcomes.get(id);
    const grade = gradeOf(id);
    // --expect makes a missing capability fail, but an INFO requirement is never a FAIL (skipped as not
    // decided; the run fails by the capability's other requirements or runFailures); a deviation clients survive is non-strict at most.
    const wanted = mx.py.skip !== undefined && mx.pythonIds.has(id) ? ['skipped'] : declared !== undefined && capabilityOfId(id) !== undefined ? [grade === 'INFO' ? 'skipped' : 'fail'] : f.deviates?.includes(id) === true ? ['non-strict'] : grade === 'MUST' ? ['fail'] : grade === 'SHOULD' ? ['fail', 'non-strict'] : ['informational'];
    if (o === undefined || !wanted.includes(o.verdict)) problems.push(`${id} expected ${wanted.join('/')}, got ${summary(o)}`);
  }
  const tolerated = new Set(f.exercises ?? []);
  for (const [id, o] of outcomes) {
    if (f.breaks.includes(id)) continue;
    const before = reference(id)?.verdict;
    if (o.verdict === before) continue;
    // A check declines to judge (skipped) when a precondition another ID judges is broken, or is kept from
    // deciding (undecided: the run's deadline, 429s after waiting; the root cause is judged by its own IDs).
    if (o.verdict === 'skipped' || o.verdict === 'undecided') continue;
    // A legal mode may turn what it exercises from pass into an informational observation.
    if (f.kind === 'legal' && tolerated.has(id) && o.verdict === 'informational' && before === 'pass') continue;
    // A foreign but legal shape (usage-shapes.ts) deviates from the profile requirements it exercises:
    // they report that at their grade (never fail); the seed-grounded checks must still pass.
    if (tolerated.has(id) && profileIds.has(id) && (o.verdict === 'informational' || o.verdict === 'non-strict')) continue;
    // A fault that turns on an optional feature (e.g. an approval) lets the check of that feature judge it.
    if (f.kind === 'fault' && tolerated.has(id) && o.verdict === 'pass' && before === 'skipped') continue;
    problems.push(`${id} changed from ${before ?? 'absent'} to ${summary(o)}`);
  }
  return { row: { fault: f.name, kind: f.kind, expected: f.breaks.join(',') || '-', detected: problems.length === 0, note: problems.join('; ') }, problems };
}

export function faultTitle(f: FaultDefinition): string {
  return `${f.kind === 'legal' ? 'legal mode' : 'fault'} ${f.name}: ${f.kind === 'legal' ? 'fails nothing' : `is detected as ${f.breaks.join(', ')} and changes nothing else`}`;
}

/** The CANCEL checks wait out their bounds (docs/cancellation.md): a held slot is watched past each one. A fault that touches the CLIENT area runs its operations. */
export function faultTimeout(f: FaultDefinition): number | undefined {
  return touchesCancel(f) ? 90_000 : touchesClients(f) ? 60_000 : undefined;
}

export function printTable(name: string, table: readonly Row[]): void {
  if (table.length === 0) return;
  const detected = table.filter((r) => r.kind === 'fault' && r.detected).length;
  const total = table.filter((r) => r.kind === 'fault').length;
  const lines = table.map((r) => `${r.detected ? 'ok  ' : 'MISS'} ${r.kind.padEnd(5)} ${r.fault.padEnd(40)} ${r.expected}${r.note === '' ? '' : `  (${r.note})`}`);
  process.stdout.write(`\n${name}: ${detected}/${total} faults detected, ${table.filter((r) => r.kind === 'legal' && r.detected).length}/${table.filter((r) => r.kind === 'legal').length} legal modes clean\n${lines.join('\n')}\n`);
}

/**
 * A matrix file's set-up: openai-python's venv and the baselines before its tests (a whole catalog
 * run on a machine shared with other jobs, and the venv made once, about 20 s, cached in
 * .cache/openai-python/ afterwards), the table of what was detected after them.
 */
export function useMatrix(name: string): { get: () => { mx: Matrix; base: Baselines }; faultTest: (f: FaultDefinition) => void } {
  let state: { mx: Matrix; base: Baselines } | undefined;
  const table: Row[] = [];
  beforeAll(async () => {
    const mx = setUpMatrix();
    state = { mx, base: await runBaselines(mx) };
  }, 600_000);
  afterAll(() => printTable(name, table));
  const get = (): { mx: Matrix; base: Baselines } => {
    if (state === undefined) throw new Error('the fault matrix was not set up');
    return state;
  };
  return {
    get,
    faultTest: (f) =>
      it(faultTitle(f), async () => {
        const { row, problems } = await judgeFault(get().mx, get().base, f);
        table.push(row);
        expect(problems).toEqual([]);
      }, faultTimeout(f)),
  };
}

