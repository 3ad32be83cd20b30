import { tokenizer } from '../../tokenizer.ts';
import { seededRandom } from '../../seeded-random.ts';
import type { ChatMessage } from './prompts.ts';
import type { TraceSpec } from './trace.ts';
import type { ToolsSpec } from './tool-calls.ts';
import type { RequestIntent } from '../../protocols/protocol.ts';
import type { WordCounts } from './server-tokenize.ts';

/**
 * What each request of a run asks for: its messages (built-in or --prompts, synthetic prompts of
 * a token length, or a dataset) and its output length (max_tokens, or a length per request), plus
 * vendor fields merged into every body. Every choice is a pure function of (seed, seq), so a run
 * is reproducible and the collector can ask later what request `seq` asked for.
 */

/** A mean and a standard deviation in tokens; stdev 0 is a fixed length. */
export interface TokenLength {
  mean: number;
  stdev: number;
}

/** One conversation from a dataset, with the lengths it stands for. */
export interface DatasetItem {
  messages: ChatMessage[];
  /** Prompt tokens (o200k count of the content), or null when not counted. */
  promptTokens: number | null;
  /** The reference answer's length (ShareGPT: the second turn) or the line's max_tokens; null: none. */
  outputTokens: number | null;
  /** Every user turn in order with its reference answer's length (multi-turn entries; --turns replays them). */
  turns?: { user: string; outputTokens: number | null }[];
}

export interface DatasetInfo {
  file: string;
  format: 'sharegpt' | 'iari';
  /** Conversations kept (requests cycle through them). */
  samples: number;
  /** Entries read from the file. */
  read: number;
  /** Entries left out by the rules: fewer than two turns, or (of those drawn) too short or too long. */
  skipped: number;
}

/**
 * Synthetic prompts of `length` words. `tokenizer: 'server'` (--tokenizer server): the asked
 * prompt length is the sum of the words' counts by the server's /tokenize, `counts` (read before
 * any traffic, server-tokenize.ts); absent: o200k, where every word is one token.
 */
export interface SyntheticInput {
  kind: 'synthetic';
  length: TokenLength;
  tokenizer?: 'server';
  counts?: WordCounts;
}

export type MaxTokensField = 'max_tokens' | 'max_completion_tokens' | 'both';

export interface WorkloadSpec {
  input: { kind: 'prompts' } | SyntheticInput | { kind: 'dataset'; items: readonly DatasetItem[]; info: DatasetInfo };
  /** Per-request output lengths; null: the dataset's own lengths, else max_tokens as a cap. */
  output: TokenLength | null;
  maxTokensField: MaxTokensField;
  /** Merged into every request body (vendor fields such as vLLM's ignore_eos, min_tokens). */
  extraBody: Record<string, unknown> | null;
  /** Every request starts with one of `groups` shared system prompts of `tokens` tokens (absent: none). */
  prefix?: PrefixSpec;
  /** Multi-turn conversations (--turns, --think-time); absent: every request stands alone. */
  conversation?: ConversationSpec;
  /** --trace: arrival times and lengths replayed from a production trace (the input kind is then unused). */
  trace?: TraceSpec;
  /** --tools: the share of requests that declare tools, and the tools. */
  tools?: ToolsSpec;
  /** --embeddings-batch: POST /v1/embeddings with `batch` inputs per request (embeddings.ts); the input kind gives their texts. */
  embeddings?: EmbeddingsSpec;
}

export interface EmbeddingsSpec {
  /** Inputs per request. */
  batch: number;
  /** encoding_format sent (absent: none, the server's default float). */
  encodingFormat?: 'float' | 'base64';
}

export interface ConversationSpec {
  /** Turns per synthetic conversation (a dataset conversation replays its own turns, at most mean + 4 stdev). */
  turns: TokenLength;
  /** Pause between an answer and the next turn (ms); the conversation keeps its slot meanwhile. */
  thinkTimeMs: number;
  /**
   * --chain previous-response-id: each turn after the first continues the server's kept answer by
   * its id and sends only the new user turn (the API must chain); absent: the whole history is resent.
   */
  chain?: 'previous-response-id';
}

export interface PrefixSpec {
  tokens: number;
  groups: number;
}

/** What a request asked for, in tokens (null: nothing specific). */
export interface Requested {
  prompt: number | null;
  output: number | null;
  /** The shared prefix this request starts with (--prefix-groups), absent without one. */
  prefixGroup?: number;
  /** Conversations: the turn index (0 = first) and the conversation's number. */
  turn?: number;
  conversation?: number;
}

export interface Workload {
  /** What request `seq` asks for; the run's protocol turns it into a body. */
  intent(seq: number): RequestIntent;
  requested(seq: number): Requested;
  /** `target`: the output lengths are what the run means to measure; `cap`: max_tokens is only a limit. */
  outputIs: 'target' | 'cap';
}

/** Body members iari sets itself; --extra-body may not replace them. */
export const RESERVED_BODY_KEYS = ['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens'] as const;

const MAX_LENGTH = 1_000_000;

/** Normal(mean, stdev) rounded, at least 1 (Box-Muller over the run's PRNG). */
export function drawLength(rng: () => number, l: TokenLength): number {
  if (l.stdev === 0) return Math.max(1, Math.round(l.mean));
  const u1 = Math.max(rng(), 1e-12);
  const u2 = rng();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.min(MAX_LENGTH, Math.max(1, Math.round(l.mean + z * l.stdev)));
}

/** A per-request stream of randomness: the same (seed, seq, lane) always gives the same numbers. */
export function rngFor(seed: number, seq: number, lane: number): () => number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(seq + 1, 0xc2b2ae35) ^ Math.imul(lane + 1, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return seededRandom((h ^ (h >>> 15)) >>> 0);
}

const CANDIDATES =
  'time people year way day thing man world life hand part child eye woman place work week case point number group problem fact system program question government company night home water room mother area money story month lot right study book job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education foot boy age policy process music market sense nation plan college interest death experience effect class control care field development role effort rate heart drug show leader light voice wife police mind price report decision son view relationship town road arm difference value building action model season society tax director position player record paper space ground form event official matter center couple site project activity star table need court oil situation cost industry figure street image phone data picture practice piece land product doctor wall patient worker news test movie north love support technology step baby computer type attention film tree source organization hair window evidence population truth song vision';

let vocabulary: string[] | null = null;

/**
 * Words that are one o200k token both at the start of a text and after a space. Joined by single
 * spaces they never merge (the pre-tokenizer splits before every " word"), so N of them are
 * exactly N tokens: the prompt length is exact by construction, no trimming loop needed.
 */
export function syntheticVocabulary(): string[] {
  if (vocabulary === null) {
    const { encode } = tokenizer();
    vocabulary = CANDIDATES.split(' ').filter((w) => encode(w).length === 1 && encode(` ${w}`).length === 1);
  }
  return vocabulary;
}

/** A prompt of exactly `tokens` o200k tokens, different for every (seed, seq). */
export function syntheticPrompt(tokens: number, rng: () => number): string {
  const words = syntheticVocabulary();
  const out = new Array<string>(tokens);
  for (let i = 0; i < tokens; i++) out[i] = words[Math.floor(rng() * words.length)] ?? 'time';
  return out.join(' ');
}

/** The server's count of the prompt `syntheticPrompt(tokens, rng)` draws (the same draws): its first word alone, the rest after a space. */
export function syntheticPromptCount(tokens: number, rng: () => number, counts: WordCounts): number {
  const n = syntheticVocabulary().length;
  let sum = 0;
  for (let i = 0; i < tokens; i++) {
    const k = Math.floor(rng() * n);
    sum += (i === 0 ? counts.alone[k] : counts.spaced[k]) ?? 1;
  }
  return sum;
}

/**
 * The G shared prefixes: each a system prompt of exactly `tokens` o200k tokens, drawn from the
 * seed and the group index, so every request of a group (and every run with the same seed) sends
 * byte-identical prefix text and a server's prefix cache can serve it.
 */
export function sharedPrefixes(p: PrefixSpec, seed: number): string[] {
  return Array.from({ length: p.groups }, (_, g) => syntheticPrompt(p.tokens, rngFor(seed ^ 0x51ed27, g, 5)));
}

/**
 * The requests and requested lengths of a run. Built-in or --prompts messages cycle from a
 * seeded offset (as before); synthetic prompts are drawn per request; dataset conversations cycle
 * from a seeded offset (the dataset itself is already a seeded sample, see dataset.ts).
 */
export function buildWorkload(
  spec: WorkloadSpec,
  o: { model: string; maxTokens: number; stream: boolean; seed: number; prompts: readonly (readonly ChatMessage[])[] },
): Workload {
  const input = spec.input;
  const outputOf = (seq: number, item: DatasetItem | null): number | null => {
    if (spec.output !== null) return drawLength(rngFor(o.seed, seq, 2), spec.output);
    if (item !== null && item.outputTokens !== null) return item.outputTokens;
    return null;
  };
  const itemOf = (seq: number): DatasetItem | null => {
    if (input.kind !== 'dataset' || input.items.length === 0) return null;
    return input.items[(seq + (o.seed % input.items.length)) % input.items.length] ?? null;
  };
  const prefix = spec.prefix;
  const prefixes = prefix === undefined ? [] : sharedPrefixes(prefix, o.seed);
  const groupOf = (seq: number): number => (prefix === undefined ? 0 : Math.floor(rngFor(o.seed, seq, 4)() * prefix.groups));
  const requested = (seq: number): Requested => {
    const item = itemOf(seq);
    const own = input.kind === 'synthetic' ? syntheticAsked(seq) : (item?.promptTokens ?? null);
    if (prefix === undefined) return { prompt: own, output: outputOf(seq, item) };
    return { prompt: own === null ? null : own + prefix.tokens, output: outputOf(seq, item), prefixGroup: groupOf(seq) };
  };
  // Words of request seq's own synthetic prompt; with server counts, what it asks is their server count.
  const ownWords = (seq: number): number => (input.kind === 'synthetic' ? drawLength(rngFor(o.seed, seq, 1), input.length) : 1);
  const counts = input.kind === 'synthetic' ? input.counts : undefined;
  const syntheticAsked = (seq: number): number => (counts === undefined ? ownWords(seq) : syntheticPromptCount(ownWords(seq), rngFor(o.seed, seq, 3), counts));
  const messagesOf = (seq: number, r: Requested): readonly ChatMessage[] => {
    const own = ownMessagesOf(seq, r);
    if (prefix === undefined) return own;
    return [{ role: 'system', content: prefixes[r.prefixGroup ?? 0] ?? '' }, ...own];
  };
  const ownMessagesOf = (seq: number, r: Requested): readonly ChatMessage[] => {
    if (input.kind === 'synthetic') return [{ role: 'user', content: syntheticPrompt(ownWords(seq), rngFor(o.seed, seq, 3)) }];
    const item = itemOf(seq);
    if (item !== null) return item.messages;
    return o.prompts[(seq + (o.seed % Math.max(1, o.prompts.length))) % Math.max(1, o.prompts.length)] ?? [];
  };
  const intent = (seq: number): RequestIntent => {
    const r = requested(seq);
    return { model: o.model, messages: messagesOf(seq, r), maxOutputTokens: r.output ?? o.maxTokens, outputLimitMember: spec.maxTokensField, stream: o.stream, extraBody: spec.extraBody };
  };
  return { intent, requested, outputIs: spec.output !== null || input.kind === 'dataset' ? 'target' : 'cap' };
}

/**
 * The default workload: the built-in or --prompts messages cycled (offset by seed, so runs are
 * reproducible), each asking for at most `maxTokens`.
 */
export function promptsWorkload(prompts: readonly (readonly ChatMessage[])[], o: { model: string; maxTokens: number; stream: boolean; seed: number }): Workload {
  const intents = prompts.map((messages): RequestIntent => ({ model: o.model, messages, maxOutputTokens: o.maxTokens, stream: o.stream }));
  const offset = o.seed % Math.max(1, intents.length);
  const empty: RequestIntent = { model: o.model, messages: [], maxOutputTokens: o.maxTokens, stream: o.stream };
  return { intent: (seq) => intents[(seq + offset) % intents.length] ?? intents[0] ?? empty, requested: () => ({ prompt: null, output: null }), outputIs: 'cap' };
}
