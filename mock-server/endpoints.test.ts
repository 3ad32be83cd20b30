import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClient, type Client } from '../test-support/mock-client.ts';
import { startMockServer } from './index.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient();
});
afterAll(() => c.close());

const REQUEST_ID = /^req_[0-9a-f]{24,}$/;

describe('public and account endpoints', () => {
  it('AUTH-004: GET /v1/models answers without credentials with the list shape', async () => {
    const res = await c.get('/models', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { object: string; data: { id: string; object: string; created: number; owned_by: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual(['iari-mini', 'iari-large', 'iari-legacy', 'iari-reasoner']);
    for (const m of body.data) {
      expect(Object.keys(m).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(m.object).toBe('model');
      expect(Number.isInteger(m.created) && m.created < 1e10).toBe(true);
    }
  });

  it('ME-001: GET /v1/me has exactly the seed fields, with renews_at in YYYY-MM-DDTHH:MM:SSZ form', async () => {
    const res = await c.get('/me');
    expect(res.status).toBe(200);
    const me = (await res.json()) as Record<string, any>;
    expect(Object.keys(me).sort()).toEqual(['email', 'features', 'id', 'limits', 'plan', 'usage']);
    expect(Object.keys(me['plan']).sort()).toEqual(['id', 'label', 'renews_at']);
    expect(me['plan'].renews_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Object.keys(me['usage']).sort()).toEqual(['requests_this_month', 'spend_usd', 'tokens_this_month']);
    expect(Object.keys(me['limits']).sort()).toEqual(['monthly_spend_cap_usd', 'requests_per_minute', 'tokens_per_minute']);
    expect(Object.keys(me['features']).sort()).toEqual(['cloud_agents', 'ember_os', 'team_workspaces']);
    expect(Number.isInteger(me['usage'].requests_this_month)).toBe(true);
    expect(typeof me['usage'].spend_usd).toBe('number');
  });

  it('USAGE-003: /v1/me/usage defaults to 30 zero-filled rows, oldest first, ending today (UTC)', async () => {
    const body = (await (await c.get('/me/usage')).json()) as { object: string; days: number; data: { date: string }[] };
    expect(body.object).toBe('list');
    expect(body.days).toBe(30);
    expect(body.data).toHaveLength(30);
    expect(body.data.at(-1)?.date).toBe(new Date().toISOString().slice(0, 10));
    for (let i = 1; i < body.data.length; i++) {
      expect(Date.parse(body.data[i]!.date) - Date.parse(body.data[i - 1]!.date)).toBe(86_400_000);
    }
  });

  it('USAGE-004: days=1 and days=90 are accepted and give that many rows', async () => {
    for (const days of [1, 7, 90]) {
      const body = (await (await c.get(`/me/usage?days=${days}`)).json()) as { days: number; data: unknown[] };
      expect(body.days).toBe(days);
      expect(body.data).toHaveLength(days);
    }
  });

  it('USAGE-005: out-of-range or non-integer days answers 400 naming days', async () => {
    for (const days of ['0', '91', '-1', '1.5', 'abc', '', '1e1']) {
      const res = await c.get(`/me/usage?days=${encodeURIComponent(days)}`);
      expect(res.status, days).toBe(400);
      const body = (await res.json()) as { error: { param: string; type: string } };
      expect(body.error.param).toBe('days');
      expect(body.error.type).toBe('invalid_request_error');
    }
  });
});

describe('authentication', () => {
  it('AUTH-008: missing, unknown and malformed credentials get 401 with WWW-Authenticate: Bearer and the error body', async () => {
    const cases: (Record<string, string> | null)[] = [null, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }, { authorization: 'Bearer ' }];
    for (const path of ['/me', '/me/usage']) {
      for (const headers of cases) {
        const res = await c.get(path, null, headers ?? {});
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        const body = (await res.json()) as { error: Record<string, unknown> };
        // D-HTTP-04 follows OpenAI: type invalid_request_error; a token that was not issued gets invalid_api_key.
        expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null });
        if (headers?.['authorization'] === 'Bearer nope') expect(body.error.code).toBe('invalid_api_key');
      }
    }
    const chat = await c.chat({ model: 'iari-mini', messages: [{ role: 'user', content: 'x' }] }, { token: null });
    expect(chat.status).toBe(401);
  });

  it('AUTH-012: each account token sees its own account', async () => {
    for (const [account, token] of Object.entries(c.server.tokens.byAccount)) {
      const me = (await (await c.get('/me', token)).json()) as { email: string };
      expect(me.email.split('@')[0]).toBe(account === 'acct_dev' ? 'dev' : account === 'acct_team' ? 'team-lead' : account.slice(5));
    }
  });

  it('AUTH-011: the token is never echoed back in any response', async () => {
    const token = c.server.tokens.default;
    for (const path of ['/me', '/me/usage', '/models']) expect(await (await c.get(path)).text()).not.toContain(token);
  });

  it('takes the default token from IARI_TOKEN when it is set', async () => {
    const before = process.env['IARI_TOKEN'];
    process.env['IARI_TOKEN'] = 'iari_test_token_from_env_0123456789';
    try {
      const s = await startMockServer({ receipts: false });
      expect(s.tokens.default).toBe('iari_test_token_from_env_0123456789');
      const res = await fetch(`${s.url}/me`, { headers: { authorization: 'Bearer iari_test_token_from_env_0123456789' } });
      expect(res.status).toBe(200);
      await s.close();
    } finally {
      if (before === undefined) delete process.env['IARI_TOKEN'];
      else process.env['IARI_TOKEN'] = before;
    }
  });
});

describe('headers and routes', () => {
  it('HDR-001: every response carries a unique x-request-id of the form req_<24+ hex>', async () => {
    const responses = await Promise.all([
      c.get('/models', null),
      c.get('/me'),
      c.get('/me', null),
      c.get('/nope'),
      c.get('/me/usage?days=0'),
      c.chat({ model: 'iari-mini', messages: [{ role: 'user', content: 'x' }] }),
      c.chat({ model: 'iari-mini', messages: [{ role: 'user', content: 'x' }], stream: true }),
      c.chat('{'),
    ]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
    await Promise.all(responses.map((r) => r.text()));
  });

  it('ERR-012: an unknown route answers 404 unknown_url (as OpenAI), and a wrong method 405 with Allow', async () => {
    const res = await c.get('/nothing-here');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_url');
    const wrong = await fetch(`${c.server.url}/models`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    await wrong.text();
  });

  it('serves the send log over GET /_iari/send-log and 404s for an unknown id', async () => {
    const res = await c.chat({ model: 'iari-mini', messages: [{ role: 'user', content: 'x' }], stream: true });
    await res.text();
    const id = res.headers.get('x-request-id') ?? '';
    const log = (await (await fetch(`${c.server.origin}/_iari/send-log?request_id=${id}`)).json()) as { request_id: string; events: { written_ns: string; offset_ms: number }[] };
    expect(log.request_id).toBe(id);
    expect(log.events.length).toBeGreaterThan(3);
    for (const e of log.events) expect(BigInt(e.written_ns) > 0n).toBe(true);
    expect((await fetch(`${c.server.origin}/_iari/send-log?request_id=req_000`)).status).toBe(404);
  });

  it('answers 404 on the receipt routes when receipts are off', async () => {
    expect((await c.get('/receipts/keys', null)).status).toBe(404);
    expect((await c.get('/receipts')).status).toBe(404);
  });
});
