import { tokenizer } from '../../tokenizer.ts';

/** What of gpt-tokenizer 4's encoder (cjs/BytePairEncodingCore.js) the piecewise count uses. */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
}

let core: BpeCore | null | undefined;

/** The encoder behind `encode`, or null when this gpt-tokenizer does not have the members used here. */
function bpeCore(): BpeCore | null {
  if (core !== undefined) return core;
  const api = (tokenizer() as unknown as { default?: { bytePairEncodingCoreProcessor?: Partial<BpeCore> } }).default;
  const c = api?.bytePairEncodingCoreProcessor;
  core = c !== undefined && c.tokenSplitRegex instanceof RegExp && typeof c.getBpeRankFromString === 'function' && typeof c.bytePairEncode === 'function' ? (c as BpeCore) : null;
  return core;
}

/**
 * The same counts as tokenizing the whole text with `encode` and walking `decodeGenerator` over
 * every token (tokensByOffsets), without decoding the tokens that are whole pieces: `encode` splits
 * the text with the encoder's own pattern and takes a piece that is one token as is, so that token
 * starts where the piece does (the match's index). Only a piece of several tokens is decoded, to
 * find where each of its tokens starts. At the load ceiling the decode walk was a third of the
 * split's time (issue 41).
 * undefined: this text or this tokenizer needs the whole walk (a special token's text, which
 * `encode` refuses; an encoder without these members).
 */
export function tokensByPieces(text: string, eventChars: readonly number[]): number[] | null | undefined {
  const c = bpeCore();
  if (c === null || text.includes('<|')) return undefined;
  const { decodeGenerator } = tokenizer();
  const counts = new Array<number>(eventChars.length).fill(0);
  const last = eventChars.length - 1;
  let ev = 0;
  let evEnd = eventChars[0] ?? 0;
  const assign = (at: number): void => {
    while (ev < last && at >= evEnd) evEnd += eventChars[++ev] ?? 0;
    counts[ev] = (counts[ev] ?? 0) + 1;
  };
  let covered = 0;
  for (const m of text.matchAll(c.tokenSplitRegex)) {
    const piece = m[0];
    const at = m.index;
    // encode's pieces cover the text end to end; anything else is not what it would have counted.
    if (at !== covered) return null;
    covered = at + piece.length;
    if (c.getBpeRankFromString(piece) !== undefined) {
      assign(at);
      continue;
    }
    const ids = c.bytePairEncode(piece);
    let pos = at;
    let n = 0;
    for (const s of decodeGenerator(ids)) {
      n++;
      assign(pos);
      pos += s.length;
    }
    if (n !== ids.length || pos !== covered) return null;
  }
  return covered === text.length ? counts : null;
}
