import { describe, expect, it } from 'vitest';
import { tokensByPieces } from './token-offsets.ts';
import { tokensByDecoding } from './token-count.ts';

/** Texts whose pieces are one token, several tokens, multi-byte, astral, or split mid-word by the events. */
const TEXTS = [
  'And привет and the harbor lantern',
  " simple harbor lantern, isn't it? They'll say: 12345 + 678 = 13023.\n\n  indented\tline",
  'emoji 😀👍🏽 and 漢字かなカナ mixed with العربية and עברית',
  'antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  '   spaces   \r\n\r\n trailing   ',
  'x',
];

/** Every way to cut a text into events: at each character, every third one, and odd sizes. */
function cuts(text: string): number[][] {
  const out: number[][] = [[text.length], Array.from(text, () => 1).slice(0, text.length)];
  for (const size of [2, 3, 5, 7]) {
    const chars: number[] = [];
    for (let at = 0; at < text.length; at += size) chars.push(Math.min(size, text.length - at));
    out.push(chars);
  }
  return out;
}

describe('token counts per event without decoding whole-piece tokens', () => {
  it('D-LOAD-03: give the same counts as decoding every token of the whole text, for every cut of varied texts', () => {
    let compared = 0;
    for (const text of TEXTS) {
      for (const chars of cuts(text)) {
        // UTF-16 lengths: one character per code unit, as the stream checker counts them.
        if (chars.reduce((a, b) => a + b, 0) !== text.length) continue;
        const fast = tokensByPieces(text, chars);
        expect(fast).not.toBeUndefined();
        expect(fast).toEqual(tokensByDecoding(text, chars));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('D-LOAD-03: leave a text holding a special token to the whole walk (encode refuses it)', () => {
    expect(tokensByPieces('before <|endoftext|> after', [7, 13, 6])).toBeUndefined();
  });

  it('D-LOAD-03: assign a several-token piece to the events holding each token start', () => {
    // One word of several tokens cut in the middle: its later tokens belong to the second event.
    const text = 'pneumonoultramicroscopicsilicovolcanoconiosis';
    const counts = tokensByPieces(text, [20, text.length - 20]);
    expect(counts).toEqual(tokensByDecoding(text, [20, text.length - 20]));
    expect(counts![1]).toBeGreaterThan(0);
  });
});
