import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { chat, startClient, type Client } from '../test-support/mock-client.ts';
import { readReasoningStream } from '../src/checks/areas/reasoning.ts';

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 5 });
});
afterAll(() => c.close());

async function streamed(fault?: string) {
  const res = await c.chat({ ...chat({ model: 'iari-reasoner' }), stream: true, stream_options: { include_usage: true } }, { headers: fault === undefined ? {} : { 'x-iari-fault': fault } });
  const text = await res.text();
  return readReasoningStream({ chunks: [{ at: 0, bytes: new TextEncoder().encode(text) }] } as never);
}

describe('the reasoning model', () => {
  it('CHAT-STREAM-048, CHAT-STREAM-049, CHAT-STREAM-050: iari-reasoner streams reasoning_content before the answer, apart from it, and counts it in reasoning_tokens', async () => {
    const r = await streamed();
    expect(r.reasoning.length).toBeGreaterThan(0);
    expect(r.content).not.toContain(r.reasoning.slice(0, 20));
    expect(r.lastReasoning).toBeLessThan(r.firstAnswer);
    const u = r.usage as { completion_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
    expect(u.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(u.completion_tokens_details.reasoning_tokens).toBeLessThanOrEqual(u.completion_tokens);
  });

  it('CHAT-STREAM-048: under legal-reasoning-field the reasoning comes as delta.reasoning, and the openai SDK content is the answer alone', async () => {
    const res = await c.chat({ ...chat({ model: 'iari-reasoner' }), stream: true }, { headers: { 'x-iari-fault': 'legal-reasoning-field' } });
    const text = await res.text();
    expect(text).toContain('"reasoning":"');
    expect(text).not.toContain('"reasoning_content"');
    const sdk = new OpenAI({ baseURL: c.server.url, apiKey: c.server.tokens.default, maxRetries: 0 });
    const done = await sdk.chat.completions.stream({ ...(chat({ model: 'iari-reasoner' }) as { model: string; messages: [] }) }).finalChatCompletion();
    expect(done.choices[0]?.message.content ?? '').not.toMatch(/<think>|The user asks/);
  });

  it('CHAT-STREAM-048, CHAT-STREAM-049: the faults leak the reasoning into content and move it after the answer', async () => {
    expect((await streamed('reasoning-leaked')).content).toContain('<think>');
    const late = await streamed('reasoning-after-content');
    expect(late.lastReasoning).toBeGreaterThan(late.firstAnswer);
  });

  it('CHAT-STREAM-048: other models do not reason', async () => {
    const res = await c.chat({ ...chat(), stream: true });
    expect(await res.text()).not.toMatch(/"reasoning(_content)?"/);
  });
});

async function tokensThisMonth(): Promise<number> {
  const me = (await (await c.get('/me')).json()) as { usage: { tokens_this_month: number } };
  return me.usage.tokens_this_month;
}

/** The ledger's growth after `send`, read once it moved (the ledger settles after the body is written), within 2 s. */
async function ledgerGrowth(send: () => Promise<unknown>): Promise<number> {
  const before = await tokensThisMonth();
  await send();
  for (let i = 0; i < 40; i++) {
    const now = await tokensThisMonth();
    if (now !== before) return now - before;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 0;
}

interface Usage {
  total_tokens: number;
  completion_tokens: number;
  completion_tokens_details?: { reasoning_tokens?: number };
}

describe('the reasoning model in usage and the ledger', () => {
  it('CHAT-STREAM-050: a non-streamed iari-reasoner answer reports the reasoning_tokens the streamed one does, and the ledger counts them both', async () => {
    let plain: Usage | undefined;
    const plainGrowth = await ledgerGrowth(async () => {
      plain = ((await (await c.chat(chat({ model: 'iari-reasoner' }))).json()) as { usage: Usage }).usage;
    });
    let streamedUsage: Usage | undefined;
    const streamGrowth = await ledgerGrowth(async () => {
      streamedUsage = (await streamed()).usage as Usage;
    });
    expect(plain?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    expect(plain?.completion_tokens_details?.reasoning_tokens).toBe(streamedUsage?.completion_tokens_details?.reasoning_tokens);
    expect(plainGrowth).toBe(plain?.total_tokens);
    expect(streamGrowth).toBe(streamedUsage?.total_tokens);
  });

  it('CHAT-039: reasoning_effort low reasons less than the default, high more, and none not at all', async () => {
    const reasoningTokens = async (effort?: string, fault?: string): Promise<number | undefined> => {
      const res = await c.chat(chat({ model: 'iari-reasoner', ...(effort === undefined ? {} : { reasoning_effort: effort }) }), { headers: fault === undefined ? {} : { 'x-iari-fault': fault } });
      return ((await res.json()) as { usage: Usage }).usage.completion_tokens_details?.reasoning_tokens;
    };
    const [low, medium, high] = [await reasoningTokens('low'), await reasoningTokens(), await reasoningTokens('high')];
    expect(low).toBeLessThan(medium ?? 0);
    expect(medium).toBeLessThan(high ?? 0);
    expect(await reasoningTokens('none')).toBeUndefined();
    expect(await reasoningTokens('low', 'reasoning-effort-ignored')).toBe(await reasoningTokens('high', 'reasoning-effort-ignored'));
    expect(await reasoningTokens('low', 'reasoning-effort-inverted')).toBeGreaterThan((await reasoningTokens('high', 'reasoning-effort-inverted')) ?? Infinity);
  });
});
