import { afterEach, describe, expect, it } from 'vitest';
import { chat, RecordingIssuer, startClient, type Client } from '../test-support/mock-client.ts';

let c: Client | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

describe('limits', () => {
  it('LIMIT-001: more than requests_per_minute requests get 429 rate_limit_exceeded with Retry-After and x-ratelimit headers', async () => {
    c = await startClient();
    const token = c.server.tokens.byAccount['acct_free'];
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await c.chat(chat({ max_tokens: 5 }), { token });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.text();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const body = (await limited!.json()) as { error: Record<string, unknown> };
    // D-HTTP-24 follows OpenAI: type names the limit that was hit.
    expect(body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });
    const retryAfter = limited!.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited!.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(limited!.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(limited!.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$|^\d+ms$/);
    expect(limited!.headers.get('x-ratelimit-limit-tokens')).toBe('4000');
  });

  it('LIMIT-004: requests succeed again once the window has passed', async () => {
    let now = Date.parse('2026-03-10T12:00:00Z');
    c = await startClient({ now: () => now });
    const token = c.server.tokens.byAccount['acct_free'];
    for (let i = 0; i < 3; i++) await (await c.chat(chat({ max_tokens: 2 }), { token })).text();
    const limited = await c.chat(chat({ max_tokens: 2 }), { token });
    expect(limited.status).toBe(429);
    now += Number(limited.headers.get('retry-after')) * 1000;
    expect((await c.chat(chat({ max_tokens: 2 }), { token })).status).toBe(200);
  });

  it('LIMIT-005: a request over tokens_per_minute gets 429 with the token headers', async () => {
    c = await startClient();
    const res = await c.chat(chat(), { token: c.server.tokens.byAccount['acct_team'] });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('40');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('LIMIT-006: an account at its monthly spend cap gets 429 insufficient_quota and a denial gate receipt', async () => {
    const issuer = new RecordingIssuer();
    c = await startClient({ receipts: issuer });
    const res = await c.chat(chat(), { token: c.server.tokens.byAccount['acct_capped'] });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: Record<string, unknown> }).error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(res.headers.get('x-receipt-gate')).toMatch(/^sha256:/);
    expect(issuer.gates[0]?.decision).toMatchObject({ result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP' });
    expect(issuer.outcomes).toHaveLength(0);
  });

  it('LIMIT-007: limited requests are not counted as usage', async () => {
    c = await startClient();
    const token = c.server.tokens.byAccount['acct_free'];
    for (let i = 0; i < 5; i++) await (await c.chat(chat({ max_tokens: 2 }), { token })).text();
    const me = (await (await c.get('/me', token)).json()) as { usage: { requests_this_month: number } };
    expect(me.usage.requests_this_month).toBe(3);
  });

  it('limits: false turns enforcement off', async () => {
    c = await startClient({ limits: false });
    const token = c.server.tokens.byAccount['acct_free'];
    for (let i = 0; i < 5; i++) expect((await c.chat(chat({ max_tokens: 2 }), { token })).status).toBe(200);
  });
});
