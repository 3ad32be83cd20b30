import { describe, expect, it } from 'vitest';
import { tokenizer } from '../../tokenizer.ts';
import { apportionTokens, boundedPieces, countTokens, LONG_RUN_CHARS, tokensByOffsets } from './token-count.ts';

describe('splitting the usage total over token-bearing events', () => {
  it('keeps the exact total and at least one token per event', () => {
    for (const [weights, total] of [[[1, 2, 1, 2], 6], [[10, 1, 1], 5], [[3, 3, 3], 10], [[1, 1, 1, 1], 4], [[5], 9]] as const) {
      const k = apportionTokens(weights, total);
      expect(k.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.min(...k)).toBeGreaterThanOrEqual(1);
    }
  });

  it('reproduces the per-event counts when the weights are the true counts', () => {
    expect(apportionTokens([1, 2, 1, 2, 3], 9)).toEqual([1, 2, 1, 2, 3]);
  });

  it('gives the first events one token each when the total is smaller than the event count', () => {
    expect(apportionTokens([4, 4, 4], 2)).toEqual([1, 1, 0]);
  });
});

describe('token counts per event from one tokenization of the whole text', () => {
  it('assigns each token to the event holding its first character, where fragment-wise counting is wrong', async () => {
    const { tokensByOffsets, countTokens } = await import('./token-count.ts');
    const fragments = [' sim', 'ple', ' harbor', ' lantern'];
    const whole = tokensByOffsets(fragments.join(''), fragments.map((f) => f.length));
    expect(whole).not.toBeNull();
    expect(whole!.reduce((a, b) => a + b, 0)).toBe(countTokens(fragments.join('')));
    expect(whole![1]).toBe(0);
  });
});

describe('long runs without a space', () => {
  it('are split into pieces of at most LONG_RUN_CHARS characters, so BPE never sees a pre-token longer than that (one 7 MB word stalled the checker)', () => {
    const pieces = boundedPieces(`hello ${'a'.repeat(1000)} world`);
    expect(pieces.join('')).toBe(`hello ${'a'.repeat(1000)} world`);
    expect(Math.max(...pieces.map((p) => Math.max(...p.split(/\s+/).map((w) => w.length))))).toBeLessThanOrEqual(LONG_RUN_CHARS);
    expect(boundedPieces('ordinary text, short words')).toEqual(['ordinary text, short words']);
  });

  it('are counted in pieces with the count of the whole where BPE merges within the piece length', () => {
    expect(countTokens('a'.repeat(2048))).toBe(tokenizer().countTokens('a'.repeat(2048)));
    expect(tokensByOffsets('a'.repeat(1000), [500, 500])).toBeNull();
  });
});
