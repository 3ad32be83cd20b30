import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import type { CheckOutcome } from '../../src/checks/context/check-types.ts';
import { openaiPythonVenv, type OpenaiPython } from '../../test-support/openai-python-venv.ts';

// openai-python (CLIENT-029..035) run for real: in a venv made once (.cache/openai-python/), through
// iari's loopback relay, against the bundled mock. Where the venv cannot be made here (no python3,
// venv or package index), the tests that need it are skipped with the reason; the ones about a
// missing interpreter or package run everywhere python3 does.

const python = catalog.filter((c) => c.name.startsWith('client-openai-python') && !c.name.startsWith('client-openai-python-responses'));
// ALL_PROXY: httpx follows it (trust_env), iari's own requests do not (HTTP(S)_PROXY would reroute those too).
const TOKEN_ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID', 'ALL_PROXY', 'all_proxy'];
let mock: MockServer;
let py: OpenaiPython;
let dir: string;

beforeAll(async () => {
  py = openaiPythonVenv();
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'iari-py-'));
}, 600_000);
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(extra: Partial<RunSettings>, checks = python): Promise<Map<string, CheckOutcome>> {
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...extra });
  try {
    return (await runChecksInProcess(ctx, checks)).outcomes;
  } finally {
    await ctx.close();
  }
}

const verdicts = (o: Map<string, CheckOutcome>): Record<string, string> => Object.fromEntries([...o].map(([id, x]) => [id, x.verdict]));
const text = (o: CheckOutcome | undefined): string => (o === undefined ? 'absent' : o.verdict === 'skipped' ? o.reason : o.verdict === 'fail' || o.verdict === 'non-strict' ? (o.failures[0]?.message ?? '') : o.verdict);

describe('openai-python in the CLIENT area', () => {
  it('CLIENT-029..035: without an interpreter the operations are skipped naming it, never passed', async () => {
    const o = await run({ python: join(dir, 'no-such-python') });
    expect(o.size).toBe(7);
    for (const [id, x] of o) expect(`${id} ${x.verdict} ${text(x)}`).toMatch(/ skipped openai-python cannot run: no Python interpreter at .*no-such-python.*--python PATH/);
  });

  it('CLIENT-029..035: an interpreter without the openai package skips them, saying pip install openai', async (ctx) => {
    // python3 without site-packages (-S): no openai, whatever this machine has installed.
    const bare = join(dir, 'bare-python');
    writeFileSync(bare, '#!/bin/sh\nexec python3 -S "$@"\n');
    chmodSync(bare, 0o755);
    const o = await run({ python: bare });
    if (/no Python interpreter/.test(text(o.get('CLIENT-029')))) return ctx.skip('no python3 here');
    for (const [id, x] of o) expect(`${id} ${x.verdict} ${text(x)}`).toMatch(/ skipped openai-python cannot run: openai is not installed for this interpreter.*pip install openai/);
  });

  it('CLIENT-029..035: the faithful mock passes every operation, with OPENAI_* and ALL_PROXY in the environment pointing elsewhere (not followed)', async (ctx) => {
    if (py.skip !== undefined) return ctx.skip(py.skip);
    const saved = Object.fromEntries(TOKEN_ENV.map((k) => [k, process.env[k]]));
    // A dead proxy and a foreign base URL and key in the environment: a client that followed them would fail.
    for (const k of TOKEN_ENV) process.env[k] = k.startsWith('OPENAI_') ? 'http://127.0.0.1:9/v1' : 'http://127.0.0.1:9';
    try {
      const o = await run({ python: py.python });
      expect(verdicts(o)).toEqual(Object.fromEntries(python.map((c) => [c.ids[0], 'pass'])));
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });

  it('CLIENT-031, CLIENT-033: a model that runs to its bound (the server truthfully says length) makes .stream() raise LengthFinishReasonError: undecided, the model\'s doing, never a FAIL (issue 37)', async (ctx) => {
    if (py.skip !== undefined) return ctx.skip(py.skip);
    const capped = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, modelCap: 1024 });
    const c = createCheckContext({ root: capped.origin, token: capped.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, python: py.python });
    try {
      const o = (await runChecksInProcess(c, python)).outcomes;
      for (const id of ['CLIENT-031', 'CLIENT-033']) {
        expect(o.get(id)?.verdict, text(o.get(id))).toBe('skipped');
        expect(text(o.get(id))).toMatch(/^undecided: the server ended the answer with finish_reason "length" .*LengthFinishReasonError/);
      }
      expect(verdicts(o)).toMatchObject({ 'CLIENT-029': 'pass', 'CLIENT-030': 'pass', 'CLIENT-032': 'pass' });
    } finally {
      await c.close();
      await capped.close();
    }
  });

  it('CLIENT-030, CLIENT-031, CLIENT-033: an event with only id:/retry: makes openai-python raise JSONDecodeError from both stream forms, where openai-node survives', async (ctx) => {
    if (py.skip !== undefined) return ctx.skip(py.skip);
    const node = catalog.filter((c) => c.name === 'client-openai-stream');
    const o = await run({ python: py.python, fault: 'stream-meta-only-event' }, [...python, ...node]);
    expect(verdicts(o)).toEqual({ 'CLIENT-003': 'pass', 'CLIENT-029': 'pass', 'CLIENT-030': 'fail', 'CLIENT-031': 'fail', 'CLIENT-032': 'pass', 'CLIENT-033': 'fail', 'CLIENT-034': 'pass', 'CLIENT-035': 'pass' });
    for (const id of ['CLIENT-030', 'CLIENT-031', 'CLIENT-033']) expect(text(o.get(id))).toMatch(/raised JSONDecodeError: Expecting value.*\(at openai\/_streaming\.py:\d+\)/);
    // The evidence is the relay's record of the request the library sent: a curl line with the token as a variable.
    const failure = o.get('CLIENT-030');
    expect(failure?.verdict === 'fail' ? failure.failures[0]?.curl : '').toMatch(/\$IARI_TOKEN/);
    expect(JSON.stringify([...o.values()])).not.toContain(mock.tokens.default);
  });

  it('CLIENT-031, CLIENT-033: chunks of another object make .stream() get_final_completion() raise AssertionError', async (ctx) => {
    if (py.skip !== undefined) return ctx.skip(py.skip);
    const o = await run({ python: py.python, fault: 'chunk-object-wrong' });
    expect(verdicts(o)).toMatchObject({ 'CLIENT-030': 'pass', 'CLIENT-031': 'fail', 'CLIENT-033': 'fail' });
    expect(text(o.get('CLIENT-031'))).toMatch(/raised AssertionError \(at openai\/lib\/streaming\/chat\/_completions\.py:\d+\)/);
  });

  it('CLIENT-034, CLIENT-035: error bodies without error.message leave APIStatusError.body without it; a 403 for a wrong key is a deviation (PermissionDeniedError, message kept)', async (ctx) => {
    if (py.skip !== undefined) return ctx.skip(py.skip);
    const detail = await run({ python: py.python, fault: 'error-body-detail' });
    expect(verdicts(detail)).toMatchObject({ 'CLIENT-034': 'fail', 'CLIENT-035': 'fail' });
    expect(text(detail.get('CLIENT-034'))).toMatch(/raised AuthenticationError: .*APIStatusError\.body has no message/);
    const forbidden = await run({ python: py.python, fault: 'auth-401-as-403' });
    expect(verdicts(forbidden)['CLIENT-034']).toBe('non-strict');
    expect(text(forbidden.get('CLIENT-034'))).toMatch(/PermissionDeniedError/);
  });
});
