import { tokenizer } from '../../tokenizer.ts';

/** What of gpt-tokenizer 4's encoder (cjs/BytePairEncodingCore.js) the piecewise count uses. */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
}

let core: BpeCore | null | undefined;
let splitter: RegExp | undefined;

/** The encoder behind `encode`, or null when this gpt-tokenizer does not have the members used here. */
function bpeCore(): BpeCore | null {
  if (core !== undefined) return core;
  const c = (tokenizer() as unknown as { bytePairEncodingCoreProcessor?: Partial<BpeCore> }).bytePairEncodingCoreProcessor;
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
  return bySegments(c, text, eventChars);
}

const SPACE = 0x20;
const LETTER = /^\p{L}$/u;
const WHITESPACE = /^\s$/u;

/**
 * Whether the encoder's split of the whole text has a piece boundary at `at`: the character
 * before it is not whitespace and the text goes on with a space then a letter. Every alternative of
 * the split pattern (o200k: letter runs with an optional leading non-letter, digit runs, a
 * punctuation run with trailing CR, LF or slash, whitespace runs) ends at a space after a
 * non-whitespace character, and " letter..." begins a piece whatever came before; so the tokens
 * on each side are those of the side tokenized alone.
 */
function cleanBoundary(text: string, at: number): boolean {
  if (at === 0 || text.charCodeAt(at) !== SPACE) return false;
  const last = text.charCodeAt(at - 1);
  if (last < 0x80 ? last === SPACE || (last >= 0x09 && last <= 0x0d) : WHITESPACE.test(String.fromCharCode(last))) return false;
  const letter = text.codePointAt(at + 1);
  if (letter === undefined) return false;
  if (letter < 0x80) return (letter | 0x20) >= 0x61 && (letter | 0x20) <= 0x7a;
  return LETTER.test(String.fromCodePoint(letter));
}

/**
 * Each event text's count tokenized alone, as byPieces gives it (-1: its tokens do not line up with
 * its text, so neither would the whole text's): a stream repeats its words. Bounded, emptied when full.
 */
const alone = new Map<string, number>();
const ALONE_MAX = 50_000;

/** Only short texts are remembered (a word or a few), so the memory stays within ALONE_MAX x this. */
const ALONE_TEXT_MAX = 64;

function countAlone(c: BpeCore, text: string): number {
  let n = alone.get(text);
  if (n === undefined) {
    n = byPieces(c, text, [text.length])?.[0] ?? -1;
    if (text.length > ALONE_TEXT_MAX) return n;
    if (alone.size >= ALONE_MAX) alone.clear();
    // A copy: the slice would hold the whole answer's text alive as long as it is remembered.
    alone.set(Buffer.from(text, 'utf8').toString('utf8'), n);
  }
  return n;
}

/**
 * The text cut at its clean boundaries (cleanBoundary): an event alone between two of them is
 * counted alone (and remembered), a run of events joined by other boundaries is tokenized as one
 * text (byPieces). The same counts as one tokenization of the whole text.
 */
function bySegments(c: BpeCore, text: string, eventChars: readonly number[]): number[] | null {
  const n = eventChars.length;
  // Where each event's segment closes; with few clean boundaries the segments are runs, each
  // tokenized on its own at a cost per run: then the whole text in one pass is cheaper.
  const closes = new Uint8Array(n);
  let clean = 0;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const chars = eventChars[i] ?? 0;
    at += chars;
    if (i + 1 === n || (chars > 0 && cleanBoundary(text, at))) {
      closes[i] = 1;
      clean++;
    }
  }
  if (at !== text.length) return null;
  if (clean * 4 < n * 3) return byPieces(c, text, eventChars);
  const counts = new Array<number>(n).fill(0);
  let from = 0;
  let segAt = 0;
  at = 0;
  for (let i = 0; i < n; i++) {
    at += eventChars[i] ?? 0;
    if (closes[i] === 0) continue;
    if (i === from) {
      const k = countAlone(c, text.slice(segAt, at));
      if (k < 0) return null;
      counts[i] = k;
    } else {
      const part = byPieces(c, text.slice(segAt, at), eventChars.slice(from, i + 1));
      if (part === null) return null;
      for (let j = 0; j < part.length; j++) counts[from + j] = part[j] ?? 0;
    }
    from = i + 1;
    segAt = at;
  }
  return counts;
}

function byPieces(c: BpeCore, text: string, eventChars: readonly number[]): number[] | null {
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
  // A copy of the pattern made once, its lastIndex reset (matchAll would clone it on every call, a short
  // text's main cost; the encoder's own is never touched, its matchAll starts at the lastIndex it finds).
  const split = (splitter ??= new RegExp(c.tokenSplitRegex.source, c.tokenSplitRegex.flags.includes('g') ? c.tokenSplitRegex.flags : `${c.tokenSplitRegex.flags}g`));
  split.lastIndex = 0;
  for (let m = split.exec(text); m !== null; m = split.exec(text)) {
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
