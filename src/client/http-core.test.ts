import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inspect } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCore, type CoreRequest, type CoreResult } from './http-core.ts';
import { Secrets } from './secrets.ts';

const CANARY = 'sk-iari-canary-7f3a9c2e51d84b06';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const routes = new Map<string, Handler>();
let server: Server;
let root: string;
const sockets = new Set<Socket>();
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (handler === undefined) res.writeHead(404).end();
      else handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await agent.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function core(dispatcher: Dispatcher = agent): HttpCore {
  const secrets = new Secrets();
  secrets.register(CANARY, '$IARI_TOKEN');
  return new HttpCore(dispatcher, secrets);
}

function get(path: string, extra: Partial<CoreRequest> = {}): CoreRequest {
  return { method: 'GET', url: root + path, headers: { authorization: `Bearer ${CANARY}` }, deadlineMs: 5_000, ...extra };
}

/** What the core says of an exchange (its words, not the server's bytes): must never hold the token. */
function said(r: CoreResult): string {
  const words = r.kind === 'failed' ? { curl: r.curl, ended: r.ended.message, violation: r.ended.violation } : { curl: r.curl, headers: r.headers, ended: r.ended?.message, violation: r.body.violation };
  return JSON.stringify(words);
}

function text(r: CoreResult): string {
  return r.kind === 'answered' ? Buffer.concat(r.body.chunks.map((c) => c.bytes)).toString('utf8') : '';
}

describe('HttpCore (the one HTTP core)', () => {
  it('HDR-012: sends the headers and body it is given and returns status, lower-cased headers, the decoded body and a curl line with $IARI_TOKEN', async () => {
    let seen: IncomingMessage['headers'] = {};
    let got = '';
    routes.set('/v1/echo', (req, res, body) => {
      seen = req.headers;
      got = body;
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_1', 'content-encoding': 'gzip' });
      res.end(gzipSync('{"id":"u1"}'));
    });
    const r = await core().send({ ...get('/v1/echo'), method: 'POST', headers: { authorization: `Bearer ${CANARY}`, 'content-type': 'application/json', accept: '*/*' }, body: `{"say":"${CANARY}"}`, curl: { omit: ['accept'], stream: true } });
    expect(seen['authorization']).toBe(`Bearer ${CANARY}`);
    expect(got).toBe(`{"say":"${CANARY}"}`);
    expect(r).toMatchObject({ kind: 'answered', status: 200, ended: undefined, headers: { 'x-request-id': 'req_1', 'content-type': 'application/json' } });
    expect(text(r)).toBe('{"id":"u1"}');
    expect(r.curl).toBe(`curl -sS -N -X POST ${root}/v1/echo -H "authorization: Bearer $IARI_TOKEN" -H 'content-type: application/json' --data-binary "{\\"say\\":\\"$IARI_TOKEN\\"}"`);
    expect(said(r)).not.toContain(CANARY);
  });

  it('HDR-012: a head that never comes ends at the total deadline as failed, with the deadline violation', async () => {
    routes.set('/v1/silent', () => undefined);
    const r = await core().send(get('/v1/silent', { deadlineMs: 150 }));
    expect(r.kind).toBe('failed');
    if (r.kind !== 'failed') return;
    expect(r.ended.cause).toBe('deadline');
    expect(r.ended.violation).toEqual({ kind: 'deadline', requirementId: 'HDR-012', message: 'no complete response within the request deadline of 150 ms (--request-timeout) (HDR-012)' });
  });

  it('HDR-012: a body that keeps trickling is cut at the total deadline (not an idle timeout), keeping what arrived', async () => {
    routes.set('/v1/trickle', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const iv = setInterval(() => (res.writableEnded || res.destroyed ? clearInterval(iv) : res.write(': ping\n')), 20);
      res.on('close', () => clearInterval(iv));
    });
    const started = Date.now();
    const r = await core().send(get('/v1/trickle', { deadlineMs: 250 }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r.kind).toBe('answered');
    if (r.kind !== 'answered') return;
    expect(r.ended?.cause).toBe('deadline');
    expect(r.ended?.violation?.requirementId).toBe('HDR-012');
    expect(text(r)).toMatch(/^(: ping\n)+$/);
  });

  it('HDR-016: a connection destroyed mid-body ends the body as a reset with the framing violation, keeping the partial body', async () => {
    routes.set('/v1/reset', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"a":1}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const r = await core().send(get('/v1/reset'));
    expect(r.kind).toBe('answered');
    if (r.kind !== 'answered') return;
    expect(r.ended?.cause).toBe('reset');
    expect(r.ended?.violation?.requirementId).toBe('HDR-016');
    expect(text(r)).toBe('data: {"a":1}\n\n');
    expect(said(r)).not.toContain(CANARY);
  });

  it('HDR-016: a connection destroyed before the head fails as a reset; with resendOnReset the request is sent once more', async () => {
    let calls = 0;
    routes.set('/v1/drop', (req) => req.socket.destroy());
    routes.set('/v1/drop-once', (req, res) => {
      calls += 1;
      if (calls === 1) req.socket.destroy();
      else res.writeHead(200).end('second');
    });
    const dropped = await core().send(get('/v1/drop'));
    expect(dropped.kind === 'failed' ? dropped.ended.cause : dropped.kind).toBe('reset');
    const again = await core().send(get('/v1/drop-once', { resendOnReset: true }));
    expect(calls).toBe(2);
    expect(text(again)).toBe('second');
  });

  it('HDR-012: a refused connection fails as connect, its code kept for the caller', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const r = await core().send({ ...get('/v1/me'), url: `http://127.0.0.1:${port}/v1/me` });
    expect(r.kind).toBe('failed');
    if (r.kind !== 'failed') return;
    expect(r.ended.cause).toBe('connect');
    expect((r.ended.error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(said(r)).not.toContain(CANARY);
  });

  it('HDR-012: an error that carries the token is told with $IARI_TOKEN, through a stub dispatcher', async () => {
    const err = Object.assign(new Error(`Connect Timeout Error (attempted token ${CANARY})`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    const stub = {
      dispatch: (_opts: unknown, handler: { onResponseError(controller: null, e: Error): void }) => {
        queueMicrotask(() => handler.onResponseError(null, err));
        return true;
      },
    } as unknown as Dispatcher;
    const r = await core(stub).send(get('/v1/me'));
    expect(r.kind).toBe('failed');
    if (r.kind !== 'failed') return;
    expect(r.ended.cause).toBe('timeout');
    expect(r.ended.message).toBe('Connect Timeout Error (attempted token $IARI_TOKEN)');
  });

  it('HDR-013: a body over the wire limit is cut, the bound named in body.violation', async () => {
    routes.set('/v1/big', (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(64 * 1024, 0x61));
    });
    const r = await core().send(get('/v1/big', { limits: { maxWireBytes: 1024 } }));
    expect(r.kind).toBe('answered');
    if (r.kind === 'answered') expect(r.body.violation?.kind).toBe('body-size');
  });

  it("HDR-012: the caller's abort ends the exchange as aborted, in its own words", async () => {
    routes.set('/v1/hang', () => undefined);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('the check did not finish')), 50);
    const r = await core().send(get('/v1/hang', { signal: ac.signal }));
    expect(r.kind === 'failed' ? r.ended : undefined).toMatchObject({ cause: 'aborted', message: 'aborted: the check did not finish', violation: undefined });
  });

  it('HDR-012: the token does not show through inspection of the core or its secrets', () => {
    const c = core();
    expect(inspect(c, { depth: 5, showHidden: true })).not.toContain(CANARY);
    expect(JSON.stringify(c.secrets)).not.toContain(CANARY);
    expect(c.secrets.redact(`x ${CANARY} y`)).toBe('x $IARI_TOKEN y');
  });
});
