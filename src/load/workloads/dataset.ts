import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { seededRandom } from '../../seeded-random.ts';
import { parsePromptLine } from './prompts.ts';
import { countTokens } from './token-count.ts';
import type { DatasetInfo, DatasetItem } from './workload.ts';

/**
 * `--dataset FILE`: ShareGPT conversations, as `vllm bench serve --dataset-name sharegpt` reads
 * them (vllm/benchmarks/datasets.py ShareGPTDataset), or iari's own JSONL.
 *
 * ShareGPT: a JSON array (or JSONL) of `{"conversations":[{"from":"human","value":...},
 * {"from":"gpt","value":...},...]}`. As in vLLM, entries with fewer than two turns are dropped,
 * the rest are shuffled with the seed, the first turn is the prompt and the second the reference
 * answer whose token count is the requested output length, and a pair is skipped when the prompt
 * or the answer has fewer than 4 tokens, the prompt more than 1024, or both together more than
 * 2048 (vLLM's is_valid_sequence; the answer's minimum does not apply when --output-tokens sets
 * the lengths). Tokens are counted with o200k (vLLM uses the model's tokenizer). The file is
 * streamed: a seeded uniform sample (reservoir) of twice the kept size is drawn in one pass, so
 * the 650 MB ShareGPT_V3 file is read in bounded memory.
 *
 * iari JSONL: one `{"messages":[...]}` or `{"prompt":"..."}` per line (the --prompts format),
 * optionally with `"max_tokens": N` (or `"output_tokens": N`) as that request's output length;
 * kept in file order, the first `size` lines.
 */

const MIN_LEN = 4;
const MAX_PROMPT = 1024;
const MAX_TOTAL = 2048;
/** A prompt this long (in characters) cannot be 1024 tokens or fewer in practice: skipped uncounted. */
const MAX_PROMPT_CHARS = 32 * 1024;
/** One JSON element larger than this is refused (a file that is not what it claims). */
const MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

export interface DatasetOptions {
  /** Conversations to keep (requests cycle through them). */
  size: number;
  seed: number;
  /** --output-tokens given: the answers' lengths are not used, nor their minimum. */
  outputOverride: boolean;
}

const unreadable = (file: string, why: string, hint?: string): HarnessError =>
  new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `--dataset ${file}: ${why}`, hint === undefined ? {} : { hint });

const HINT = 'ShareGPT: a JSON array of {"conversations":[{"from":"human","value":"..."},{"from":"gpt","value":"..."}]}; iari: JSONL of {"messages":[...]} or {"prompt":"..."}';

/** Calls `onElement` with the bytes of each element of a top-level JSON array, streaming. */
async function eachArrayElement(file: string, onElement: (json: string, index: number) => void): Promise<void> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let size = 0;
  let started = false;
  let index = 0;
  let ended = false;
  const flush = (): void => {
    if (size > 0) onElement(Buffer.concat(parts).toString('utf8'), index++);
    parts = [];
    size = 0;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (ended) {
        if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) throw unreadable(file, 'text after the closing ] of the array');
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
        continue;
      }
      if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        depth++;
        if (depth === 1) {
          if (b !== 0x5b) throw unreadable(file, 'not a JSON array', HINT);
          started = true;
          from = i + 1;
        }
      } else if (b === 0x5d || b === 0x7d) {
        depth--;
        if (depth === 0) {
          parts.push(chunk.subarray(from, i));
          size += i - from;
          flush();
          ended = true;
        }
      } else if (b === 0x2c && depth === 1) {
        parts.push(chunk.subarray(from, i));
        size += i - from;
        flush();
        from = i + 1;
      } else if (depth === 0 && b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && !(b === 0xef || b === 0xbb || b === 0xbf)) {
        throw unreadable(file, 'not a JSON array', HINT);
      }
    }
    if (depth >= 1 && !ended) {
      parts.push(chunk.subarray(from));
      size += chunk.length - from;
      if (size > MAX_ELEMENT_BYTES) throw unreadable(file, `element ${index} is larger than ${MAX_ELEMENT_BYTES} bytes`);
    }
  }
  if (!started || !ended) throw unreadable(file, 'the JSON array is not closed (truncated file?)');
}

/** Calls `onLine` with each non-blank line (1-based numbers), streaming. */
async function eachLine(file: string, onLine: (line: string, n: number) => void): Promise<void> {
  let rest = '';
  let n = 0;
  const decoder = new TextDecoder();
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    if (rest.length > MAX_ELEMENT_BYTES) throw unreadable(file, `line ${n + lines.length + 1} is longer than ${MAX_ELEMENT_BYTES} characters`);
    for (const line of lines) {
      n++;
      if (line.trim() !== '') onLine(line, n);
    }
  }
  rest += decoder.decode();
  if (rest.trim() !== '') onLine(rest, n + 1);
}

interface Pair {
  prompt: string;
  completion: string;
  /** The later (human, gpt) turns, for conversations replayed turn by turn (--turns). */
  later: { user: string; reference: string | null }[];
}

/** The first two turns' text of a ShareGPT entry, or null (fewer than two turns: dropped, as in vLLM). */
function pairOf(entry: unknown): Pair | null {
  const c = (entry as { conversations?: unknown } | null)?.conversations;
  if (!Array.isArray(c) || c.length < 2) return null;
  const a = (c[0] as { value?: unknown } | null)?.value;
  const b = (c[1] as { value?: unknown } | null)?.value;
  if (typeof a !== 'string' || typeof b !== 'string') return null;
  const later: Pair['later'] = [];
  for (let i = 2; i < c.length; i += 2) {
    const user = (c[i] as { value?: unknown } | null)?.value;
    const reference = (c[i + 1] as { value?: unknown } | null)?.value;
    if (typeof user !== 'string' || user.length === 0) break;
    later.push({ user, reference: typeof reference === 'string' ? reference : null });
  }
  return { prompt: a, completion: b, later };
}

async function firstByte(file: string): Promise<number | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw unreadable(file, (error as NodeJS.ErrnoException).code ?? 'cannot open');
  }
  try {
    const buf = Buffer.alloc(4096);
    for (let pos = 0; ; ) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return null;
      for (let i = 0; i < bytesRead; i++) {
        const b = buf[i] as number;
        if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
      }
      pos += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Reads `--dataset FILE` into at most `size` conversations (never throws on the server's account: exit 2 on a bad file). */
export async function readDataset(file: string, o: DatasetOptions): Promise<{ items: DatasetItem[]; info: DatasetInfo }> {
  const first = await firstByte(file);
  if (first === null) throw unreadable(file, 'the file is empty');
  const rng = seededRandom(o.seed ^ 0x5bd1e995);
  const reservoir: Pair[] = [];
  const capacity = Math.max(1, o.size * 2);
  let candidates = 0;
  let read = 0;
  let format: DatasetInfo['format'] | null = null;
  const iariItems: DatasetItem[] = [];
  const take = (value: unknown, where: string): void => {
    read++;
    const obj = typeof value === 'object' && value !== null ? value : {};
    const isIari = 'prompt' in obj || 'messages' in obj;
    // As in vLLM, an entry without conversations is dropped from a ShareGPT file.
    const kind = 'conversations' in obj || (!isIari && format === 'sharegpt') ? 'sharegpt' : 'iari';
    if (format === null) format = kind;
    else if (format !== kind) throw unreadable(file, `${where}: mixes ShareGPT conversations and iari prompt lines`, HINT);
    if (kind === 'iari') {
      if (iariItems.length < o.size) iariItems.push(iariItem(file, value, where));
      return;
    }
    const pair = pairOf(value);
    if (pair === null) return;
    // Algorithm R over the entries with two turns: a uniform, seeded sample in one pass.
    if (candidates < capacity) reservoir.push(pair);
    else {
      const j = Math.floor(rng() * (candidates + 1));
      if (j < capacity) reservoir[j] = pair;
    }
    candidates++;
  };
  const parse = (text: string, where: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw unreadable(file, `${where}: not JSON`, HINT);
    }
  };
  if (first === 0x5b) await eachArrayElement(file, (json, i) => take(parse(json, `element ${i}`), `element ${i}`));
  else if (first === 0x7b) await eachLine(file, (line, n) => take(parse(line, `line ${n}`), `line ${n}`));
  else throw unreadable(file, 'neither a JSON array nor JSONL', HINT);
  if (format === 'iari') {
    if (iariItems.length === 0) throw unreadable(file, 'no prompts in the file');
    return { items: iariItems, info: { file, format: 'iari', samples: iariItems.length, read, skipped: 0 } };
  }
  // vLLM shuffles, then keeps the valid pairs in that order.
  for (let i = reservoir.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [reservoir[i], reservoir[j]] = [reservoir[j] as Pair, reservoir[i] as Pair];
  }
  const items: DatasetItem[] = [];
  let rejected = 0;
  for (const p of reservoir) {
    if (items.length >= o.size) break;
    rejected++;
    if (p.prompt.length > MAX_PROMPT_CHARS) continue;
    const promptLen = countTokens(p.prompt);
    const outputLen = countTokens(p.completion);
    const tooShort = promptLen < MIN_LEN || (!o.outputOverride && outputLen < MIN_LEN);
    if (tooShort || promptLen > MAX_PROMPT || (!o.outputOverride && promptLen + outputLen > MAX_TOTAL)) continue;
    rejected--;
    const turns = [{ user: p.prompt, outputTokens: outputLen }, ...p.later.map((t) => ({ user: t.user, outputTokens: t.reference === null ? null : Math.max(1, countTokens(t.reference)) }))];
    items.push({ messages: [{ role: 'user', content: p.prompt }], promptTokens: promptLen, outputTokens: outputLen, turns });
  }
  if (items.length === 0) {
    throw unreadable(file, `no usable conversation among ${read} entries (each needs two turns, a prompt of 4-${MAX_PROMPT} tokens and an answer of at least 4, ${MAX_TOTAL} together)`, HINT);
  }
  return { items, info: { file, format: 'sharegpt', samples: items.length, read, skipped: read - candidates + rejected } };
}

function iariItem(file: string, value: unknown, where: string): DatasetItem {
  const messages = parsePromptLine(value, (why) => unreadable(file, `${where}: ${why}`, HINT));
  const o = value as { max_tokens?: unknown; output_tokens?: unknown };
  const raw = o.output_tokens ?? o.max_tokens;
  if (raw !== undefined && (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 1_000_000)) {
    throw unreadable(file, `${where}: max_tokens / output_tokens must be an integer from 1 to 1000000`);
  }
  const text = messages.map((m) => m.content).join('\n');
  const output = typeof raw === 'number' ? raw : null;
  // A line with several user messages is a conversation: each user message is a turn (--turns replays them).
  const users = messages.filter((m) => m.role === 'user');
  const turns = users.length > 1 ? users.map((m) => ({ user: m.content, outputTokens: output })) : undefined;
  return { messages, promptTokens: countTokens(text), outputTokens: output, ...(turns === undefined ? {} : { turns }) };
}
