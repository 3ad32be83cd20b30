import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import { capabilityDef, capabilityDefsOf, capabilityTable, type Capability } from '../../src/checks/registry/capabilities.ts';

import { gradeOf } from '../../src/checks/registry/registry-view.ts';
import { defaultProtocols } from '../../src/protocols/registry.ts';

// Issue 19, capability model: a server that implements the seed and nothing beyond it, whether it
// ignores the members beyond the seed's table or refuses them with 400, passes with default
// settings; --expect CAP fails exactly the requirements CAP carries.

let mock: MockServer;
let base: RunSettings;

beforeAll(async () => {
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
  const capped = mock.tokens.byAccount['acct_capped'];
  const second = mock.tokens.byAccount['acct_team'];
  base = { root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(second === undefined ? {} : { secondToken: second }), ...(capped === undefined ? {} : { limitTokens: { capped } }) };
});
afterAll(() => mock?.close());

async function run(fault: string, expectCaps: Capability[] = [], areas?: readonly string[]) {
  const ctx = createCheckContext({ ...base, fault, ...(expectCaps.length === 0 ? {} : { expect: expectCaps }) });
  const checks = areas === undefined ? catalog : catalog.filter((c) => areas.includes(c.area));
  const { outcomes } = await runChecksInProcess(ctx, checks);
  const bad = [...outcomes.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'non-strict');
  return { outcomes, bad, table: capabilityTable(ctx.capabilities.snapshot(), expectCaps) };
}

const cases: { cap: Capability; areas: string[] }[] = [
  { cap: 'json-object', areas: ['chat'] },
  { cap: 'json-schema', areas: ['chat'] },
  { cap: 'n', areas: ['chat', 'chat-stream'] },
  { cap: 'max-completion-tokens', areas: ['chat'] },
  { cap: 'stream-usage', areas: ['chat', 'chat-stream'] },
  { cap: 'tool-choice', areas: ['tools'] },
  { cap: 'parallel-tool-calls-false', areas: ['tools'] },
  { cap: 'reasoning-effort', areas: ['chat-stream'] },
  { cap: 'model-retrieve', areas: ['models'] },
  { cap: 'embeddings', areas: ['embeddings'] },
  { cap: 'responses', areas: ['responses', 'clients'] },
  { cap: 'responses-state', areas: ['responses'] },
];

for (const mode of ['legal-core-only', 'legal-refuses-extensions']) {
  describe(`capability model under ${mode}`, () => {
    it(`CHAT-034, CHAT-035, CHAT-036, CHAT-037, ERR-006: ${mode} fails nothing and is non-strict nowhere with default settings, and the table says what it lacks`, async () => {
      const { bad, outcomes, table } = await run(mode);
      expect(bad.map((o) => `${o.id} ${o.verdict}`)).toEqual([]);
      for (const id of ['CHAT-034', 'CHAT-035', 'CHAT-036', 'CHAT-037']) expect(outcomes.get(id)?.verdict).toBe('skipped');
      expect(outcomes.get('ERR-006')?.verdict).toBe('pass');
      const status = Object.fromEntries(table.map((r) => [r.name, r.status]));
      const missing = mode === 'legal-core-only' ? 'ignored' : 'refused';
      expect(status).toMatchObject({ 'json-object': missing, 'json-schema': missing, n: missing, 'max-completion-tokens': missing, 'stream-usage': missing, 'reasoning-effort': missing, 'model-retrieve': 'absent', embeddings: 'absent', responses: 'absent' });
      expect(table.filter((r) => r.outcome === 'fail')).toEqual([]);
      // Each row lists exactly what its capability gates: a requirement skipped as "capability X not
      // offered" is in X's row, and every requirement of a skipped row is skipped for that capability.
      const gatedBy = new Map<string, string>();
      for (const o of outcomes.values()) {
        const m = o.verdict === 'skipped' ? /^capability ([a-z-]+) not offered/.exec(o.reason) : null;
        if (m?.[1] !== undefined) gatedBy.set(o.id, m[1]);
      }
      const misplaced = [...gatedBy].filter(([id, cap]) => !table.find((r) => r.name === cap)?.requirementIds.includes(id)).map(([id, cap]) => `${id} skipped for ${cap}, not in its row`);
      for (const row of table.filter((r) => r.outcome === 'skipped')) {
        for (const id of row.requirementIds) if (outcomes.has(id) && gatedBy.get(id) !== row.name) misplaced.push(`${id} in row ${row.name} (${row.status}) but ${outcomes.get(id)?.verdict}${gatedBy.has(id) ? ` for ${gatedBy.get(id)}` : ''}`);
      }
      expect(misplaced).toEqual([]);
    }, 120_000);

    for (const { cap, areas } of cases) {
      it(`${capabilityDef(defaultProtocols, cap).ids.join(', ')}: --expect ${cap} under ${mode} fails exactly the requirements ${cap} carries`, async () => {
        const { bad, outcomes } = await run(mode, [cap], areas);
        // An INFO requirement is never a FAIL (D-GRADE-04, issue 31): it is skipped as not decided; the others fail.
        const info = capabilityDef(defaultProtocols, cap).ids.filter((id) => gradeOf(id) === 'INFO');
        expect(bad.map((o) => o.id).sort()).toEqual(capabilityDef(defaultProtocols, cap).ids.filter((id) => !info.includes(id)).sort());
        expect(bad.every((o) => o.verdict === 'fail')).toBe(true);
        for (const id of info) expect(outcomes.get(id)?.verdict, id).toBe('skipped');
      }, 60_000);
    }
  });
}

describe('tool_choice ignored is not offered, and not enforced', () => {
  it('TOOLS-027, TOOLS-018, TOOLS-019, TOOLS-023: a server that silently ignores tool_choice has not claimed it (018/019/023 skipped by default, failing under --expect tool-choice) and fails TOOLS-027', async () => {
    const plain = await run('tool-choice-ignored', [], ['tools']);
    expect(plain.table.find((r) => r.name === 'tool-choice')?.status).toBe('ignored');
    expect(plain.bad.map((o) => `${o.id} ${o.verdict}`)).toEqual(['TOOLS-027 fail']);
    for (const id of ['TOOLS-018', 'TOOLS-019', 'TOOLS-023']) expect(plain.outcomes.get(id)?.verdict).toBe('skipped');
    const expected = await run('tool-choice-ignored', ['tool-choice'], ['tools']);
    expect(expected.bad.map((o) => `${o.id} ${o.verdict}`).sort()).toEqual(['TOOLS-018 fail', 'TOOLS-019 fail', 'TOOLS-023 fail', 'TOOLS-027 fail']);
  }, 60_000);

  it('TOOLS-027: legal-core-only refuses tool_choice (the row says refused) and TOOLS-027 is skipped, not passed and not failed', async () => {
    const { table, outcomes, bad } = await run('legal-core-only', [], ['tools']);
    expect(table.find((r) => r.name === 'tool-choice')?.status).toBe('refused');
    expect(outcomes.get('TOOLS-027')?.verdict).toBe('skipped');
    expect(bad).toEqual([]);
  }, 60_000);

  it('TOOLS-023, TOOLS-027: a server that honours tool_choice but answers "required" with text is judged and fails both', async () => {
    const { table, bad } = await run('tool-choice-required-ignored', [], ['tools']);
    expect(table.find((r) => r.name === 'tool-choice')?.status).toBe('broken');
    expect(bad.map((o) => o.id).sort()).toEqual(['TOOLS-023', 'TOOLS-027']);
  }, 60_000);
});

describe('reasoning_effort ignored is not offered', () => {
  it('CHAT-039: a server that accepts reasoning_effort and ignores it has not claimed it: skipped by default, failing under --expect reasoning-effort; one that inverts it fails', async () => {
    const plain = await run('reasoning-effort-ignored', [], ['chat-stream']);
    expect(plain.table.find((r) => r.name === 'reasoning-effort')?.status).toBe('ignored');
    expect(plain.outcomes.get('CHAT-039')?.verdict).toBe('skipped');
    expect(plain.bad).toEqual([]);
    const expected = await run('reasoning-effort-ignored', ['reasoning-effort'], ['chat-stream']);
    expect(expected.bad.map((o) => `${o.id} ${o.verdict}`)).toEqual(['CHAT-039 fail']);
    const inverted = await run('reasoning-effort-inverted', [], ['chat-stream']);
    expect(inverted.table.find((r) => r.name === 'reasoning-effort')?.status).toBe('broken');
    expect(inverted.bad.map((o) => o.id)).toEqual(['CHAT-039']);
  }, 60_000);
});

describe('no reasoning model', () => {
  const ids = ['CHAT-038', 'CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'];
  it('CHAT-STREAM-048, CLIENT-026, CLIENT-027, CLIENT-028: a server without a reasoning model skips the reasoning requirements by default, and --expect reasoning fails each of them, the client operations included', async () => {
    const plain = await run('reasoning-absent', [], ['chat-stream', 'clients']);
    expect(plain.table.find((r) => r.name === 'reasoning')?.status).toBe('absent');
    expect(plain.bad.map((o) => o.id)).toEqual([]);
    for (const id of ids) expect(plain.outcomes.get(id)?.verdict, id).toBe('skipped');
    const expected = await run('reasoning-absent', ['reasoning'], ['chat-stream', 'clients']);
    expect(expected.bad.map((o) => `${o.id} ${o.verdict}`).sort()).toEqual(ids.map((id) => `${id} fail`).sort());
  }, 120_000);
});

describe('capability model on the faithful mock', () => {
  it('CHAT-034, CHAT-035: every capability the mock offers is honoured and --expect of all of them fails nothing', async () => {
    const honoured: Capability[] = ['json-object', 'json-schema', 'stream-usage', 'tool-choice', 'parallel-tool-calls', 'parallel-tool-calls-false', 'n', 'max-completion-tokens', 'model-retrieve', 'stop', 'reasoning', 'reasoning-effort', 'embeddings'];
    const { bad, table } = await run('legal-crlf', honoured, ['chat', 'chat-stream', 'tools', 'models', 'embeddings']);
    expect(bad).toEqual([]);
    for (const cap of honoured) expect(table.find((r) => r.name === cap)?.status).toBe('honoured');
  }, 120_000);
});
