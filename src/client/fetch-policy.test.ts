import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginRefused, policedFetch } from './fetch-policy.ts';
import { isRequestDeadline, RequestDeadline } from './transport-errors.ts';
import { startEndlessServer, type EndlessServer } from '../../test-support/endless-server-fixtures.ts';

let server: EndlessServer;
let root: string;

beforeAll(async () => {
  server = await startEndlessServer((req, res) => {
    req.resume();
    if (req.url === '/v1/silent') return; // never answers
    if (req.url === '/v1/endless') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {}\n\n'); // and never ends
      return;
    }
    if (req.url === '/v1/slow-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":'); // and never ends
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  root = server.root;
});
afterAll(() => server.close());

const bounded = policedFetch(fetch, { deadlineMs: 150 });

describe('policedFetch (the fetch policy of the client libraries run as checks)', () => {
  it('refuses another origin than the server under test before sending anything', async () => {
    const locked = policedFetch(fetch, { deadlineMs: 1_000, origin: root });
    const error: unknown = await locked('http://127.0.0.2:9/v1/models').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OriginRefused);
    expect((error as OriginRefused).origin).toBe('http://127.0.0.2:9');
    expect((await locked(`${root}/v1/ok`)).status).toBe(200);
  });

  it('aborts with the signal passed in its options (the running check passed its deadline)', async () => {
    const check = new AbortController();
    const scoped = policedFetch(fetch, { deadlineMs: 10_000, signal: check.signal });
    const pending = scoped(`${root}/v1/silent`).catch((e: unknown) => e);
    check.abort(new Error('the check did not finish within its deadline'));
    const error = await pending;
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RequestDeadline);
  });

  it('HDR-012: a response head that never comes fails with a RequestDeadline naming the deadline', async () => {
    const error: unknown = await bounded(`${root}/v1/silent`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestDeadline);
    expect((error as Error).message).toBe('no complete response within the request deadline of 150 ms (--request-timeout) (HDR-012)');
  });

  it('HDR-012: a stream that never ends errors mid-body with a RequestDeadline, matched by code through a wrapping error', async () => {
    const res = await bounded(`${root}/v1/endless`);
    const error: unknown = await res.text().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestDeadline);
    expect(isRequestDeadline(new Error('the library wraps it', { cause: error }))).toBe(true);
  });

  it('HDR-012: a JSON body that never ends fails with a RequestDeadline; a complete answer passes through', async () => {
    const error: unknown = await bounded(`${root}/v1/slow-json`).catch((e: unknown) => e);
    expect(isRequestDeadline(error)).toBe(true);
    const ok = await bounded(`${root}/v1/ok`);
    expect(await ok.json()).toEqual({ ok: true });
    expect(isRequestDeadline(new Error('no complete response within the request deadline of 150 ms'))).toBe(false);
  });
});
