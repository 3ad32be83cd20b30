import { describe, expect, it } from 'vitest';
import { checkScope, TimingBuilder } from './timing-builder.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

const scope = checkScope(defaultProtocols);
const streamed = { api: 'chat-completions', stream: true, includeUsage: true };
const whole = { api: 'chat-completions', stream: false };

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = (n: number): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: n, total_tokens: 3 + n } })}\n\n`;

function run(body: string): ReturnType<TimingBuilder['end']> {
  const b = new TimingBuilder(true, streamed, scope);
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

describe('TimingBuilder reasoning', () => {
  const usageWith = (n: number, reasoning?: number): string =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: n, total_tokens: 3 + n, ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }) } })}\n\n`;
  const timed = (events: [string, bigint][]): ReturnType<TimingBuilder['end']> => {
    const b = new TimingBuilder(true, streamed, scope);
    b.headers(200, 'text/event-stream');
    for (const [e, at] of events) b.feed(Buffer.from(e), at);
    return b.end(100n);
  };

  for (const field of ['reasoning_content', 'reasoning']) {
    it(`LOAD-REASONING: delta.${field} events are token events of their own kind, first in time; usage reasoning_tokens splits the total`, () => {
      const part = timed([
        [chunk({ role: 'assistant', content: '' }), 1n],
        [chunk({ [field]: 'Think about' }), 10n],
        [chunk({ [field]: ' the question.' }), 20n],
        [chunk({ content: 'Hello' }), 50n],
        [chunk({ content: ' there' }), 60n],
        [chunk({}, 'stop') + usageWith(9, 5) + 'data: [DONE]\n\n', 70n],
      ]);
      expect(part.error).toBeNull();
      expect(part.tokenEvents.map((e) => [e.atNs, e.reasoning === true])).toEqual([
        [10n, true],
        [20n, true],
        [50n, false],
        [60n, false],
      ]);
      expect(part.reasoningTokens).toBe(5);
      expect(part.reasoningSource).toBe('usage');
      expect(part.tokenEvents.filter((e) => e.reasoning === true).reduce((a, e) => a + e.tokens, 0)).toBe(5);
      expect(part.tokenEvents.reduce((a, e) => a + e.tokens, 0)).toBe(9);
    });
  }

  it('LOAD-REASONING: without completion_tokens_details the reasoning tokens are counted with the client tokenizer', () => {
    const part = timed([
      [chunk({ role: 'assistant', content: '' }), 1n],
      [chunk({ reasoning_content: 'one two three' }), 10n],
      [chunk({ content: 'four' }), 20n],
      [chunk({}, 'stop') + usageWith(4) + 'data: [DONE]\n\n', 30n],
    ]);
    expect(part.reasoningSource).toBe('tokenizer');
    expect(part.reasoningTokens).toBe(3);
    expect(part.tokenEvents.map((e) => e.tokens)).toEqual([3, 1]);
  });

  it('LOAD-REASONING: a stream without reasoning has no reasoning figures', () => {
    const part = timed([[`${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'hi' })}${chunk({}, 'stop')}${usageWith(1)}data: [DONE]\n\n`, 1n]]);
    expect(part.reasoningTokens).toBeUndefined();
    expect(part.tokenEvents.every((e) => e.reasoning === undefined)).toBe(true);
  });
});

describe('TimingBuilder tool calls', () => {
  const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

  it('LOAD-TOOLS: the latency to the first tool call is the arrival of the first tool-call delta, not of the text before it', () => {
    const b = new TimingBuilder(true, streamed, scope);
    b.headers(200, 'text/event-stream');
    const reads = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Let me check that.' }), chunk({ tool_calls: [call] }), chunk({}, 'tool_calls'), `${usage(9)}data: [DONE]\n\n`];
    reads.forEach((r, i) => b.feed(Buffer.from(r), BigInt(100 * (i + 1))));
    const part = b.end(1000n);
    expect(part.tokenEvents[0]?.atNs, 'TTFT: the text').toBe(200n);
    expect(part.extras?.toolCalls?.map((c) => c.name)).toEqual(['get_weather']);
    expect(part.extras?.firstToolCallNs).toBe(300n);
  });

  it('LOAD-TOOLS: a whole answer carries its tool calls at its end, and an answer without calls has no first-call time', () => {
    const wholeB = new TimingBuilder(false, whole, scope);
    wholeB.headers(200, 'application/json');
    wholeB.feed(Buffer.from(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } })), 50n);
    expect(wholeB.end(70n).extras?.firstToolCallNs).toBe(70n);
    const plain = run(`${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'hi' })}${chunk({}, 'stop')}${usage(1)}data: [DONE]\n\n`);
    expect(plain.extras?.firstToolCallNs).toBeUndefined();
  });

  it('LOAD-TOOLS: an answer that ended at its output bound (finish_reason "length") says so to the collector, streamed or whole; one that stopped does not (issue 43)', () => {
    const cutCall = { ...call, function: { name: 'get_weather', arguments: '{"city":"Pa' } };
    const streamedCut = run(`${chunk({ role: 'assistant', content: '' })}${chunk({ tool_calls: [cutCall] })}${chunk({}, 'length')}${usage(8)}data: [DONE]\n\n`);
    expect(streamedCut.extras?.cutAtLimit).toBe(true);
    const wholeB = new TimingBuilder(false, whole, scope);
    wholeB.headers(200, 'application/json');
    wholeB.feed(Buffer.from(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [cutCall] }, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } })), 50n);
    expect(wholeB.end(70n).extras?.cutAtLimit).toBe(true);
    const stopped = run(`${chunk({ role: 'assistant', content: '' })}${chunk({ tool_calls: [call] })}${chunk({}, 'tool_calls')}${usage(8)}data: [DONE]\n\n`);
    expect(stopped.extras?.cutAtLimit).toBeUndefined();
  });
});
