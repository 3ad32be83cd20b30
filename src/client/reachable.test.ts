import { createServer as createTlsServer } from 'node:tls';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertReachable, unreachableReason } from './reachable.ts';
import { codeUrl } from '../package-root.ts';
import { noConnectionOptions } from './connection-options.ts';

const certPath = codeUrl('fixtures/tls/self-signed-cert.pem');
const cert = readFileSync(certPath, 'utf8');
const key = readFileSync(codeUrl('fixtures/tls/self-signed-key.pem'), 'utf8');

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

describe('assertReachable (the preflight of iari test, iari load, runConformance and runLoad)', () => {
  let plainBytes = 0;
  let plainConnections = 0;
  const plain = createServer((socket) => {
    plainConnections += 1;
    socket.on('data', (d) => (plainBytes += d.length));
  });
  const tls = createTlsServer({ cert, key }, (socket) => socket.end());
  tls.on('tlsClientError', () => {});
  let plainPort = 0;
  let tlsPort = 0;
  beforeAll(async () => {
    plainPort = await listen(plain);
    tlsPort = await listen(tls);
  });
  afterAll(() => {
    plain.close();
    tls.close();
  });

  it('opens one connection to a listening server and sends no byte of HTTP', async () => {
    await assertReachable(`http://127.0.0.1:${plainPort}`, noConnectionOptions, {});
    await new Promise((r) => setTimeout(r, 50));
    expect(plainConnections).toBe(1);
    expect(plainBytes).toBe(0);
  });

  it('says in one line that a closed port refuses the connection, exit 2', async () => {
    const port = await closedPort();
    const error = await assertReachable(`http://127.0.0.1:${port}`, noConnectionOptions, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IARI_TARGET_UNREACHABLE', exitCode: 2, message: `cannot reach the server at http://127.0.0.1:${port}: connection refused (ECONNREFUSED): nothing listens there` });
  });

  it('refuses a certificate the run does not trust (TLS trust failure), exit 2, with the hint', async () => {
    const error = await assertReachable(`https://127.0.0.1:${tlsPort}`, noConnectionOptions, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IARI_TARGET_UNREACHABLE', exitCode: 2, hint: expect.stringContaining('--ca-file') });
    expect((error as Error).message).toMatch(/^cannot reach the server at https:\/\/127\.0\.0\.1:\d+: TLS: the server's certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT/);
  });

  it('reaches the same server with its certificate as --ca-file, or with --insecure', async () => {
    await assertReachable(`https://127.0.0.1:${tlsPort}`, { ...noConnectionOptions, caFile: { path: 'self-signed-cert.pem', pem: cert } }, {});
    await assertReachable(`https://localhost:${tlsPort}`, { ...noConnectionOptions, caFile: { path: 'self-signed-cert.pem', pem: cert } }, {});
    await assertReachable(`https://127.0.0.1:${tlsPort}`, { ...noConnectionOptions, insecure: true }, {});
  });

  it('names the DNS failure and the connect timeout in words', () => {
    expect(unreachableReason(Object.assign(new Error('getaddrinfo ENOTFOUND llm.invalid'), { code: 'ENOTFOUND' }), 'llm.invalid', 10_000).reason).toBe('DNS: cannot resolve llm.invalid (ENOTFOUND)');
    expect(unreachableReason(Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), 'h', 10_000).reason).toBe('no connection within 10 s (UND_ERR_CONNECT_TIMEOUT)');
  });
});
