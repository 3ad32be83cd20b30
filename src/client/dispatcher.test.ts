import { readFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeUrl } from '../package-root.ts';
import { connectionDispatcher, dispatcherFor, fetchVia } from './dispatcher.ts';
import type { ConnectionOptions } from './connection-options.ts';

// iari speaks HTTP/1.1 to the server under test (HDR-016 judges the HTTP/1.1 framing, the
// KEEP-ALIVE checks and the load engine count connections and read `Connection: close`). undici 8
// negotiates HTTP/2 by ALPN wherever a TLS server offers it, unless told not to: a server offering
// both must still be spoken to in HTTP/1.1, through every dispatcher iari builds.
describe('the dispatchers stay on HTTP/1.1 where a TLS server also offers HTTP/2', () => {
  let server: Http2SecureServer;
  let origin: string;
  let conn: ConnectionOptions;

  beforeAll(async () => {
    // fixtures/tls: a self-signed certificate for 127.0.0.1, trusted here as its own --ca-file.
    const certPath = codeUrl('fixtures/tls/self-signed-cert.pem');
    const cert = readFileSync(certPath, 'utf8');
    server = createSecureServer({ key: readFileSync(codeUrl('fixtures/tls/self-signed-key.pem'), 'utf8'), cert, allowHTTP1: true }, (req, res) => res.end(req.httpVersion));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    conn = { caFile: { path: certPath.pathname, pem: cert }, insecure: false, headers: [] };
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function versionThrough(dispatcher: ReturnType<typeof dispatcherFor>): Promise<string> {
    try {
      const res = await request(`${origin}/v1/models`, { dispatcher });
      return await res.body.text();
    } finally {
      await dispatcher.close();
    }
  }

  it('HDR-016: the run dispatcher of iari test (connectionDispatcher) asks for HTTP/1.1', async () => {
    expect(await versionThrough(connectionDispatcher(conn, origin, {}))).toBe('1.1');
  });

  it('HDR-016: the per-origin pool of iari load (dispatcherFor) asks for HTTP/1.1', async () => {
    expect(await versionThrough(dispatcherFor(conn, origin, { connections: 2 }, {}))).toBe('1.1');
  });

  it('HDR-016: the client libraries\' fetch (fetchVia) asks for HTTP/1.1', async () => {
    const d = connectionDispatcher(conn, origin, {});
    try {
      expect(await (await fetchVia(d)(`${origin}/v1/models`)).text()).toBe('1.1');
    } finally {
      await d.close();
    }
  });
});
