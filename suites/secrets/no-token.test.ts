import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { runCli } from '../../test-support/cli-in-process.ts';

/**
 * Issue 43: "A token is required even when the server has no auth, and it must be 8+ characters."
 * A server without auth stands in front of the mock: it takes any request, with or without an
 * Authorization header, records what arrived, and forwards it with the mock's own token. `iari
 * test` with no token named and $IARI_TOKEN unset must send none, from any check or client library,
 * say so before any traffic, and skip what needs a token with the reason (never PASS, never FAIL);
 * the run is undecided (exit 4) unless --no-token says the server has no auth (exit 0).
 */
describe('iari test against a server without auth', () => {
  let mock: MockServer;
  let front: Server;
  let base = '';
  const arrived: { path: string; authorization: string | undefined }[] = [];
  let dir = '';
  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
    const target = new URL(mock.url);
    front = createServer((req, res) => {
      arrived.push({ path: `${req.method ?? ''} ${req.url ?? ''}`, authorization: req.headers.authorization });
      const headers = { ...req.headers, host: target.host, authorization: `Bearer ${mock.tokens.default}` };
      const out = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      // A cut stream (the cancellation checks) is cut at the mock too.
      res.on('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      req.pipe(out);
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(front.address() as { port: number }).port}/v1`;
    dir = mkdtempSync(join(tmpdir(), 'iari-test-no-token-'));
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise<void>((r) => front.close(() => r()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('AUTH-001: with no token named and $IARI_TOKEN unset, no request of the run carries Authorization, the first line before any traffic says so, what needs a token is skipped with the reason, and the run exits 4 (undecided), never 0', async () => {
    // The client libraries (openai-node, the AI SDK, LangChain) and the checks' own hand-built requests (cancellation, keep-alive) run too.
    const run = await runCli(['test', '--base-url', base, '--pace', '200/s', '--json', '--report', join(dir, 'r1')], { IARI_TOKEN: '' });
    expect(arrived.length, run.stderr.slice(0, 2000)).toBeGreaterThan(100);
    const carried = arrived.filter((a) => a.authorization !== undefined);
    expect(carried.map((a) => `${a.path}: ${a.authorization ?? ''}`).slice(0, 10)).toEqual([]);
    // A CI secret that is missing (a forked pull request's workflow) must not make a green build with authentication never checked.
    expect(run.code, run.stderr.slice(0, 2000)).toBe(4);
    expect(run.stderr.split('\n')[0]).toMatch(/^iari: no token: AUTH, ME, USAGE, RCPT.* not tested.*; pass --no-token to accept this .*none named .* requests carry no Authorization header/);
    expect(run.stderr.indexOf('no token:')).toBeLessThan(run.stderr.indexOf('pacing'));
    const report = JSON.parse(run.stdout) as { passed: boolean; run: { noToken?: string }; results: { id: string; verdict: string; reason?: string }[] };
    expect(report.run.noToken).toBe('implicit');
    expect(report.passed).toBe(false);
    const needing = report.results.filter((r) => /^(AUTH|ME|USAGE|RCPT-[A-Z]+)-\d+$/.test(r.id) && r.id !== 'AUTH-004');
    expect(needing.length).toBeGreaterThan(50);
    for (const r of needing) {
      expect(r.verdict, r.id).toBe('skipped');
      expect(r.reason, r.id).toMatch(/^not tested: the run sends no token/);
    }
    // The rest is judged: the chat core passes against the faithful mock, nothing fails for the missing token.
    expect(report.results.find((r) => r.id === 'CHAT-001')?.verdict).toBe('pass');
    expect(report.results.filter((r) => r.verdict === 'fail').map((r) => r.id)).toEqual([]);
    expect(readFileSync(join(dir, 'r1', 'conformance.json'), 'utf8')).toContain('not tested: the run sends no token');
  }, 300_000);

  it('AUTH-001: --no-token accepts a server without auth: the same skips, exit 0, and the first line before traffic and the summary\'s first line still say auth was not tested', async () => {
    const seen = arrived.length;
    const run = await runCli(['test', '--base-url', base, '--no-token', '--only', 'CHAT-001,AUTH-003,ME-001', '--pace', '200/s', '--report', join(dir, 'r2')], { IARI_TOKEN: '' });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    expect(arrived.slice(seen).filter((a) => a.authorization !== undefined)).toEqual([]);
    expect(run.stderr.split('\n')[0]).toMatch(/^iari: no token: auth not tested \(--no-token\)/);
    expect(run.stdout.split('\n')[0]).toMatch(/^no token: auth not tested \(--no-token\)/);
    const report = JSON.parse(readFileSync(join(dir, 'r2', 'conformance.json'), 'utf8')) as { passed: boolean; run: { noToken?: string }; results: { id: string; verdict: string; reason?: string }[] };
    expect(report.passed).toBe(true);
    expect(report.run.noToken).toBe('accepted');
    expect(report.results.find((r) => r.id === 'CHAT-001')?.verdict).toBe('pass');
    for (const id of ['AUTH-003', 'ME-001']) expect(report.results.find((r) => r.id === id)?.reason, id).toMatch(/^not tested: the run sends no token/);
  }, 120_000);

  it('AUTH-001: --no-token with a token source (--token-env, --token-file, $IARI_TOKEN set) or without a server is a usage error (exit 2) before any traffic', async () => {
    const seen = arrived.length;
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'a-token-of-some-length\n');
    const runs = [
      await runCli(['test', '--base-url', base, '--no-token', '--token-env', 'SOME_TOKEN'], { SOME_TOKEN: 'a-token-of-some-length', IARI_TOKEN: '' }),
      await runCli(['test', '--base-url', base, '--no-token', '--token-file', tokenFile], { IARI_TOKEN: '' }),
      await runCli(['test', '--base-url', base, '--no-token'], { IARI_TOKEN: 'a-token-of-some-length' }),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/--no-token says the server has no auth; (--token-env|--token-file|\$IARI_TOKEN \(set\)) names a token/);
    }
    const mockRun = await runCli(['test', '--no-token'], { IARI_TOKEN: '' });
    expect(mockRun.code, mockRun.stderr).toBe(2);
    expect(mockRun.stderr).toMatch(/--no-token applies to a server given with a base URL/);
    expect(arrived.length).toBe(seen);
  });

  it('AUTH-001: a named token source that is empty is still a usage error (exit 2) before any traffic', async () => {
    const seen = arrived.length;
    const run = await runCli(['test', '--base-url', base, '--token-env', 'IARI_NO_SUCH_TOKEN_VAR'], { IARI_NO_SUCH_TOKEN_VAR: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no token in \$IARI_NO_SUCH_TOKEN_VAR/);
    expect(arrived.length).toBe(seen);
  });
});
