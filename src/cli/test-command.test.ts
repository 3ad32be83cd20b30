import { execFile } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './test-command.ts';
import { runCli } from '../../test-support/cli-in-process.ts';
import { isHarnessError } from '../errors.ts';
import { startMockServer } from '../../mock-server/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'iari-test-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function iari(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', ...args], { cwd: root, env: { ...process.env, ...env, GITHUB_ACTIONS: '' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
}

/** conformance.json without the parts that are timings by nature. */
function withoutTimings(text: string): unknown {
  const r = JSON.parse(text) as { run: Record<string, unknown>; results: Record<string, unknown>[]; usage: { days?: Record<string, unknown>[] } };
  delete r.run['id'];
  delete r.run['startedAt'];
  delete r.run['durationMs'];
  for (const x of r.results) delete x['durationMs'];
  // The CANCEL checks cut requests mid-answer, and the mock bills what it had sent when the close
  // reached it (CANCEL-004): the day's token totals depend on that instant. Its request counts do not.
  for (const d of r.usage.days ?? []) for (const k of ['completion_tokens', 'total_tokens', 'spend_usd']) delete d[k];
  return r;
}

describe('iari test', () => {
  it('rejects unknown requirement IDs in --only/--skip as a usage error (exit 2) before running anything', async () => {
    const error = await run(['--only', 'NOPE-001']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const skip = await run(['--skip', 'AUTH-001,AUTH-999']).catch((e: unknown) => e);
    expect(isHarnessError(skip) && skip.message).toMatch(/AUTH-999/);
  });

  it('rejects a missing token for an external server (exit 2) and never takes it as a flag value', async () => {
    const error = await run(['--base-url', 'http://127.0.0.1:9/v1', '--token-env', 'IARI_TEST_NO_SUCH_VAR']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const flag = await run(['--token', 'x']).catch((e: unknown) => e);
    expect(isHarnessError(flag) && flag.exitCode).toBe(2);
  });

  it('refuses a token too short to be scrubbed from reports (exit 2) instead of mangling them', async () => {
    process.env['IARI_TEST_SHORT_TOKEN'] = 'x';
    try {
      const error = await run(['--base-url', 'http://127.0.0.1:9/v1', '--token-env', 'IARI_TEST_SHORT_TOKEN']).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.code).toBe('IARI_CONFIG_INVALID');
      expect(isHarnessError(error) && error.exitCode).toBe(2);
    } finally {
      delete process.env['IARI_TEST_SHORT_TOKEN'];
    }
  });

  it('prints its deadlines in --help, with the whole run bounded at 5 minutes by default (moved back by 429 waits against a real server), and rejects a malformed one (exit 2)', async () => {
    const help = await runCli(['test', '--help']);
    expect(help.code).toBe(0);
    const out = help.stdout;
    expect(out).toMatch(/--request-timeout D/);
    expect(out).toMatch(/--check-timeout D/);
    expect(out).toMatch(/--run-timeout D\s+deadline of the whole run \(default 5m, moved back by the time spent\s+waiting out 429s against a real server\)/);
    for (const bad of [['--run-timeout', 'soon'], ['--request-timeout', '0'], ['--check-timeout', '-1s']]) {
      const error = await run(bad).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.exitCode, bad.join(' ')).toBe(2);
    }
  });

  it('lists --pace R/s in --help and refuses a rate it cannot read (exit 2)', async () => {
    const help = await runCli(['test', '--help']);
    expect(help.code).toBe(0);
    const out = help.stdout;
    expect(out).toMatch(/--pace R\/s\s+send at most R requests per second/);
    for (const bad of ['fast', '0/s', '5/h', '1e3/s']) {
      const error = await run(['--pace', bad]).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.exitCode, bad).toBe(2);
      expect(isHarnessError(error) && error.message, bad).toMatch(/--pace must be a rate like 5\/s/);
    }
  });

  // Codex CLI's requests are its own and differ from run to run whatever iari's seed: two runs of one
  // seed with CLIENT-RESP-011 alone were billed 9,067 and 9,069 prompt tokens (the usage this file
  // reads back), with Codex's paths already the same in both; every other check's requests are iari's.
  it('writes the same conformance.json for the same seed, apart from timings', async () => {
    const [a, b] = await Promise.all([iari(['--seed', '5', '--skip', 'CLIENT-RESP-011', '--report', join(tmp, 'a')]), iari(['--seed', '5', '--skip', 'CLIENT-RESP-011', '--report', join(tmp, 'b')])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const f of ['conformance.json', 'results.ndjson', 'junit.xml']) expect(readdirSync(join(tmp, 'a'))).toContain(f);
    expect(withoutTimings(readFileSync(join(tmp, 'a', 'conformance.json'), 'utf8'))).toEqual(withoutTimings(readFileSync(join(tmp, 'b', 'conformance.json'), 'utf8')));
  }, 150_000);

  it('rejects a --max-rate-limit-wait that is not a duration (exit 2) and documents the flag in --help', async () => {
    const error = await run(['--max-rate-limit-wait', 'ten minutes']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const help = await runCli(['test', '--help']);
    expect(help.code).toBe(0);
    const out = help.stdout;
    expect(out).toMatch(/--max-rate-limit-wait DURATION\n\s+longest the whole run waits out 429s/);
  });

  it('LIMIT-010: a 429 during the run is waited out with a progress line on stderr, and only LIMIT requirements judge it', async () => {
    const mock = await startMockServer({ ttftMs: 0, itlMs: 0 });
    // A gateway in front of the mock refuses the second chat request once, with Retry-After: 1.
    let chats = 0;
    const gateway = createServer((req, res) => {
      if (req.url === '/v1/chat/completions' && ++chats === 2) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Rate limit reached.', param: null } }));
        return;
      }
      const target = new URL(mock.origin);
      const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v1`;
      const out = join(tmp, 'rate-limited');
      const r = await runCli(['test', '--base-url', url, '--only', 'CHAT-001,CHAT-002,CHAT-031,LIMIT-009,LIMIT-010', '--report', out], { IARI_TOKEN: mock.tokens.default });
      expect(r.code, r.stderr).toBe(0);
      // --report as given (issue 31: an absolute /tmp/x printed as ../../tmp/x/report.html).
      expect(r.stdout).toContain(`\nreport: ${join(out, 'report.html')}\n`);
      expect(r.stderr).toMatch(/^iari: 429 on POST \/v1\/chat\/completions \(Retry-After: 1\): waiting 1 s, then sending it again \(attempt 2; 1 s of the 10 min wait budget used\)$/m);
      const results = (JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as { results: { id: string; verdict: string }[] }).results;
      const verdict = (id: string): string | undefined => results.find((x) => x.id === id)?.verdict;
      expect([verdict('CHAT-001'), verdict('CHAT-002'), verdict('CHAT-031'), verdict('LIMIT-010')]).toEqual(['pass', 'pass', 'pass', 'pass']);
      // Two requests in the window, far below the 600000 per minute /v1/me reports.
      expect(verdict('LIMIT-009')).toBe('non-strict');
    } finally {
      await new Promise((r) => gateway.close(r));
      await mock.close();
    }
  }, 150_000);

  it('USAGE-009, USAGE-010: against the usage rows of the issue 10 server ({date, n_requests, tokens, cost_usd}) the report shows what iari discovered and the cross-checks pass', async () => {
    const mock = await startMockServer({ ttftMs: 0, itlMs: 0, faults: ['legal-usage-renamed'] });
    try {
      const out = join(tmp, 'renamed-usage');
      const r = await runCli(['test', '--base-url', mock.url, '--only', 'USAGE-001,USAGE-009,USAGE-010,USAGE-011,USAGE-012,USAGE-013,USAGE-014,USAGE-015,ME-024', '--report', out], { IARI_TOKEN: mock.tokens.default });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as {
        results: { id: string; verdict: string; reason?: string }[];
        usage: { days: Record<string, unknown>[] };
        discovered: { usage: { shape: { counters: Record<string, { member: string; by: string }> } } };
      };
      const verdict = (id: string): string | undefined => report.results.find((x) => x.id === id)?.verdict;
      expect(['USAGE-001', 'USAGE-010', 'USAGE-011', 'USAGE-012', 'USAGE-013', 'USAGE-014', 'USAGE-015', 'ME-024'].map(verdict)).toEqual(Array(8).fill('pass'));
      expect(verdict('USAGE-009')).toBe('skipped');
      expect(report.results.find((x) => x.id === 'USAGE-009')?.reason).toMatch(/no prompt \/ completion \/ total split/);
      const counters = report.discovered.usage.shape.counters;
      expect(Object.fromEntries(Object.entries(counters).map(([k, c]) => [k, `${c.member} (${c.by})`]))).toEqual({
        requests: 'n_requests (name+delta)',
        total_tokens: 'tokens (name+delta)',
        spend_usd: 'cost_usd (name+delta)',
      });
      // The heatmap's days carry the discovered counters, and no counter the rows do not have.
      expect(report.usage.days).toHaveLength(90);
      expect(Object.keys(report.usage.days.at(-1) ?? {})).toEqual(['date', 'requests', 'total_tokens', 'spend_usd']);
      const page = readFileSync(join(out, 'report.html'), 'utf8');
      expect(page.includes('What iari discovered')).toBe(true);
      expect(page.includes('<tr><td>requests</td><td>n_requests</td><td>name+delta</td><td>1</td>')).toBe(true);
    } finally {
      await mock.close();
    }
  }, 150_000);

  it('grades profile choices INFO by default and SHOULD under --profile strict, says which profile judged the run, and refuses another profile (D-GRADE-04)', async () => {
    const bad = await run(['--profile', 'lax']).catch((e: unknown) => e);
    expect(isHarnessError(bad) && bad.exitCode).toBe(2);
    // auth-401-wrong-type: the 401 says authentication_error (llama.cpp's type), not OpenAI's invalid_request_error (AUTH-009, a profile choice).
    const mock = await startMockServer({ faults: ['auth-401-wrong-type'], ttftMs: 0, itlMs: 0 });
    try {
      const args = ['--base-url', mock.url, '--only', 'AUTH-008,AUTH-009,AUTH-010,AUTH-011', '--json'];
      const env = { IARI_TOKEN: mock.tokens.default };
      const [plain, strict] = await Promise.all([iari([...args, '--report', join(tmp, 'profile-default')], env), iari([...args, '--profile', 'strict', '--report', join(tmp, 'profile-strict')], env)]);
      type Report = { run: { profile: string }; results: { id: string; grade: string; verdict: string }[] };
      const byId = (r: { stdout: string }): { profile: string; auth9: { grade: string; verdict: string } | undefined } => {
        const report = JSON.parse(r.stdout) as Report;
        return { profile: report.run.profile, auth9: report.results.find((x) => x.id === 'AUTH-009') };
      };
      expect(plain.code, plain.stderr).toBe(0);
      expect(strict.code, strict.stderr).toBe(0);
      expect(byId(plain)).toEqual({ profile: 'default', auth9: expect.objectContaining({ grade: 'INFO', verdict: 'informational' }) });
      expect(byId(strict)).toEqual({ profile: 'strict', auth9: expect.objectContaining({ grade: 'SHOULD', verdict: 'non-strict' }) });
      expect(readFileSync(join(tmp, 'profile-strict', 'report.html'), 'utf8')).toContain('strict: profile choices graded SHOULD');
    } finally {
      await mock.close();
    }
  }, 150_000);

  it('keeps a canary token out of every report file and output line, failures and curl lines included (exit 1)', async () => {
    const canary = 'sk-iari-canary-7f3e9d21c4b84a6e';
    const mock = await startMockServer({ defaultToken: canary, faults: ['error-code-integer', 'usage-not-incremented', 'stream-no-done'], ttftMs: 0, itlMs: 0 });
    try {
      const out = join(tmp, 'canary');
      const r = await iari(['--base-url', mock.url, '--report', out], { IARI_TOKEN: canary });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/FAIL/);
      expect(`${r.stdout}\n${r.stderr}`.includes(canary)).toBe(false);
      const files = filesUnder(out);
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const f of files) expect(readFileSync(f, 'utf8').includes(canary), f).toBe(false);
      const report = readFileSync(join(out, 'conformance.json'), 'utf8');
      expect(report).toContain('$IARI_TOKEN');
    } finally {
      await mock.close();
    }
  }, 150_000);
});

describe('iari test --scope openai (issue 43)', () => {
  it('judges the bundled mock without the interface\'s extras, says on the summary that the run is not a verdict on the interface, and records the scope in conformance.json', async () => {
    const dir = join(tmp, 'scope-openai');
    const r = await runCli(['test', '--scope', 'openai', '--only', 'AUTH,ME,CHAT-001', '--report', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/scope openai: \d+ requirements of the interface's extras .* not judged; this run is not a verdict on the interface/);
    const report = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as { run: { scope?: string }; results: { id: string; verdict: string; reason?: string }[] };
    expect(report.run.scope).toBe('openai');
    const byId = new Map(report.results.map((x) => [x.id, x]));
    expect(byId.get('ME-001')).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/scope openai/) });
    expect(byId.get('AUTH-001')).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/needs GET \/v1\/me/) });
    expect(byId.get('AUTH-003')?.verdict).toBe('pass');
    expect(byId.get('CHAT-001')?.verdict).toBe('pass');
  }, 120_000);
});
