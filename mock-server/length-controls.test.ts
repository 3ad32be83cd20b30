import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, chunksOf, parseSse, startClient, type Client } from '../test-support/mock-client.ts';

/**
 * The mock as a target for token-length workloads: max_tokens caps the answer, and the vLLM
 * sampling extensions ignore_eos (run to max_tokens) and min_tokens (no end before N) move the
 * answer's natural end, so the latency model (one step per chunk) follows the asked length.
 */
let c: Client;
beforeAll(async () => {
  // Natural answers of 16-48 tokens, as in iari load's in-process mock.
  c = await startClient({ seed: 3, limits: false, completionTokens: [16, 48], ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(() => c.close());

async function usageOf(body: Record<string, unknown>): Promise<{ completion: number; finish: string }> {
  const res = await c.chat(chat(body));
  expect(res.status).toBe(200);
  const json = (await res.json()) as { usage: { completion_tokens: number }; choices: { finish_reason: string }[] };
  return { completion: json.usage.completion_tokens, finish: json.choices[0]?.finish_reason ?? '' };
}

describe('mock: output length controls', () => {
  it('without extensions an answer ends on its own (16-48 tokens) before a large max_tokens', async () => {
    for (let i = 0; i < 5; i++) {
      const u = await usageOf({ max_tokens: 400, messages: [{ role: 'user', content: `question ${i}` }] });
      expect(u.completion).toBeGreaterThanOrEqual(15);
      expect(u.completion).toBeLessThanOrEqual(48);
      expect(u.finish).toBe('stop');
    }
  });

  it('ignore_eos runs to max_tokens exactly, with finish_reason length, streamed or not', async () => {
    for (const max of [1, 50, 300, 1000]) {
      const u = await usageOf({ max_tokens: max, ignore_eos: true, messages: [{ role: 'user', content: `q ${max}` }] });
      expect(u.completion).toBeGreaterThanOrEqual(max - 1);
      expect(u.completion).toBeLessThanOrEqual(max);
      expect(u.finish).toBe('length');
    }
    const res = await c.chat(chat({ max_tokens: 200, max_completion_tokens: 200, ignore_eos: true, stream: true, stream_options: { include_usage: true } }));
    const chunks = chunksOf(parseSse(await res.text()));
    const usage = chunks.at(-1)?.['usage'] as { completion_tokens: number };
    expect(usage.completion_tokens).toBeGreaterThanOrEqual(199);
    expect(chunks.length).toBeGreaterThan(150);
  });

  it('min_tokens keeps the answer going to at least that many tokens, still capped by max_tokens', async () => {
    const u = await usageOf({ min_tokens: 120, max_tokens: 500, messages: [{ role: 'user', content: 'min' }] });
    expect(u.completion).toBeGreaterThanOrEqual(119);
    expect(u.completion).toBeLessThanOrEqual(121);
    expect(u.finish).toBe('stop');
    const capped = await usageOf({ min_tokens: 120, max_tokens: 60, messages: [{ role: 'user', content: 'min' }] });
    expect(capped.completion).toBeLessThanOrEqual(60);
    expect(capped.finish).toBe('length');
  });

  it('ignore_eos without max_tokens changes nothing; wrong types are a 400 naming the parameter', async () => {
    const u = await usageOf({ ignore_eos: true, messages: [{ role: 'user', content: 'plain' }] });
    expect(u.completion).toBeLessThanOrEqual(48);
    for (const body of [{ ignore_eos: 'yes' }, { min_tokens: -1 }, { min_tokens: 2.5 }]) {
      const res = await c.chat(chat(body));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(Object.keys(body)[0]);
    }
  });

  it('a longer asked answer takes longer: one ITL step per chunk', async () => {
    const slow = await startClient({ seed: 3, limits: false, completionTokens: [16, 48], ttftMs: 0, itlMs: 2, jitterMs: 0 });
    try {
      const time = async (max: number): Promise<number> => {
        const t0 = performance.now();
        const res = await slow.chat(chat({ max_tokens: max, ignore_eos: true, stream: true }));
        await res.text();
        return performance.now() - t0;
      };
      const short = await time(10);
      const long = await time(150);
      expect(long).toBeGreaterThan(short + 150);
    } finally {
      await slow.close();
    }
  });
});
