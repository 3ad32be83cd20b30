import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../index.ts';

let s: MockServer;
beforeAll(async () => {
  s = await startMockServer({ seed: 7 });
});
afterAll(async () => {
  await s?.close();
});

const call = (path: string, fault: string | null, init: { token?: boolean; body?: unknown } = {}) =>
  fetch(`${s.url}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(fault === null ? {} : { 'x-iari-fault': fault }),
      ...(init.token === false ? {} : { authorization: `Bearer ${s.tokens.default}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const chain = async (): Promise<{ decision?: { result?: string }; outcome?: unknown }[]> =>
  ((await (await call('/receipts', null)).json()) as { data: { decision?: { result?: string }; outcome?: unknown }[] }).data;

describe('receipt route faults', () => {
  it('RCPT-HTTP-001: receipt-keys-status-203 answers the same keys document with 203 instead of 200', async () => {
    const faithful = await call('/receipts/keys', null, { token: false });
    const broken = await call('/receipts/keys', 'receipt-keys-status-203', { token: false });
    expect(faithful.status).toBe(200);
    expect(broken.status).toBe(203);
    expect(await broken.json()).toEqual(await faithful.json());
  });

  it('RCPT-HTTP-003: receipt-list-public answers GET /v1/receipts without a token with 200 instead of 401', async () => {
    expect((await call('/receipts', null, { token: false })).status).toBe(401);
    const broken = await call('/receipts', 'receipt-list-public', { token: false });
    expect(broken.status).toBe(200);
    expect(((await broken.json()) as { object: string }).object).toBe('list');
  });

  it('RCPT-HTTP-013: receipt-gate-unknown-model appends an allowed gate and an outcome for a request answered 404', async () => {
    const body = { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] };
    const before = (await chain()).length;
    expect((await call('/chat/completions', null, { body })).status).toBe(404);
    expect((await chain()).length).toBe(before);
    expect((await call('/chat/completions', 'receipt-gate-unknown-model', { body })).status).toBe(404);
    const added = (await chain()).slice(before);
    expect(added.map((r) => (r.outcome === undefined ? r.decision?.result : 'outcome'))).toEqual(['allowed', 'outcome']);
  });
});
