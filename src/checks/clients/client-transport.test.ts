import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { ClientTransport, clientErrorText } from './client-transport.ts';

const TOKEN = 'sk-transport-test-token-0123456789';
let server: Server;
let root: string;
const seen: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/v1/flood') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = (): void => {
        while (sent < 4 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 4 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      pump();
      return;
    }
    res.writeHead(req.url === '/v1/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-request-id': 'req_transport_1' });
    res.end(req.url === '/v1/missing' ? JSON.stringify({ detail: `no ${TOKEN} here` }) : '{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function transport(fault?: string, bodyLimit?: number): ClientTransport {
  const ctx = createCheckContext({ root, token: TOKEN, seed: 1, target: 'external', includeLimits: false, ...(fault === undefined ? {} : { fault }) });
  return new ClientTransport(ctx, bodyLimit === undefined ? {} : { bodyLimit });
}

describe('ClientTransport (the fetch handed to client libraries)', () => {
  it('refuses another origin before sending anything, and records the attempt', async () => {
    const t = transport();
    const before = seen.length;
    await expect(t.fetch('http://127.0.0.2:1/v1/models')).rejects.toThrow(/not the server under test/);
    await expect(t.fetch(`${root.replace('127.0.0.1', 'localhost')}/v1/models`)).rejects.toThrow(/refused/);
    expect(t.refused).toEqual(['http://127.0.0.2:1', root.replace('127.0.0.1', 'localhost')]);
    expect(seen.length).toBe(before);
  });

  it('adds the run fault header, records status and x-request-id, and writes the token as $IARI_TOKEN in the curl line', async () => {
    const t = transport('stream-no-done');
    const res = await t.fetch(`${root}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{"model":"m"}' });
    expect(await res.json()).toEqual({ ok: true });
    expect(seen[seen.length - 1]?.headers['x-iari-fault']).toBe('stream-no-done');
    const last = t.last();
    expect(last?.status).toBe(200);
    expect(last?.requestId).toBe('req_transport_1');
    expect(last?.curl).toContain('$IARI_TOKEN');
    expect(last?.curl).not.toContain(TOKEN);
    expect(last?.curl).toContain("x-iari-fault: stream-no-done");
  });

  it('keeps the start of an error body, redacted, for the evidence', async () => {
    const t = transport();
    const res = await t.fetch(`${root}/v1/missing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: `no ${TOKEN} here` });
    expect(t.last()?.errorBody).toBe('{"detail":"no $IARI_TOKEN here"}');
    expect(t.failure('x').message).toBe('x');
    expect(t.failure('x').requestId).toBe('req_transport_1');
  });

  it('cuts a response off at the byte limit, so a flooding server fails the client instead of filling memory', async () => {
    const t = transport(undefined, 256 * 1024);
    const res = await t.fetch(`${root}/v1/flood`);
    await expect(res.text()).rejects.toThrow(/longer than 256 KiB \(HDR-013\)/);
  });

  it('CLIENT-027: keeps a copy of the body the client read only when asked, so an operation can compare what the client made of it', async () => {
    const t = transport();
    await (await t.fetch(`${root}/v1/models`)).text();
    expect(t.last()?.body).toBeUndefined();
    t.keepBodies = true;
    expect(await (await t.fetch(`${root}/v1/models`)).json()).toEqual({ ok: true });
    expect(await t.last()?.body).toBe('{"ok":true}');
  });

  it('words a client error as its class and message on one line', () => {
    class NotFoundError extends Error {}
    expect(clientErrorText(new NotFoundError('404 status code\n(no body)'))).toBe('NotFoundError: 404 status code (no body)');
    const named = new Error('Not Found');
    named.name = 'AI_APICallError';
    expect(clientErrorText(named)).toBe('AI_APICallError: Not Found');
    expect(clientErrorText('plain')).toBe('plain');
  });
});
