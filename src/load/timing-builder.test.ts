import { describe, expect, it } from 'vitest';
import { TimingBuilder } from './timing-builder.ts';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = (n: number): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: n, total_tokens: 3 + n } })}\n\n`;

function run(body: string): ReturnType<TimingBuilder['end']> {
  const b = new TimingBuilder(true);
  b.headers(200, 'text/event-stream');
  b.feed(Buffer.from(body), 1n);
  return b.end(2n);
}

describe('TimingBuilder tokens', () => {
  it('D-LOAD-03: a conforming stream is counted by its usage, split over its token-bearing events', () => {
    const part = run(`${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'hello there, ' })}${chunk({ content: 'general kenobi' })}${chunk({}, 'stop')}${usage(6)}data: [DONE]\n\n`);
    expect(part.error).toBeNull();
    expect(part.tokenSource).toBe('usage');
    expect(part.tokenEvents.reduce((a, e) => a + e.tokens, 0)).toBe(6);
  });

  it('D-LOAD-03: a failed stream is never a sample, so the client tokenizer does not run on it (a 7 MB answer cost it 1 s)', () => {
    const part = run(`${chunk({ content: 'no role in the first delta' })}data: [DONE]\n\n`);
    expect(part.error?.detail).toMatch(/CHAT-STREAM-014/);
    expect(part.tokenSource).toBe('none');
    expect(part.outputTokens).toBe(0);
  });

  it('D-LOAD-03: a failed stream still reports the server usage it carried', () => {
    const part = run(`${chunk({ content: 'no role' })}${usage(7)}data: [DONE]\n\n`);
    expect(part.error).not.toBeNull();
    expect(part.tokenSource).toBe('usage');
    expect(part.outputTokens).toBe(7);
  });
});
