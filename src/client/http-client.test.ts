import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { HttpClient, type HttpResult } from './http-client.ts';

const CANARY = 'sk-iari-canary-7f3a9c2e51d84b06';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const routes = new Map<string, Handler>();
let server: Server;
let baseUrl: string;
const openSockets = new Set<import('node:net').Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (handler === undefined) {
        res.writeHead(404).end();
        return;
      }
      handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    openSockets.add(s);
    s.on('close', () => openSockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(async () => {
  for (const s of openSockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  return new HttpClient({ baseUrl, token: CANARY, ...extra });
}

function everythingSaid(result: HttpResult): string {
  const copy: Record<string, unknown> = { ...(result as unknown as Record<string, unknown>) };
  // Bodies are the server's own bytes; the client's words (messages, curl, urls, headers sent) must be clean.
  delete copy['body'];
  delete copy['chunks'];
  if (typeof copy['partial'] === 'object' && copy['partial'] !== null) {
    const { body: _b, chunks: _c, ...p } = copy['partial'] as Record<string, unknown>;
    copy['partial'] = p;
  }
  return JSON.stringify(copy, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}

describe('HttpClient', () => {
  it('sends the bearer token and the fault header, and captures status, headers, x-request-id, body and timings', async () => {
    let seen: IncomingMessage['headers'] = {};
    routes.set('/v1/me', (req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_0123456789abcdef01234567' });
      res.end('{"id":"u1"}');
    });
    const c = client({ fault: 'no-done' });
    const r = await c.request({ path: '/v1/me' });
    await c.close();
    expect(seen['authorization']).toBe(`Bearer ${CANARY}`);
    expect(seen['x-iari-fault']).toBe('no-done');
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.status).toBe(200);
    expect(r.requestId).toBe('req_0123456789abcdef01234567');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.toString()).toBe('{"id":"u1"}');
    expect(r.timing.headersAt).toBeGreaterThanOrEqual(r.timing.sentAt);
    expect(r.timing.endedAt).toBeGreaterThanOrEqual(r.timing.headersAt ?? 0n);
    expect(r.curl).toContain('"Authorization: Bearer $IARI_TOKEN"');
    expect(everythingSaid(r)).not.toContain(CANARY);
  });

  it('sends no Authorization header when asked for none, and the fault can be suppressed per request', async () => {
    let seen: IncomingMessage['headers'] = {};
    routes.set('/v1/models', (req, res) => {
      seen = req.headers;
      res.writeHead(200).end('{}');
    });
    const c = client({ fault: 'x' });
    const r = await c.request({ path: 'v1/models', auth: 'none', fault: null });
    await c.close();
    expect(r.kind).toBe('ok');
    expect(seen['authorization']).toBeUndefined();
    expect(seen['x-iari-fault']).toBeUndefined();
    expect(r.curl).not.toContain('Authorization');
  });

  it('posts JSON and appends query parameters', async () => {
    let got = '';
    let url = '';
    routes.set('/v1/chat/completions', (req, res, body) => {
      got = body;
      url = req.url ?? '';
      res.writeHead(200).end('{}');
    });
    const c = client();
    const r = await c.request({ path: '/v1/chat/completions', query: { a: 1 }, json: { model: 'm', messages: [] } });
    await c.close();
    expect(r.method).toBe('POST');
    expect(JSON.parse(got)).toEqual({ model: 'm', messages: [] });
    expect(url).toBe('/v1/chat/completions?a=1');
  });

  it('feeds a streamed body to the SSE validator read by read, with arrival times', async () => {
    routes.set('/v1/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const now = Math.floor(Date.now() / 1000);
      const chunk = (o: object): string => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: now, model: 'm', ...o })}\n\n`;
      const parts = [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: { content: 'hé' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + 'data: [DONE]\n\n',
      ];
      let i = 0;
      const tick = (): void => {
        const p = parts[i++];
        if (p === undefined) {
          res.end();
          return;
        }
        res.write(p);
        setTimeout(tick, 15);
      };
      tick();
    });
    const c = client();
    const arrivals: bigint[] = [];
    const r = await c.request({ path: '/v1/stream', json: {}, sse: {}, onChunk: (_b, at) => arrivals.push(at) });
    await c.close();
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.chunks.length).toBeGreaterThanOrEqual(3);
    expect(arrivals).toEqual(r.chunks.map((ch) => ch.arrivedAt));
    expect(r.sse?.verdict).toBe('pass');
    expect(r.sse?.assembled.choices[0]?.content).toBe('hé');
    const first = r.sse?.timing.firstTokenAt ?? 0n;
    expect(first).toBeGreaterThan(r.chunks[0]?.arrivedAt ?? 0n);
    expect(r.curl).toContain(' -N ');
  });

  it('reports a headers timeout as timeout/headers', async () => {
    routes.set('/v1/silent', () => undefined);
    const c = client({ timeouts: { headersMs: 150 } });
    const r = await c.request({ path: '/v1/silent' });
    await c.close();
    expect(r).toMatchObject({ kind: 'timeout', phase: 'headers' });
    expect(everythingSaid(r)).not.toContain(CANARY);
  });

  it('reports a stalled body as timeout/body and keeps what arrived', async () => {
    routes.set('/v1/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"partial":true}\n\n');
    });
    const c = client({ timeouts: { bodyIdleMs: 150 } });
    const r = await c.request({ path: '/v1/stall', sse: {} });
    await c.close();
    expect(r).toMatchObject({ kind: 'timeout', phase: 'body' });
    if (r.kind !== 'timeout') return;
    expect(r.partial?.status).toBe(200);
    expect(r.partial?.body.toString()).toBe('data: {"partial":true}\n\n');
    expect(r.partial?.sse?.findings.map((f) => f.rule)).toContain('done-missing');
  });

  it('enforces the overall deadline on a body that keeps trickling', async () => {
    routes.set('/v1/trickle', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const iv = setInterval(() => (res.writableEnded || res.destroyed ? clearInterval(iv) : res.write(': ping\n')), 20);
      res.on('close', () => clearInterval(iv));
    });
    const c = client({ timeouts: { deadlineMs: 250, bodyIdleMs: 1_000 } });
    const started = Date.now();
    const r = await c.request({ path: '/v1/trickle' });
    await c.close();
    expect(r).toMatchObject({ kind: 'timeout', phase: 'deadline' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('classifies a connection destroyed mid-body as a reset, keeping the partial body', async () => {
    routes.set('/v1/reset', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"a":1}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const c = client();
    const r = await c.request({ path: '/v1/reset' });
    await c.close();
    expect(r.kind).toBe('reset');
    if (r.kind !== 'reset') return;
    expect(r.partial?.bodyBytes).toBe(15);
    expect(everythingSaid(r)).not.toContain(CANARY);
  });

  it('classifies a connection destroyed before the response head as a reset', async () => {
    routes.set('/v1/drop', (req) => req.socket.destroy());
    const c = client();
    const r = await c.request({ path: '/v1/drop' });
    await c.close();
    expect(r.kind).toBe('reset');
    if (r.kind === 'reset') expect(r.partial).toBeUndefined();
  });

  it('classifies a refused connection as connect-error', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const c = new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, token: CANARY });
    const r = await c.request({ path: '/v1/me' });
    await c.close();
    expect(r).toMatchObject({ kind: 'connect-error', code: 'ECONNREFUSED' });
    expect(everythingSaid(r)).not.toContain(CANARY);
  });

  it('classifies undici connect timeouts as timeout/connect, through a stub dispatcher', async () => {
    const err = Object.assign(new Error(`Connect Timeout Error (attempted token ${CANARY})`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    const dispatcher = { request: () => Promise.reject(err) } as unknown as Dispatcher;
    const c = new HttpClient({ baseUrl, token: CANARY, dispatcher });
    const r = await c.request({ path: '/v1/me' });
    expect(r).toMatchObject({ kind: 'timeout', phase: 'connect' });
    if (r.kind === 'timeout') expect(r.message).toContain('$IARI_TOKEN');
    expect(everythingSaid(r)).not.toContain(CANARY);
  });

  it('cuts a body over the size limit and reports body-too-large', async () => {
    routes.set('/v1/big', (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(64 * 1024, 0x61));
    });
    const c = client({ maxBodyBytes: 1024 });
    const r = await c.request({ path: '/v1/big' });
    await c.close();
    expect(r).toMatchObject({ kind: 'body-too-large', limit: 1024 });
  });

  it('reports an external abort as aborted', async () => {
    routes.set('/v1/hang', () => undefined);
    const c = client();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const r = await c.request({ path: '/v1/hang', signal: ac.signal });
    await c.close();
    expect(r.kind).toBe('aborted');
  });

  it('does not expose the token through inspection of the client', async () => {
    const c = client();
    const { inspect } = await import('node:util');
    expect(inspect(c, { depth: 5, showHidden: true })).not.toContain(CANARY);
    expect(JSON.stringify(c)).not.toContain(CANARY);
    expect(c.redact(`x ${CANARY} y`)).toBe('x $IARI_TOKEN y');
    await c.close();
  });
});
