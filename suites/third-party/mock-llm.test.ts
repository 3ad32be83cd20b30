import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningAddresses, MOCK_LLM_VERSION, startMockLlm, type MockLlm } from './mock-llm-server.ts';
import { mockLlmDeviations } from './mock-llm-deviations.ts';

// A third-party server in CI: `iari test --base-url` against @dwmkerr/mock-llm, which implements
// part of the chat-completions format and none of the account endpoints. iari must exit 1 with
// exactly the deviations mock-llm really has (mock-llm-deviations.ts, each with the source line
// that shows it), without crashing and without a stack trace.

const root = fileURLToPath(new URL('../../', import.meta.url));
// With no /v1/me to read limits from, iari would pace itself at 10 requests per second
// (src/checks/rate-limits/pace.ts; src/library/pace-default.test.ts proves that default): about
// 20 s of waiting. mock-llm on loopback has no rate limit, so the run asks for --pace 100/s.
const PACE = '100/s';
const RUN_TIMEOUT_MS = 5 * 60_000;
let server: MockLlm;
let reportDir: string;
let run: { code: number | null; stdout: string; stderr: string } | undefined;

interface Result {
  id: string;
  verdict: string;
  failures?: { message: string }[];
}

function iariTest(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/entry.ts', 'test', ...args],
      // No GitHub Actions outputs from the child: they would land in the CI job's own summary.
      { cwd: root, env: { ...process.env, IARI_TOKEN: 'iari-third-party-token-0123456789', GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' }, timeout: RUN_TIMEOUT_MS, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  server = await startMockLlm();
  reportDir = mkdtempSync(join(tmpdir(), 'iari-mock-llm-report-'));
});

afterAll(async () => {
  await server?.close();
  if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
});

describe(`@dwmkerr/mock-llm ${MOCK_LLM_VERSION} (a third-party server)`, () => {
  it('listens on loopback only, as HOST=127.0.0.1 asks, never on 0.0.0.0', async () => {
    const bound = listeningAddresses(server.port);
    if (bound !== undefined) expect(bound).toEqual(['127.0.0.1']);
    // This machine's other addresses must refuse the port.
    const others = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal && a.family === 'IPv4').map((a) => a.address);
    for (const address of others.slice(0, 2)) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect(server.port, address);
        socket.setTimeout(2_000, () => (socket.destroy(), resolve('timeout')));
        socket.once('connect', () => (socket.destroy(), resolve('connected')));
        socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(outcome, `${address}:${server.port}`).not.toBe('connected');
    }
    expect(bound !== undefined || others.length > 0).toBe(true);
  });

  it(
    'iari test exits 1 with exactly the deviations mock-llm really has, and no crash or stack trace',
    async () => {
      run = await iariTest(['--base-url', server.url, '--pace', PACE, '--json', '--report', reportDir]);
      const { code, stdout, stderr } = run;
      // A stack trace is a line "    at fn (file:line:col)"; iari reports errors as one line each.
      expect(`${stderr}\n${stdout}`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      expect(stderr).not.toMatch(/TypeError|ReferenceError|Unhandled|IARI_INTERNAL/);
      expect(code, stderr).toBe(1);
      const report = JSON.parse(stdout) as { results: Result[] };
      const deviating = Object.fromEntries(report.results.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict').map((r) => [r.id, r.verdict]));
      const expected = Object.fromEntries(Object.entries(mockLlmDeviations).map(([id, d]) => [id, d.verdict]));
      const detail = report.results
        .filter((r) => (r.verdict === 'fail' || r.verdict === 'non-strict') !== r.id in expected || (r.id in expected && expected[r.id] !== r.verdict))
        .map((r) => `${r.id} ${r.verdict}: ${r.failures?.[0]?.message ?? ''}`);
      expect(deviating, detail.join('\n')).toEqual(expected);
    },
    RUN_TIMEOUT_MS + 30_000,
  );

  it('the clients that mock-llm does serve pass: models, completions and streams of openai-node, the AI SDK and LangChain', () => {
    expect(run, 'the iari test run above did not complete').toBeDefined();
    const report = JSON.parse(run!.stdout) as { results: Result[] };
    const verdict = new Map(report.results.map((r) => [r.id, r.verdict]));
    for (const id of ['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-010', 'CLIENT-011', 'CLIENT-018', 'CLIENT-019']) expect(verdict.get(id), id).toBe('pass');
  });
});
