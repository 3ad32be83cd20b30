import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import type { LoadResult } from '../../src/load/results/load-result.ts';
import { runCli } from '../../test-support/cli-in-process.ts';
import { iari as iariChild, loopbackName, makeCertificates, startConnectProxy, startHeaderGateway, startTlsFront, type Certificates, type Front } from './target-fixtures.ts';

/**
 * `iari load` (and `iari test`, which takes the same connection flags) against a server the way a
 * real deployment exposes it: over TLS with a private CA, through a proxy, under a host name
 * that is not `localhost`, behind a gateway that needs a header. Everything listens on loopback.
 */

/** A fixed count, not a duration: on a loaded machine a 1 s TLS run finished only 2 requests once. */
const REQUESTS = 8;
/**
 * iari in this process (test-support/cli-in-process.ts), with proxy variables only as given in `env`.
 * The proxy test runs a child (iariChild): a process reads HTTPS_PROXY and NO_PROXY from its
 * environment as it starts.
 */
const iari = (args: string[], env: Record<string, string | undefined> = {}): ReturnType<typeof runCli> =>
  runCli(args, { HTTPS_PROXY: '', HTTP_PROXY: '', NO_PROXY: '', ...Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)) });
const loadArgs = ['--requests', String(REQUESTS), '--concurrency', '2', '--model', 'iari-mini', '--quiet'];

describe('iari load against real-deployment targets (loopback stand-ins)', () => {
  let dir: string;
  let mock: MockServer;
  let certs: Certificates;
  let tls: Front;
  let name: { name: string; address: string } | null;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'iari-targets-'));
    name = await loopbackName();
    certs = makeCertificates(dir, name === null ? [] : [name.name]);
    mock = await startMockServer({ limits: false, receipts: false, ttftMs: 5, itlMs: 2, jitterMs: 0, completionTokens: [8, 16] });
    tls = await startTlsFront(Number(new URL(mock.origin).port), certs);
    env = { IARI_TOKEN: mock.tokens.default };
  }, 60_000);
  afterAll(async () => {
    await tls?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const result = (report: string): LoadResult => JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult;

  it('LOAD-TARGET: loads the mock over TLS on 127.0.0.1 trusting a private CA with --ca-file (closed loop moves to undici: autocannon does not verify certificates)', async () => {
    const report = join(dir, 'tls');
    const before = tls.connections;
    const out = await iari(['load', '--base-url', `https://127.0.0.1:${tls.port}/v1`, '--ca-file', certs.caFile, ...loadArgs, '--report', report], env);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const r = result(report);
    expect(r.meta.baseUrl).toBe(`https://127.0.0.1:${tls.port}/v1`);
    expect(r.meta.connection).toMatchObject({ tls: 'verified', proxy: null });
    expect(r.meta.connection?.trust).toContain(certs.caFile);
    expect(r.meta.mode).toMatchObject({ kind: 'closed', engine: 'undici' });
    expect(r.meta.mode.kind === 'closed' ? r.meta.mode.engineNote : '').toMatch(/autocannon does not verify TLS certificates/);
    expect(r.counts.ok).toBe(REQUESTS);
    expect(r.errors.total).toBe(0);
    expect(tls.connections).toBeGreaterThan(before);
    expect(out.stdout).toContain('TLS verified');
  }, 90_000);

  it('LOAD-TARGET: without --ca-file the private CA is not trusted: exit 2 naming --ca-file; --insecure runs and warns once', async () => {
    const refused = await iari(['load', '--base-url', `https://127.0.0.1:${tls.port}/v1`, '--duration', '1s', '--quiet'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/certificate/i);
    expect(refused.stderr).toContain('--ca-file');
    const report = join(dir, 'insecure');
    const insecure = await iari(['load', '--base-url', `https://127.0.0.1:${tls.port}/v1`, '--insecure', ...loadArgs, '--report', report], env);
    expect(insecure.code).toBe(0);
    expect(insecure.stderr.match(/--insecure: TLS certificates are NOT verified/g)?.length).toBe(1);
    expect(result(report).meta.connection?.tls).toBe('insecure');
    expect(result(report).errors.total).toBe(0);
  }, 90_000);

  it('LOAD-TARGET: goes through HTTPS_PROXY (a CONNECT proxy on 127.0.0.1 sees the tunnel) and around it for a NO_PROXY host', async () => {
    const proxy = await startConnectProxy();
    try {
      const report = join(dir, 'proxy');
      const out = await iariChild(['load', '--base-url', `https://127.0.0.1:${tls.port}/v1`, '--ca-file', certs.caFile, ...loadArgs, '--report', report], { ...env, HTTPS_PROXY: proxy.url });
      expect(out.code).toBe(0);
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(new Set(proxy.tunnels)).toEqual(new Set([`127.0.0.1:${tls.port}`]));
      const r = result(report);
      expect(r.meta.connection?.proxy).toBe(proxy.url);
      expect(r.meta.mode.kind === 'closed' ? r.meta.mode.engineNote : '').toMatch(/autocannon cannot go through a proxy/);
      expect(r.counts.ok).toBe(REQUESTS);
      expect(r.errors.total).toBe(0);
      const tunnels = proxy.tunnels.length;
      const direct = await iariChild(['load', '--base-url', `https://127.0.0.1:${tls.port}/v1`, '--ca-file', certs.caFile, ...loadArgs, '--report', join(dir, 'no-proxy')], { ...env, HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
      expect(direct.code).toBe(0);
      expect(proxy.tunnels.length).toBe(tunnels);
      expect(result(join(dir, 'no-proxy')).meta.connection?.proxy).toBeNull();
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('LOAD-TARGET: loads a host name that resolves to loopback but is not localhost, announcing target, mode and bound first', async (ctx) => {
    if (name === null) {
      ctx.skip(true, 'no host name other than localhost resolves only to loopback on this machine (/etc/hosts, hostname, ip6-localhost checked)');
      return;
    }
    let target = mock;
    if (!name.address.includes('.')) target = await startMockServer({ host: name.address, limits: false, receipts: false, ttftMs: 5, itlMs: 2, jitterMs: 0, completionTokens: [8, 16] });
    try {
      const report = join(dir, 'named');
      const base = `http://${name.name}:${new URL(target.origin).port}/v1`;
      const out = await iari(['load', '--base-url', base, ...loadArgs, '--report', report], { IARI_TOKEN: target.tokens.default });
      expect(out.code).toBe(0);
      expect(out.stderr).toContain(`iari load: sending load to ${base}: closed loop, 2 concurrent requests, until ${REQUESTS} measured requests (at most 600 s), then 5 s of grace for requests in flight; ends within 615 s`);
      const r = result(report);
      expect(r.meta.baseUrl).toBe(base);
      expect(r.meta.mode).toMatchObject({ engine: 'autocannon' });
      expect(r.counts.ok).toBe(REQUESTS);
    } finally {
      if (target !== mock) await target.close();
    }
  }, 90_000);

  it('LOAD-TARGET: iari test takes the same flags: over TLS with --ca-file and --header, the openai SDK (fetch) included, and the gateway sees the header on every request', async () => {
    const gateway = await startHeaderGateway(Number(new URL(mock.origin).port), 'X-Org');
    const front = await startTlsFront(gateway.port, certs);
    try {
      const report = join(dir, 'conformance-tls');
      const out = await iari(['test', '--base-url', `https://127.0.0.1:${front.port}/v1`, '--ca-file', certs.caFile, '--header', 'X-Org: env:IARI_TEST_ORG', '--only', 'MODELS-001,CHAT-031', '--report', report], { ...env, IARI_TEST_ORG: 'org-gateway-7731' });
      expect(out.code, out.stdout + out.stderr).toBe(0);
      const results = (JSON.parse(readFileSync(join(report, 'conformance.json'), 'utf8')) as { results: { id: string; verdict: string }[] }).results;
      expect(results.filter((r) => r.id === 'MODELS-001' || r.id === 'CHAT-031').map((r) => [r.id, r.verdict]).sort()).toEqual([
        ['CHAT-031', 'pass'],
        ['MODELS-001', 'pass'],
      ]);
      expect(gateway.seen.length).toBeGreaterThanOrEqual(3);
      expect(gateway.seen.every((v) => v === 'org-gateway-7731')).toBe(true);
    } finally {
      await front.close();
      await gateway.close();
    }
  }, 120_000);

  it('LOAD-TARGET: a --header value from the environment never reaches a report, even when the server quotes it back', async () => {
    const secret = 'org-secret-5eb1c9d2';
    const gateway = await startHeaderGateway(Number(new URL(mock.origin).port), 'X-Org', { echo: true });
    try {
      const report = join(dir, 'conformance-echo');
      const out = await iari(['test', '--base-url', `http://127.0.0.1:${gateway.port}/v1`, '--header', 'X-Org: env:IARI_TEST_ORG', '--only', 'MODELS-001', '--report', report], { ...env, IARI_TEST_ORG: secret });
      expect(out.code).toBe(1);
      expect(gateway.seen).toContain(secret);
      const files = readdirSync(report).filter((f) => !f.startsWith('.'));
      expect(files).toContain('conformance.json');
      const all = files.map((f) => readFileSync(join(report, f), 'utf8')).join('\n') + out.stdout + out.stderr;
      // The gateway's message reached the evidence, with the value scrubbed.
      expect(all).toContain('organization [REDACTED] is not allowed here');
      expect(all).not.toContain(secret);
      const loadReport = join(dir, 'load-echo');
      const load = await iari(['load', '--base-url', `http://127.0.0.1:${gateway.port}/v1`, '--header', 'X-Org: env:IARI_TEST_ORG', ...loadArgs, '--report', loadReport], { ...env, IARI_TEST_ORG: secret });
      expect(load.code).toBe(0);
      const loadFiles = readdirSync(loadReport).map((f) => readFileSync(join(loadReport, f), 'utf8')).join('\n');
      expect(loadFiles).toContain('X-Org (from $IARI_TEST_ORG)');
      expect(loadFiles + load.stdout + load.stderr).not.toContain(secret);
      expect(gateway.seen.filter((v) => v === secret).length).toBeGreaterThan(5);
    } finally {
      await gateway.close();
    }
  }, 120_000);
});
