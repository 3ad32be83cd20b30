import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../index.ts';
import { PrefixCache } from './prefix-cache.ts';
import type { AskMessage as ChatMessage } from '../../src/protocols/protocol-mock.ts';

const msg = (role: ChatMessage['role'], text: string): ChatMessage => ({ role, text, toolCalls: [], toolCallId: null });
const words = (n: number, seed: string): string => Array.from({ length: n }, (_, i) => `${seed}${i % 7} time`).join(' ');

describe('mock prefix cache (LRU of chained token-block hashes)', () => {
  it('LOAD-PREFIX: a second prompt with the same system prefix is served from the cache up to the last full shared block', () => {
    const c = new PrefixCache({ blockTokens: 16, capacityBlocks: 1000 });
    const system = msg('system', words(100, 'alpha'));
    const first = c.admit('a', [system, msg('user', 'one question')], 400);
    expect(first.cachedTokens).toBe(0);
    const second = c.admit('b', [system, msg('user', 'another question entirely')], 400);
    const prefixIds = c.tokenIds([system]).length;
    expect(second.cachedTokens).toBe(Math.floor(prefixIds / 16) * 16);
    expect(second.cachedTokens).toBeGreaterThan(0);
    expect(c.stats().cachedTokens).toBe(second.cachedTokens);
  });

  it('LOAD-PREFIX: blocks are chained, so a prompt whose first block differs hits nothing even when later text repeats', () => {
    const c = new PrefixCache({ blockTokens: 8, capacityBlocks: 1000 });
    const tail = msg('user', words(80, 'beta'));
    c.admit('a', [msg('system', 'first system prompt here'), tail], 300);
    const other = c.admit('b', [msg('system', 'a different system prompt'), tail], 300);
    expect(other.cachedTokens).toBe(0);
  });

  it('LOAD-PREFIX: the LRU holds capacityBlocks blocks, so a prefix evicted by others misses again', () => {
    const p = [msg('system', words(20, 'gamma')), msg('user', 'x')];
    const blocks = Math.floor((new PrefixCache({ blockTokens: 4, capacityBlocks: 1 }).tokenIds(p).length - 1) / 4);
    const c = new PrefixCache({ blockTokens: 4, capacityBlocks: blocks + 2 });
    c.admit('a', p, 100);
    expect(c.admit('b', p, 100).cachedTokens).toBe(blocks * 4);
    for (let i = 0; i < 5; i++) c.admit(`f${i}`, [msg('system', words(20, `filler${i}-`)), msg('user', 'y')], 100);
    expect(c.stats().blocks).toBe(blocks + 2);
    expect(c.stats().evictions).toBeGreaterThan(0);
    expect(c.admit('c', p, 100).cachedTokens).toBe(0);
  });

  it('LOAD-PREFIX: prefill time is proportional to the uncached prompt tokens', () => {
    const c = new PrefixCache({ blockTokens: 16, capacityBlocks: 100, prefillMsPerToken: 0.5 });
    const p = [msg('system', words(60, 'delta')), msg('user', 'q')];
    const miss = c.admit('a', p, 200);
    const hit = c.admit('b', p, 200);
    expect(miss.prefillMs).toBe(100);
    expect(hit.prefillMs).toBe((200 - hit.cachedTokens) * 0.5);
    expect(hit.prefillMs).toBeLessThan(miss.prefillMs);
  });
});

describe('mock with a prefix cache over HTTP', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ receipts: false, limits: false, seed: 2, ttftMs: 5, itlMs: 0, completionTokens: 4, prefixCache: { blockTokens: 16, capacityBlocks: 4096, prefillMsPerToken: 0.2 } });
  });
  afterAll(() => mock.close());

  const send = async (system: string, user: string, stream: boolean): Promise<{ usage: Record<string, unknown>; id: string; ms: number }> => {
    const t0 = performance.now();
    const res = await fetch(`${mock.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mock.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'system', content: system }, { role: 'user', content: user }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) }),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    const id = res.headers.get('x-request-id') ?? '';
    if (!stream) return { usage: (JSON.parse(text) as { usage: Record<string, unknown> }).usage, id, ms };
    const usageEvent = text.split('\n\n').map((e) => e.replace(/^data: /, '')).filter((e) => e.startsWith('{')).map((e) => JSON.parse(e) as { usage?: Record<string, unknown> | null }).find((e) => e.usage != null);
    return { usage: usageEvent?.usage ?? {}, id, ms };
  };

  it('LOAD-PREFIX: usage.prompt_tokens_details.cached_tokens says what the cache served, streamed or not, and equals the mock\'s log; a hit answers sooner', async () => {
    const system = words(300, 'epsilon');
    const miss = await send(system, 'first', true);
    const hit = await send(system, 'second', true);
    const whole = await send(system, 'third', false);
    const details = (u: Record<string, unknown>): number => (u['prompt_tokens_details'] as { cached_tokens: number }).cached_tokens;
    expect(details(miss.usage)).toBe(0);
    expect(details(hit.usage)).toBeGreaterThan(500);
    expect(details(whole.usage)).toBe(details(hit.usage));
    expect(mock.core.state.prefixCache?.record(hit.id)?.cachedTokens).toBe(details(hit.usage));
    // 0.2 ms per uncached token: the miss pays for about 600 more tokens, about 120 ms.
    expect(miss.ms - hit.ms).toBeGreaterThan(60);
  });
});
