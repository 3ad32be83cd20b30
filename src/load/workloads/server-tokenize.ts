import { request, type Dispatcher } from 'undici';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';

/**
 * `--tokenizer server`: the synthetic vocabulary counted by the server's own tokenizer before any
 * traffic, through llama.cpp's `POST /tokenize {"content": "..."}` → `{"tokens":[...]}` (the
 * server's root, not under /v1; guarded by its --api-key like every route). Every word is counted
 * alone (a prompt's first word) and after a space (every later word). Fail closed: a 404, another
 * status or a body without a token array refuses the run (exit 2) naming the URL, never a fallback
 * to o200k.
 */

/** Server token counts of the vocabulary's words, index for index: alone and after a space. */
export interface WordCounts {
  alone: readonly number[];
  spaced: readonly number[];
}

export interface TokenizeTarget {
  /** The server's origin (`http://127.0.0.1:8080`): /tokenize is at its root. */
  origin: string;
  /** Authorization and the gateway's extra headers, for this origin only. */
  headers: Readonly<Record<string, string>>;
  dispatcher: Dispatcher;
  /** The bound on counting the whole vocabulary (default TOTAL_MS). */
  totalMs?: number;
}

const CONCURRENCY = 4;
const TOTAL_MS = 30_000;
/** A token array of one word is a few dozen bytes; anything past this is not llama.cpp's answer. */
const MAX_BODY_BYTES = 64 * 1024;

function refuse(url: string, why: string): HarnessError {
  return new HarnessError(HarnessErrorCode.USAGE, `--tokenizer server: POST ${url} ${why}`, { hint: 'the server must serve llama.cpp\'s /tokenize ({"content":"..."} → {"tokens":[...]}); else leave --tokenizer at o200k' });
}

async function boundedText(body: AsyncIterable<Buffer>, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > MAX_BODY_BYTES) throw refuse(url, `answered more than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The token count of llama.cpp's answer `{"tokens":[...]}` (ids, or {id, piece} with with_pieces); null: not that shape. */
export function tokenCountOf(text: string): number | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const tokens = (v as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(tokens) || tokens.length === 0) return null;
  const ok = tokens.every((t) => Number.isInteger(t) || (typeof t === 'object' && t !== null && Number.isInteger((t as { id?: unknown }).id)));
  return ok ? tokens.length : null;
}

async function countOne(t: TokenizeTarget, content: string, signal: AbortSignal, timedOut: () => boolean): Promise<number> {
  const url = `${t.origin}/tokenize`;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, { method: 'POST', dispatcher: t.dispatcher, signal, headers: { ...t.headers, 'content-type': 'application/json', 'accept-encoding': 'identity' }, body: JSON.stringify({ content }) });
  } catch (error) {
    throw refuse(url, timedOut() ? `did not count the vocabulary within ${(t.totalMs ?? TOTAL_MS) / 1000} s` : `failed: ${(error as Error).message}`);
  }
  if (res.statusCode !== 200) {
    res.body.destroy();
    throw refuse(url, `answered ${res.statusCode}`);
  }
  let text: string;
  try {
    text = await boundedText(res.body, url);
  } catch (error) {
    if (timedOut()) throw refuse(url, `did not count the vocabulary within ${(t.totalMs ?? TOTAL_MS) / 1000} s`);
    throw error;
  }
  const n = tokenCountOf(text);
  if (n === null) throw refuse(url, `answered 200 without a {"tokens":[...]} array (for ${JSON.stringify(content)})`);
  return n;
}

/** Counts every word alone and after a space, CONCURRENCY at a time, within TOTAL_MS in all. */
export async function serverWordCounts(t: TokenizeTarget, words: readonly string[]): Promise<WordCounts> {
  const texts = [...words, ...words.map((w) => ` ${w}`)];
  const counts = new Array<number>(texts.length).fill(0);
  // The first refusal stops the other lanes too.
  const stop = new AbortController();
  const deadline = AbortSignal.timeout(t.totalMs ?? TOTAL_MS);
  const signal = AbortSignal.any([deadline, stop.signal]);
  const timedOut = (): boolean => deadline.aborted;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < texts.length && !stop.signal.aborted) {
      const i = next++;
      counts[i] = await countOne(t, texts[i] ?? '', signal, timedOut);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, texts.length) }, lane));
  } finally {
    stop.abort();
  }
  return { alone: counts.slice(0, words.length), spaced: counts.slice(words.length) };
}
