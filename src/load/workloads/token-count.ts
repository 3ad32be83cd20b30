import { tokenizer } from '../../tokenizer.ts';
import { tokensByPieces } from './token-offsets.ts';

/**
 * A run of this many characters without a space is counted in pieces of this length: BPE over one
 * pre-token costs time quadratic in its length (10,000 'a's took 3 s, 100,000 took 21 s), so a
 * server sending one 7 MB word would stall the checker for hours. Real text has no such runs; a
 * piece boundary adds at most one token to the count.
 */
export const LONG_RUN_CHARS = 256;

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x1680 || c === 0x202f || c === 0x205f || c === 0xfeff;

/** The text split so that no piece holds a run of more than LONG_RUN_CHARS characters without a space (one linear scan). */
export function boundedPieces(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) {
      run = 0;
      continue;
    }
    if (++run > LONG_RUN_CHARS) {
      out.push(text.slice(from, i));
      from = i;
      run = 1;
    }
  }
  if (out.length === 0) return [text];
  out.push(text.slice(from));
  return out;
}

/** Client-side token count of one event's text (o200k BPE); at least 1 for a token-bearing event. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const t = tokenizer();
  let n = 0;
  for (const piece of boundedPieces(text)) n += t.countTokens(piece);
  return Math.max(1, n);
}

/**
 * Splits the server's `usage.completion_tokens` total over the token-bearing events, in
 * proportion to the client tokenizer's counts (largest remainder), every event keeping at
 * least one token while the total allows it (D-LOAD-03). Deterministic for equal inputs.
 */
export function apportionTokens(weights: readonly number[], total: number): number[] {
  const n = weights.length;
  if (n === 0) return [];
  if (total <= 0) return weights.map(() => 0);
  if (total <= n) return weights.map((_, i) => (i < total ? 1 : 0));
  const out = weights.map(() => 1);
  const rest = total - n;
  const w = weights.map((x) => Math.max(0, x - 1));
  const sum = w.reduce((a, b) => a + b, 0);
  const share = sum === 0 ? weights.map(() => rest / n) : w.map((x) => (x / sum) * rest);
  let given = 0;
  for (let i = 0; i < n; i++) {
    const f = Math.floor(share[i] ?? 0);
    out[i] = (out[i] ?? 1) + f;
    given += f;
  }
  const order = share.map((s, i) => ({ r: s - Math.floor(s), i })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let j = 0; given < rest; j++, given++) {
    const idx = order[j % n]?.i ?? 0;
    out[idx] = (out[idx] ?? 0) + 1;
  }
  return out;
}


/**
 * Token counts per event from ONE tokenization of the whole output: each token is assigned to
 * the event holding its first character. Tokenizing each fragment alone would miscount (BPE
 * merges across fragment boundaries); servers stream whole tokens, so boundaries line up.
 * Returns null when the decoded pieces do not line up with the text (then callers fall back).
 */
export function tokensByOffsets(text: string, eventChars: readonly number[]): number[] | null {
  // A run too long to encode in bounded time (see LONG_RUN_CHARS): callers apportion by characters.
  if (boundedPieces(text).length > 1) return null;
  // Where the piecewise count is not conclusive, the whole walk decides (the same answer, slower).
  return tokensByPieces(text, eventChars) ?? tokensByDecoding(text, eventChars);
}

/** tokensByOffsets by decoding every token of the whole text's encoding (the reference tokensByPieces is held to). */
export function tokensByDecoding(text: string, eventChars: readonly number[]): number[] | null {
  const { encode, decodeGenerator } = tokenizer();
  const ids = encode(text);
  const counts = eventChars.map(() => 0);
  let ev = 0;
  let evEnd = eventChars[0] ?? 0;
  let pos = 0;
  let pieces = 0;
  for (const piece of decodeGenerator(ids)) {
    pieces++;
    while (ev < eventChars.length - 1 && pos >= evEnd) {
      ev++;
      evEnd += eventChars[ev] ?? 0;
    }
    counts[ev] = (counts[ev] ?? 0) + 1;
    pos += piece.length;
  }
  if (pieces !== ids.length || pos !== text.length) return null;
  return counts;
}
