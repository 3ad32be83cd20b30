import { describe, expect, it } from 'vitest';
import { CancelWatch, cancelPointFor, parseCancelAfter, type CancelPlan } from './cancellation.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

const tally = () => defaultProtocols[0].outputTally();

const plan = (rate: number, text: string): CancelPlan => ({ rate, after: parseCancelAfter(text) ?? { kind: 'decode' }, text });
const sse = (delta: Record<string, unknown>): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

describe('--cancel-after and the seeded choice of requests to cut', () => {
  it('LOAD-CANCEL: --cancel-after reads a duration, Ntokens, prefill and decode, and refuses anything else', () => {
    expect(parseCancelAfter('500ms')).toEqual({ kind: 'ms', ms: 500 });
    expect(parseCancelAfter('2s')).toEqual({ kind: 'ms', ms: 2000 });
    expect(parseCancelAfter('16tokens')).toEqual({ kind: 'tokens', n: 16 });
    expect(parseCancelAfter('1token')).toEqual({ kind: 'tokens', n: 1 });
    expect(parseCancelAfter('prefill')).toEqual({ kind: 'prefill' });
    expect(parseCancelAfter('decode')).toEqual({ kind: 'decode' });
    for (const bad of ['', 'soon', '0tokens', '0ms', '-5ms', 'tokens', '2h']) expect(parseCancelAfter(bad), bad).toBeNull();
  });

  it('LOAD-CANCEL: the same seed cuts the same requests at the same points; the share cut follows the rate; another seed cuts others', () => {
    const p = plan(0.3, 'decode');
    const points = (seed: number): string[] => Array.from({ length: 10_000 }, (_, seq) => JSON.stringify(cancelPointFor(p, seed, seq, 64)));
    const a = points(1);
    expect(points(1)).toEqual(a);
    const cut = a.filter((x) => x !== 'null').length;
    expect(cut / a.length).toBeGreaterThan(0.28);
    expect(cut / a.length).toBeLessThan(0.32);
    expect(points(2)).not.toEqual(a);
    // decode: after k tokens, k from 1 to max_tokens - 1, and the points spread over that range.
    const ks = a.filter((x) => x !== 'null').map((x) => (JSON.parse(x) as { tokens: number }).tokens);
    expect(Math.min(...ks)).toBe(1);
    expect(Math.max(...ks)).toBe(63);
    expect(cancelPointFor(plan(1, 'prefill'), 1, 5, 64)).toEqual({ kind: 'prefill' });
    expect(cancelPointFor(plan(1, '250ms'), 1, 5, 64)).toEqual({ kind: 'ms', ms: 250 });
    expect(cancelPointFor(plan(1, '7tokens'), 1, 5, 64)).toEqual({ kind: 'tokens', tokens: 7 });
  });

  it('LOAD-CANCEL: tokens are the events carrying text, reasoning or a tool call, counted across reads split anywhere (a multi-byte character included)', () => {
    const stream = sse({ role: 'assistant' }) + sse({ content: 'é' }) + sse({ content: '' }) + sse({ reasoning_content: 'hm' }) + sse({ tool_calls: [{ index: 0, function: { arguments: '{' } }] }) + `data: ${JSON.stringify({ choices: [], usage: { completion_tokens: 3 } })}\n\n` + 'data: [DONE]\n\n';
    const bytes = Buffer.from(stream);
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const t = tally();
      t.feed(bytes.subarray(0, cut));
      expect(t.feed(bytes.subarray(cut))).toBe(3);
    }
  });

  it('LOAD-CANCEL: a watch cuts once at its point: at the head for prefill, at the Nth token, after a duration; never after the request ended', async () => {
    const cuts: number[] = [];
    const prefill = new CancelWatch({ kind: 'prefill' }, tally, (n) => cuts.push(n));
    prefill.head();
    prefill.head();
    const tokens = new CancelWatch({ kind: 'tokens', tokens: 2 }, tally, (n) => cuts.push(n));
    tokens.data(Buffer.from(sse({ content: 'a' })));
    expect(cuts).toEqual([0]);
    tokens.data(Buffer.from(sse({ content: 'b' }) + sse({ content: 'c' })));
    tokens.data(Buffer.from(sse({ content: 'd' })));
    expect(cuts).toEqual([0, 3]);
    const timed = new CancelWatch({ kind: 'ms', ms: 20 }, tally, (n) => cuts.push(n));
    timed.data(Buffer.from(sse({ content: 'a' })));
    const ended = new CancelWatch({ kind: 'ms', ms: 20 }, tally, (n) => cuts.push(-n));
    ended.dispose();
    await new Promise((r) => setTimeout(r, 60));
    expect(cuts).toEqual([0, 3, 1]);
  });
});
