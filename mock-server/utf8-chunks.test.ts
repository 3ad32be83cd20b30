import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createCore } from './core/handler.ts';
import { faultNames } from './faults.ts';
import type { MockResponse } from './core/types.ts';
import { chunksOf, parseSse, startClient } from '../test-support/mock-client.ts';

const SEEDS = 64;
const PROMPTS = ['Say something.', 'Tell me about 🚀 and 日本語.', 'Grüße aus Zürich', 'ok', '👩‍💻🎉 emoji only', 'x'.repeat(300)];
const encoder = new TextEncoder();

interface Request {
  seed: number;
  prompt: string;
  maxTokens: number | null;
  pattern: number[];
  completionTokens: number;
  n: number;
  toolResult: string | null;
}

function body(r: Request, stream: boolean): Uint8Array {
  const messages: unknown[] = [{ role: 'user', content: r.prompt }];
  if (r.toolResult !== null) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] });
    messages.push({ role: 'tool', tool_call_id: 'call_1', content: r.toolResult });
  }
  const json: Record<string, unknown> = { model: 'iari-mini', messages, n: r.n, stream };
  if (r.maxTokens !== null) json['max_tokens'] = r.maxTokens;
  return encoder.encode(JSON.stringify(json));
}

function send(core: ReturnType<typeof createCore>, payload: Uint8Array): MockResponse {
  const headers = { authorization: `Bearer ${core.tokens().default}`, 'content-type': 'application/json' };
  return core.handle({ method: 'POST', path: '/v1/chat/completions', query: new URLSearchParams(), headers, body: payload });
}

/** Joined content deltas per choice index, and whether any single delta held U+FFFD. */
function streamedTexts(eventsData: readonly string[]): { texts: string[]; replacement: boolean } {
  const texts: string[] = [];
  let replacement = false;
  for (const chunk of chunksOf(parseSse(eventsData.join('')))) {
    for (const choice of (chunk['choices'] ?? []) as { index: number; delta: { content?: string | null } }[]) {
      const delta = choice.delta.content;
      if (typeof delta !== 'string') continue;
      if (delta.includes('\uFFFD')) replacement = true;
      texts[choice.index] = (texts[choice.index] ?? '') + delta;
    }
  }
  return { texts, replacement };
}

const request = fc.record({
  seed: fc.integer({ min: 0, max: SEEDS }),
  prompt: fc.oneof(fc.constantFrom(...PROMPTS), fc.string({ unit: 'grapheme', maxLength: 40 })),
  maxTokens: fc.option(fc.integer({ min: 1, max: 64 }), { nil: null }),
  pattern: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
  completionTokens: fc.integer({ min: 1, max: 120 }),
  n: fc.integer({ min: 1, max: 2 }),
  toolResult: fc.option(fc.constantFrom('🚀'.repeat(30), `${'a'.repeat(39)}🚀 rest`, '日本語の結果'), { nil: null }),
});

describe('multi-byte characters across chunk boundaries', () => {
  it('CHAT-STREAM-001: streamed deltas hold no U+FFFD and join to exactly the non-streamed content, for any seed, prompt, max_tokens and tokens-per-chunk', () => {
    fc.assert(
      fc.property(request, (r: Request) => {
        const options = { seed: r.seed, tokensPerChunk: r.pattern, completionTokens: r.completionTokens, limits: false, receipts: null };
        const core = createCore(options, faultNames);
        const full = send(core, body(r, false));
        const streamed = send(core, body(r, true));
        if (full.kind !== 'full' || streamed.kind !== 'stream') throw new Error('unexpected response kinds');
        expect(full.status).toBe(200);
        const parsed = JSON.parse(typeof full.body === 'string' ? full.body : new TextDecoder().decode(full.body)) as {
          choices: { index: number; message: { content: string } }[];
          usage: { completion_tokens: number };
        };
        const { texts, replacement } = streamedTexts(streamed.events.map((e) => e.data));
        expect(replacement).toBe(false);
        expect(parsed.choices).toHaveLength(r.n);
        for (const choice of parsed.choices) {
          expect(choice.message.content.includes('\uFFFD')).toBe(false);
          expect(texts[choice.index] ?? '').toBe(choice.message.content);
        }
        // Usage counts the real tokens: the same in both modes.
        const usage = streamed.events.map((e) => e.data).find((d) => d.includes('"usage":{'));
        if (usage !== undefined) expect(JSON.parse(usage.slice(6))['usage'].completion_tokens).toBe(parsed.usage.completion_tokens);
      }),
      { numRuns: 150 },
    );
  });

  it('CHAT-STREAM-001: over HTTP, seeds 0..24 with an uneven tokens-per-chunk pattern give identical valid text both ways', async () => {
    for (let seed = 0; seed <= 24; seed++) {
      const c = await startClient({ seed, tokensPerChunk: [1, 2, 3], completionTokens: [16, 64] });
      try {
        for (const maxTokens of [null, 1, 2, 5, 11]) {
          const extra = maxTokens === null ? {} : { max_tokens: maxTokens };
          const req = { model: 'iari-mini', messages: [{ role: 'user', content: 'Tell me about 🚀.' }], ...extra };
          const full = (await (await c.chat(req)).json()) as { choices: { message: { content: string } }[] };
          const { texts, replacement } = streamedTexts([await (await c.chat({ ...req, stream: true, stream_options: { include_usage: true } })).text()]);
          const content = full.choices[0]?.message.content ?? '';
          expect(replacement).toBe(false);
          expect(content.includes('\uFFFD')).toBe(false);
          expect(texts[0]).toBe(content);
        }
      } finally {
        await c.close();
      }
    }
  });
});
