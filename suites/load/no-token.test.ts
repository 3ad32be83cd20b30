import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { run } from '../../src/cli/load-command.ts';
import { isHarnessError } from '../../src/errors.ts';
import { startLoadMock } from './load-fixtures.ts';

/**
 * Issue 43: "A token is required even when the server has no auth, and it must be 8+ characters."
 * A server without auth stands in front of the mock: it takes any request, with or without an
 * Authorization header, records what arrived, and forwards it with the mock's own token.
 */
describe('iari load against a server without auth', () => {
  let mock: MockServer;
  let front: Server;
  let base = '';
  const arrived: (string | undefined)[] = [];
  const stderr: string[] = [];
  let dir = '';
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 2, itlMs: 1, completionTokens: 4 });
    const target = new URL(mock.url);
    front = createServer((req, res) => {
      arrived.push(req.headers.authorization);
      const headers = { ...req.headers, host: target.host, authorization: `Bearer ${mock.tokens.default}` };
      const out = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(front.address() as { port: number }).port}/v1`;
    dir = mkdtempSync(join(tmpdir(), 'iari-no-token-'));
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (stderr.push(String(s)), true));
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((r) => front.close(() => r()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('LOAD-AUTH: with no token named and $IARI_TOKEN unset, the run sends no Authorization header at all, says so before any traffic, and passes', async () => {
    const before = process.env['IARI_TOKEN'];
    delete process.env['IARI_TOKEN'];
    try {
      const code = await run(['--base-url', base, '--concurrency', '2', '--requests', '6', '--report', join(dir, 'r1')]);
      expect(code).toBe(0);
    } finally {
      if (before !== undefined) process.env['IARI_TOKEN'] = before;
    }
    expect(arrived.length).toBeGreaterThanOrEqual(6);
    expect(arrived.filter((a) => a !== undefined)).toEqual([]);
    expect(stderr.join('')).toMatch(/no token: none named .* requests carry no Authorization header/);
  }, 60_000);

  it('LOAD-AUTH: a token source that is named but empty is still a usage error (exit 2) before any traffic', async () => {
    const seen = arrived.length;
    delete process.env['IARI_NO_SUCH_TOKEN_VAR'];
    const code = await run(['--base-url', base, '--token-env', 'IARI_NO_SUCH_TOKEN_VAR', '--requests', '2']).catch((e: unknown) => (isHarnessError(e) ? e.exitCode : -1));
    expect(code).toBe(2);
    expect(arrived.length).toBe(seen);
  });
});
