import { afterEach, describe, expect, it } from 'vitest';
import { chat, RecordingIssuer, startClient, waitFor, type Client } from '../test-support/mock-client.ts';

let c: Client | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

type Me = { usage: { requests_this_month: number; tokens_this_month: number; spend_usd: number } };
type Row = { date: string; requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number; spend_usd: number };

async function me(client: Client): Promise<Me> {
  return (await (await client.get('/me')).json()) as Me;
}
async function rows(client: Client, days = 90): Promise<Row[]> {
  return ((await (await client.get(`/me/usage?days=${days}`)).json()) as { data: Row[] }).data;
}

function monthSums(all: Row[]) {
  const month = new Date().toISOString().slice(0, 7);
  const mine = all.filter((r) => r.date.startsWith(month));
  return {
    requests: mine.reduce((s, r) => s + r.requests, 0),
    tokens: mine.reduce((s, r) => s + r.total_tokens, 0),
    spend: mine.reduce((s, r) => s + r.spend_usd, 0),
  };
}

describe('usage accounting', () => {
  it('ME-024: a completion adds exactly its usage to /v1/me and to today\'s row, priced per model', async () => {
    c = await startClient();
    const before = await me(c);
    const todayBefore = (await rows(c, 1))[0]!;
    const body = (await (await c.chat(chat({ model: 'iari-large' }))).json()) as { usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
    const after = await me(c);
    const todayAfter = (await rows(c, 1))[0]!;
    expect(after.usage.requests_this_month - before.usage.requests_this_month).toBe(1);
    expect(after.usage.tokens_this_month - before.usage.tokens_this_month).toBe(body.usage.total_tokens);
    // iari-large: $5 per million prompt tokens, $15 per million completion tokens.
    const expected = (body.usage.prompt_tokens * 5 + body.usage.completion_tokens * 15) / 1e6;
    expect(after.usage.spend_usd - before.usage.spend_usd).toBeCloseTo(expected, 9);
    expect(todayAfter.requests - todayBefore.requests).toBe(1);
    expect(todayAfter.prompt_tokens - todayBefore.prompt_tokens).toBe(body.usage.prompt_tokens);
    expect(todayAfter.completion_tokens - todayBefore.completion_tokens).toBe(body.usage.completion_tokens);
  });

  it('USAGE-010: the current month\'s daily rows sum to the /v1/me totals after a mixed session', async () => {
    c = await startClient();
    await Promise.all([
      c.chat(chat()).then((r) => r.text()),
      c.chat(chat({ stream: true, n: 2 })).then((r) => r.text()),
      c.chat(chat({ model: 'iari-legacy', max_tokens: 4 })).then((r) => r.text()),
      c.chat(chat({ model: 'nope' })).then((r) => r.text()),
      c.chat('{').then((r) => r.text()),
    ]);
    const totals = (await me(c)).usage;
    const sums = monthSums(await rows(c));
    expect(sums.requests).toBe(totals.requests_this_month);
    expect(sums.tokens).toBe(totals.tokens_this_month);
    expect(Math.abs(sums.spend - totals.spend_usd)).toBeLessThan(1e-9);
    for (const r of await rows(c)) {
      expect(r.total_tokens).toBe(r.prompt_tokens + r.completion_tokens);
      expect(String(r.spend_usd)).toMatch(/^\d+(\.\d{1,6})?$/);
    }
  });

  it('USAGE-015: rejected requests are not counted', async () => {
    c = await startClient();
    const before = await me(c);
    await (await c.chat(chat({ model: 'unknown-model' }))).text();
    await (await c.chat(chat({ temperature: 9 }))).text();
    await (await c.chat(chat(), { token: 'wrong' })).text();
    expect((await me(c)).usage).toEqual(before.usage);
  });

  it('a client that disconnects mid-stream stops generation, counts only the tokens sent and reports interrupted', async () => {
    const issuer = new RecordingIssuer();
    c = await startClient({ receipts: issuer, itlMs: 20, completionTokens: 40 });
    const before = await me(c);
    const abort = new AbortController();
    const res = await c.chat(chat({ stream: true }), { signal: abort.signal });
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 90));
    abort.abort();
    await waitFor(() => issuer.outcomes.length === 1);
    const outcome = issuer.outcomes[0]!;
    expect(outcome.status).toBe('interrupted');
    const log = c.server.sendLog.get(res.headers.get('x-request-id') ?? '')!;
    expect(log.interrupted).toBe(true);
    const sentTokens = log.events.filter((e) => e.writtenNs > 0n).reduce((s, e) => s + e.tokens, 0);
    expect(sentTokens).toBeGreaterThan(0);
    expect(sentTokens).toBeLessThan(40);
    const after = await me(c);
    expect(after.usage.requests_this_month - before.usage.requests_this_month).toBe(1);
    const promptTokens = (await (await c.chat(chat())).json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    expect(after.usage.tokens_this_month - before.usage.tokens_this_month).toBe(promptTokens + sentTokens);
    const content = (outcome.output as { content: string }[])[0]!.content;
    expect(content.length).toBeGreaterThan(0);
    expect(c.server.admin.activeStreams()).toBe(0);
  });

  it('gates every validated chat request, sets x-receipt-gate and pairs one ok outcome with resolved model', async () => {
    const issuer = new RecordingIssuer();
    c = await startClient({ receipts: issuer });
    const res = await c.chat(chat({ model: 'iari-large' }));
    const body = (await res.json()) as { model: string };
    expect(res.headers.get('x-receipt-gate')).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(issuer.gates).toHaveLength(1);
    expect(issuer.gates[0]!.decision).toEqual({ result: 'allowed' });
    expect(issuer.outcomes).toHaveLength(1);
    expect(issuer.outcomes[0]).toMatchObject({ status: 'ok', gateDigest: res.headers.get('x-receipt-gate'), resolved: { model: body.model } });
    await (await c.chat(chat({ model: 'nope' }))).text();
    await (await c.chat('[')).text();
    expect(issuer.gates).toHaveLength(1);
    const keys = await c.get('/receipts/keys', null);
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as { object: string }).object).toBe('receipt_keys');
    expect((await c.get('/receipts', null)).status).toBe(401);
    expect(((await (await c.get('/receipts')).json()) as { object: string }).object).toBe('list');
  });
});
