import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { CheckHttpError } from './check-http.ts';

// One route per way a response breaks a bound; the checks' client must fail each with its ID.
let server: Server;
let root: string;
const sockets = new Set<Socket>();
const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20), { level: 9 });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const s = req.socket;
    switch (req.url) {
      case '/v1/bomb':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
        return;
      case '/v1/gzip':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync('{"object":"list","data":[]}'));
        return;
      case '/v1/deep':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('['.repeat(1_000_000) + ']'.repeat(1_000_000));
        return;
      case '/v1/garbage':
        s.end('HXXP/9.9 what\r\n\r\n');
        return;
      case '/v1/reset':
        s.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
        setTimeout(() => s.resetAndDestroy(), 20);
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.on('connection', (c) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
    c.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const ctx = () => createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 10_000 });
const failure = (path: string) => ctx().http.get(path).then(() => undefined, (e: unknown) => e as CheckHttpError);

describe('the checks client keeps the body bounds', () => {
  it('HDR-014: a gzip bomb fails naming the inflated bound; a small gzip body is inflated and parsed', async () => {
    const e = await failure('/v1/bomb');
    expect(e).toBeInstanceOf(CheckHttpError);
    expect(e?.violation?.requirementId).toBe('HDR-014');
    expect(e?.message).toMatch(/^GET \/v1\/bomb: answered 200, then the gzip-encoded response body inflates past 16 MiB .*\(HDR-014\)$/);
    const ok = await ctx().http.get('/v1/gzip');
    expect(ok.json).toEqual({ object: 'list', data: [] });
  });

  it('HDR-015: JSON nested a million deep is not parsed and fails naming the depth bound', async () => {
    const e = await failure('/v1/deep');
    expect(e?.violation?.requirementId).toBe('HDR-015');
    expect(e?.message).toMatch(/JSON nested deeper than 64 levels/);
  });

  it('HDR-016: a garbage status line fails the request; a reset mid-body keeps the partial body with the framing violation', async () => {
    const e = await failure('/v1/garbage');
    expect(e?.violation?.requirementId).toBe('HDR-016');
    expect(e?.message).toMatch(/not well-formed HTTP\/1\.1/);
    const partial = await ctx().http.get('/v1/reset');
    expect(partial.status).toBe(200);
    expect(partial.text).toBe('{"a":');
    expect(partial.violation?.requirementId).toBe('HDR-016');
    expect(partial.bodyError).toMatch(/ended before the response did \(mid-body\).*\(HDR-016\)$/);
  });
});
