/**
 * Issue 37, done when: against a server whose model always runs to a 1,024-token cap, a default
 * `iari test` ends within its stated bound (--run-timeout, 5 min by default), every requirement is
 * decided or undecided with its cause, and no row FAILs for the deadline. The server is the bundled
 * mock with `modelCap: 1024` (a model that never ends on its own; the request's bound stops it, as a
 * real server's does) at 3 ms a token, so an unbounded answer takes about 3 s, as the Python server
 * of the issue did (1,024 tokens in 2.9 s). openai-python runs too where its venv can be made.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { openaiPythonVenv } from '../../test-support/openai-python-venv.ts';
import { runIari, type ChildRun } from './run-child.ts';

/** The default --run-timeout (src/library/test-deadlines.ts), the bound the run states. */
const STATED_BOUND_S = 300;
const dir = mkdtempSync(join(tmpdir(), 'iari-model-cap-'));
let mock: MockServer;
let run: ChildRun;

interface Report {
  summary: Record<string, number>;
  results: { id: string; verdict: string; cause?: string; reason?: string; failures?: { message: string }[] }[];
}

beforeAll(async () => {
  mock = await startMockServer({ port: 0, modelCap: 1024, ttftMs: 50, itlMs: 3, jitterMs: 0 });
  const venv = openaiPythonVenv();
  run = await runIari(['test', '--base-url', mock.url, '--token-env', 'IARI_CAP_TOKEN', '--report', dir, ...(venv.python === undefined ? [] : ['--python', venv.python])], { IARI_CAP_TOKEN: mock.tokens.default }, (STATED_BOUND_S + 60) * 1000);
}, (STATED_BOUND_S + 90) * 1000);

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('issue 37: a model that talks to its 1,024-token cap does not decide the run', () => {
  it('a default iari test ends within its stated bound, every requirement decided (none undecided), no FAIL for the deadline or for the model\'s length', () => {
    expect(run.killed, run.stderr).toBe(false);
    expect(run.wallMs / 1000).toBeLessThan(STATED_BOUND_S);
    const report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as Report;
    const deadlineRows = report.results.filter((r) => (r.failures ?? []).some((f) => /deadline/.test(f.message)));
    expect(deadlineRows.map((r) => r.id)).toEqual([]);
    expect(report.results.filter((r) => r.verdict === 'undecided').map((r) => `${r.id} ${r.cause ?? ''}: ${r.reason ?? ''}`)).toEqual([]);
    // The mock is faithful: its model's length is the model's doing, never a finding.
    expect(report.results.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict').map((r) => `${r.id}: ${r.failures?.[0]?.message ?? ''}`)).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
  });
});
