import { createServer as createTlsServer } from 'node:tls';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { codeUrl } from '../package-root.ts';
import { runConformance, runLoad } from '../index.ts';

// Issue 31: a server that cannot be reached is one line and exit 2, before anything is judged or
// measured (it was 283 FAIL lines and exit 1, or 9,408 failed requests, or exit 3 with --model).
const TOKEN = 'sk-unreachable-test-0123456789';
const env = { IARI_TOKEN: TOKEN };
const tmp = mkdtempSync(join(tmpdir(), 'iari-unreachable-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('a server that cannot be reached', () => {
  let closed = '';
  let untrusted = '';
  let accepted = 0;
  const tls = createTlsServer({ cert: readFileSync(codeUrl('fixtures/tls/self-signed-cert.pem')), key: readFileSync(codeUrl('fixtures/tls/self-signed-key.pem')) }, (s) => s.end());
  tls.on('connection', () => (accepted += 1));
  tls.on('tlsClientError', () => {});
  beforeAll(async () => {
    const s = createServer();
    const port = await listen(s);
    await new Promise((r) => s.close(r));
    closed = `http://127.0.0.1:${port}/v1`;
    untrusted = `https://127.0.0.1:${await listen(tls)}/v1`;
  });
  afterAll(() => tls.close());

  it('iari test says so in one line and exits 2, judging nothing', async () => {
    const r = await runCli(['test', '--base-url', closed, '--report', join(tmp, 'closed')], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^iari: cannot reach the server at http:\/\/127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\): nothing listens there \[IARI_TARGET_UNREACHABLE\]\nhint: [^\n]+\n$/);
    expect(r.stderr).not.toContain('FAIL');
  });

  it('iari load says so and exits 2, with and without --model (no model pick, no failed requests)', async () => {
    for (const extra of [[], ['--model', 'm']]) {
      const r = await runCli(['load', '--base-url', closed, '--duration', '2s', ...extra], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('cannot reach the server at http://127.0.0.1:');
      expect(r.stderr).not.toContain('cannot pick a model');
    }
  });

  it('a certificate the run does not trust is exit 2 for iari test and for iari load with and without --model', async () => {
    for (const argv of [['test', '--base-url', untrusted, '--report', join(tmp, 'tls')], ['load', '--base-url', untrusted, '--duration', '2s'], ['load', '--base-url', untrusted, '--duration', '2s', '--model', 'm']]) {
      const r = await runCli(argv, env);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain("TLS: the server's certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT");
    }
    expect(accepted).toBe(3);
  });

  it('runConformance and runLoad reject with IARI_TARGET_UNREACHABLE before any check or request', async () => {
    await expect(runConformance({ baseUrl: closed, token: TOKEN })).rejects.toMatchObject({ code: 'IARI_TARGET_UNREACHABLE', exitCode: 2 });
    await expect(runLoad({ baseUrl: closed, token: TOKEN, model: 'm', duration: '2s' })).rejects.toMatchObject({ code: 'IARI_TARGET_UNREACHABLE', exitCode: 2 });
  });
});
