import { readFileSync, writeFileSync } from 'node:fs';
import { seededRandom } from '../../src/seeded-random.ts';
import { readGgufMetadata, writeGguf, type GgufTensor, type GgufValue } from './gguf.ts';

// A tiny qwen2 model for llama.cpp's server, written by this project (docs/engines.md): 2 layers,
// width 64, 4 heads of 16 (2 KV heads), FFN 128, untied output with a bias; the full Qwen2
// byte-level BPE tokenizer copied from the source tree's models/ggml-vocab-qwen2.gguf, with
// Qwen2.5's extra tokens at their real ids, and Qwen2.5-7B-Instruct's chat template (tools
// section included). Every weight comes from one seed: the same seed writes the same bytes.
//
// Two variants:
// - 'designed': random weights plus three hand-set paths, so the server can be judged:
//   1. an output bias toward a small English answer vocabulary (ANSWER_WORDS);
//   2. answers end by themselves: layer 0's head 0 attends to answer-vocabulary tokens (score
//      S_ANSWER) and to each <|im_end|> already in the prompt (score S_SINK, e^(S_SINK-S_ANSWER)
//      = SINK_WEIGHT answer tokens' worth), so its output c = k / (SINK_WEIGHT·m + k) rises with
//      the k answer tokens generated (m: messages before the answer); the logit of <|im_end|> is
//      END_BIAS + END_GAIN·c. A plain chat (system and user message, m = 2) ends after about
//      20-40 tokens at any temperature, at 0 too. Each earlier turn adds its <|im_end|>s and its
//      answer's tokens in balance, so later turns end alike;
//   3. it calls a tool when tools are offered: head 2 finds the token " Tools" that only the
//      template's tools section ("# Tools") holds; head 3 reads how many <tool_call> tokens sit
//      beside it (the section's own instructions hold two). With the section and no call yet the
//      logit of <tool_call> (151657) tops every other, so the answer starts with a call; a
//      newline follows it (the marker "<tool_call>\n" the server derives from the template starts
//      its tool grammar), and the grammar completes a valid call; once a call is in the context (generated, or an
//      earlier turn's) it falls below the answer vocabulary, so the model answers a tool
//      result with text. Text between calls never starts, so `required` and `auto` look alike.
// - 'random': every weight drawn at random, no bias: answers never end (the end token is 1 of
//   151,936) and no tool call ever starts.

export type TinyModelVariant = 'designed' | 'random';

const N_EMBD = 64;
const N_HEAD = 4;
const N_HEAD_KV = 2;
const HEAD_DIM = N_EMBD / N_HEAD;
const N_FF = 128;
const N_LAYER = 2;
/** A large RoPE base makes the highest dimension pairs of each head turn less than 0.01 rad over 8k positions, so scores there depend on content only. */
const ROPE_BASE = 1e8;

// Residual stream layout: 0..47 random token features; the rest named features and results.
const NOISE = 48;
const F_ANSWER = 48;
const F_SINK = 49;
const F_TOOLS = 50;
const F_CALL = 51;
const R_COUNT = 52;
const R_TOOLS = 53;
const R_CALLS = 54;
const F_CALL_END = 55;
const R_OPEN = 56;
const F_CLOSE = 57;

const S_ANSWER = 10;
const SINK_WEIGHT = 15;
const S_SINK = S_ANSWER + Math.log(SINK_WEIGHT);
const S_TOOLS = 20;
const ANSWER_BIAS = 10;
const ANSWER_SPREAD = 1.5;
const END_BIAS = ANSWER_BIAS - 4;
const END_GAIN = 19.2;
// <tool_call> logit: CALL_BIAS + CALL_TOOLS·t − CALL_SEEN·u, t ≈ 1 with a tools section, u = n/(1+n)
// for n <tool_call> tokens beside it. The section's instructions hold two (n = 2, u = 2/3: about
// +30 after the final norm), one call more makes n = 3 (u = 3/4: -10, far below the answer
// vocabulary's 10-15).
const CALL_BIAS = -10;
const CALL_TOOLS = 450;
const CALL_SEEN = 600;
/** '"}}' logit: CLOSE_BIAS + CLOSE_GAIN·o, o = 1/6 while a call is open, 0 before and after: the call's string argument closes, and the call with it. */
const CLOSE_BIAS = -6;
const CLOSE_GAIN = 150;
/** Quote tokens rise with the answer's length too, so a JSON string a grammar holds open closes after some 10-20 tokens. */
const QUOTES = ['"', '",', '"}', '"]', '."'];
const QUOTE_GAIN = 5;

export const TOKEN = { endOfText: 151643, imStart: 151644, imEnd: 151645, toolCall: 151657, toolCallEnd: 151658 } as const;

/** Qwen2.5's added tokens after <|im_end|>, at their real ids (the Qwen2 vocab file has [PAD…] there). type 3 control, 4 user-defined (rendered as text, so the server's parser sees "<tool_call>"). */
const QWEN25_TOKENS: readonly [number, string, 3 | 4][] = [
  [151646, '<|object_ref_start|>', 3], [151647, '<|object_ref_end|>', 3], [151648, '<|box_start|>', 3], [151649, '<|box_end|>', 3],
  [151650, '<|quad_start|>', 3], [151651, '<|quad_end|>', 3], [151652, '<|vision_start|>', 3], [151653, '<|vision_end|>', 3],
  [151654, '<|vision_pad|>', 3], [151655, '<|image_pad|>', 3], [151656, '<|video_pad|>', 3], [151657, '<tool_call>', 4],
  [151658, '</tool_call>', 4], [151659, '<|fim_prefix|>', 4], [151660, '<|fim_middle|>', 4], [151661, '<|fim_suffix|>', 4],
  [151662, '<|fim_pad|>', 4], [151663, '<|repo_name|>', 4], [151664, '<|file_sep|>', 4],
];

/**
 * The answer vocabulary, as the tokenizer spells tokens (Ġ is a leading space). Words iari's
 * synthetic load prompts never use (src/load/workload.ts CANDIDATES), so a long prompt does not
 * count toward an answer's end; quote tokens let JSON strings close under a grammar.
 */
export const ANSWER_WORDS: readonly string[] = [
  'Hello', 'Yes', 'No', 'OK', 'Sure', 'The',
  ...'sunny cloudy windy rainy warm cold blue green river ocean mountain forest llama tree sky bright calm quiet gentle Tokyo Paris London Berlin Lisbon today tomorrow maybe indeed fine nice clear soft fresh wind rain snow storm cloud sun moon star garden lake hill island shore breeze sand stone leaf flower bird fox bear wolf cat dog apple bread tea coffee music song dance dream smile happy kind slow fast small large tiny wide'
    .split(' ')
    .map((w) => `Ġ${w}`),
  '.', ',', '!', '?', '"', '",', '"}', '"]', '."',
];

export interface TinyModelOptions {
  vocabPath: string;
  templatePath: string;
  variant: TinyModelVariant;
  seed?: number;
  name?: string;
}

function normal(rng: () => number): () => number {
  return () => {
    const u = 1 - rng();
    const v = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

/** The bytes of the model file. */
export function tinyModel(options: TinyModelOptions): Buffer {
  const vocab = readGgufMetadata(readFileSync(options.vocabPath));
  const template = readFileSync(options.templatePath, 'utf8');
  const tokensValue = vocab.get('tokenizer.ggml.tokens');
  const typesValue = vocab.get('tokenizer.ggml.token_type');
  const merges = vocab.get('tokenizer.ggml.merges');
  if (tokensValue?.type !== 'array' || typesValue?.type !== 'array' || merges?.type !== 'array') throw new Error(`${options.vocabPath}: no tokenizer.ggml tokens, token_type and merges`);
  const tokens = [...(tokensValue.items as string[])];
  const types = [...(typesValue.items as number[])];
  for (const [id, text, type] of QWEN25_TOKENS) {
    tokens[id] = text;
    types[id] = type;
  }
  const nVocab = tokens.length;
  const ids = new Map(tokens.map((t, i) => [t, i]));
  const idOf = (text: string): number => {
    const id = ids.get(text);
    if (id === undefined) throw new Error(`tiny model: token ${JSON.stringify(text)} is not in the vocabulary`);
    return id;
  };

  const meta = new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: 'qwen2' }],
    ['general.name', { type: 'string', value: options.name ?? `iari-tiny-${options.variant}` }],
    ['general.file_type', { type: 'u32', value: 1 }],
    ['qwen2.block_count', { type: 'u32', value: N_LAYER }],
    ['qwen2.context_length', { type: 'u32', value: 32768 }],
    ['qwen2.embedding_length', { type: 'u32', value: N_EMBD }],
    ['qwen2.feed_forward_length', { type: 'u32', value: N_FF }],
    ['qwen2.attention.head_count', { type: 'u32', value: N_HEAD }],
    ['qwen2.attention.head_count_kv', { type: 'u32', value: N_HEAD_KV }],
    ['qwen2.rope.freq_base', { type: 'f32', value: ROPE_BASE }],
    ['qwen2.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'qwen2' }],
    ['tokenizer.ggml.tokens', { type: 'array', itemType: 8, items: tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', itemType: 5, items: types }],
    ['tokenizer.ggml.merges', merges],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: TOKEN.imEnd }],
    ['tokenizer.ggml.padding_token_id', { type: 'u32', value: TOKEN.endOfText }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: TOKEN.endOfText }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ['tokenizer.chat_template', { type: 'string', value: template }],
  ]);

  const gauss = normal(seededRandom(options.seed ?? 20261127));
  const random = (n: number, sigma: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = gauss() * sigma;
    return a;
  };
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1);
  const tensors: GgufTensor[] = [];
  const add = (name: string, shape: number[], data: Float32Array, dtype: 'f32' | 'f16' = 'f32'): void => {
    tensors.push({ name, shape, dtype, data });
  };
  const nKv = N_HEAD_KV * HEAD_DIM;

  if (options.variant === 'random') {
    add('token_embd.weight', [N_EMBD, nVocab], random(N_EMBD * nVocab, 1), 'f16');
    for (let l = 0; l < N_LAYER; l++) {
      add(`blk.${l}.attn_norm.weight`, [N_EMBD], ones(N_EMBD));
      add(`blk.${l}.attn_q.weight`, [N_EMBD, N_EMBD], random(N_EMBD * N_EMBD, 0.125));
      add(`blk.${l}.attn_q.bias`, [N_EMBD], random(N_EMBD, 0.1));
      add(`blk.${l}.attn_k.weight`, [N_EMBD, nKv], random(N_EMBD * nKv, 0.125));
      add(`blk.${l}.attn_k.bias`, [nKv], random(nKv, 0.1));
      add(`blk.${l}.attn_v.weight`, [N_EMBD, nKv], random(N_EMBD * nKv, 0.125));
      add(`blk.${l}.attn_v.bias`, [nKv], random(nKv, 0.1));
      add(`blk.${l}.attn_output.weight`, [N_EMBD, N_EMBD], random(N_EMBD * N_EMBD, 0.125));
      add(`blk.${l}.ffn_norm.weight`, [N_EMBD], ones(N_EMBD));
      add(`blk.${l}.ffn_gate.weight`, [N_EMBD, N_FF], random(N_EMBD * N_FF, 0.125));
      add(`blk.${l}.ffn_up.weight`, [N_EMBD, N_FF], random(N_EMBD * N_FF, 0.125));
      add(`blk.${l}.ffn_down.weight`, [N_FF, N_EMBD], random(N_FF * N_EMBD, 0.09));
    }
    add('output_norm.weight', [N_EMBD], ones(N_EMBD));
    add('output.weight', [N_EMBD, nVocab], random(N_EMBD * nVocab, 0.125), 'f16');
    add('output.bias', [nVocab], random(nVocab, 0.1));
    return writeGguf(meta, tensors);
  }

  const answer = new Set(ANSWER_WORDS.map(idOf));
  const toolsWord = idOf('ĠTools');
  const closers = new Set([idOf('"}}'), idOf('}}')]);
  // Token embeddings: random features in 0..47, the named features, and a norm of exactly √64 so
  // layer 0's RMS norm leaves every row as it is and the scores below are exact.
  const embd = new Float32Array(N_EMBD * nVocab);
  for (let t = 0; t < nVocab; t++) {
    const row = t * N_EMBD;
    const features: [number, number][] = [];
    if (answer.has(t)) features.push([F_ANSWER, 1]);
    if (t === TOKEN.imEnd) features.push([F_SINK, 1]);
    if (t === toolsWord) features.push([F_TOOLS, 1]);
    if (t === TOKEN.toolCall) features.push([F_CALL, 1]);
    if (t === TOKEN.toolCallEnd) features.push([F_CALL_END, 1]);
    if (closers.has(t)) features.push([F_CLOSE, 1]);
    let sq = 0;
    for (let d = 0; d < NOISE; d++) {
      const v = gauss();
      embd[row + d] = v;
      sq += v * v;
    }
    const scale = Math.sqrt((N_EMBD - features.length) / sq);
    for (let d = 0; d < NOISE; d++) embd[row + d] = (embd[row + d] ?? 0) * scale;
    for (const [d, v] of features) embd[row + d] = v;
  }
  add('token_embd.weight', [N_EMBD, nVocab], embd, 'f16');

  /** A matrix [nIn, nOut] (nOut rows of nIn) with small random weights from inputs 0..inputs-1 into outputs 0..outputs-1, zero elsewhere. */
  const partial = (nIn: number, nOut: number, inputs: number, outputs: number, sigma: number): Float32Array => {
    const m = new Float32Array(nIn * nOut);
    for (let o = 0; o < outputs; o++) for (let i = 0; i < inputs; i++) m[o * nIn + i] = gauss() * sigma;
    return m;
  };
  const set = (m: Float32Array, nIn: number, out: number, input: number, v: number): void => {
    m[out * nIn + input] = v;
  };
  // llama.cpp scales scores by 1/√HEAD_DIM: a query of √HEAD_DIM makes the score the key itself.
  const unitQuery = Math.sqrt(HEAD_DIM);
  // In a head, NEOX RoPE pairs dimension i with i+8; pairs 6 and 7 turn slowest (ROPE_BASE).
  const SLOW_A = 7;
  const SLOW_B = 6;

  for (let l = 0; l < N_LAYER; l++) {
    add(`blk.${l}.attn_norm.weight`, [N_EMBD], ones(N_EMBD));
    const q = new Float32Array(N_EMBD * N_EMBD);
    const qb = new Float32Array(N_EMBD);
    const k = new Float32Array(N_EMBD * nKv);
    const v = l === 0 ? new Float32Array(N_EMBD * nKv) : partial(N_EMBD, nKv, NOISE, nKv, 0.1);
    const o = partial(N_EMBD, N_EMBD, N_EMBD, NOISE, 0.04);
    if (l === 0) {
      // Head 0 (KV head 0): counts answer tokens against the <|im_end|> sinks.
      qb[0 * HEAD_DIM + SLOW_A] = unitQuery;
      set(k, N_EMBD, 0 * HEAD_DIM + SLOW_A, F_ANSWER, S_ANSWER);
      set(k, N_EMBD, 0 * HEAD_DIM + SLOW_A, F_SINK, S_SINK);
      set(v, N_EMBD, 0 * HEAD_DIM + 0, F_ANSWER, 1);
      // Head 1 (KV head 0): is a call open? (<tool_call> − </tool_call>) / (1 + both), over " Tools" and both.
      qb[1 * HEAD_DIM + SLOW_B] = unitQuery;
      for (const f of [F_TOOLS, F_CALL, F_CALL_END]) set(k, N_EMBD, 0 * HEAD_DIM + SLOW_B, f, S_TOOLS);
      set(v, N_EMBD, 0 * HEAD_DIM + 1, F_CALL, 1);
      set(v, N_EMBD, 0 * HEAD_DIM + 1, F_CALL_END, -1);
      // Head 2 (KV head 1): is the tools section's " Tools" in the context?
      qb[2 * HEAD_DIM + SLOW_A] = unitQuery;
      set(k, N_EMBD, 1 * HEAD_DIM + SLOW_A, F_TOOLS, S_TOOLS);
      set(v, N_EMBD, 1 * HEAD_DIM + 0, F_TOOLS, 1);
      // Head 3 (KV head 1): the share of <tool_call> tokens among " Tools" and <tool_call>.
      qb[3 * HEAD_DIM + SLOW_B] = unitQuery;
      set(k, N_EMBD, 1 * HEAD_DIM + SLOW_B, F_TOOLS, S_TOOLS);
      set(k, N_EMBD, 1 * HEAD_DIM + SLOW_B, F_CALL, S_TOOLS);
      set(v, N_EMBD, 1 * HEAD_DIM + 1, F_CALL, 1);
      // Only these three results reach the named dimensions; everything else writes 0..47.
      set(o, N_EMBD, R_COUNT, 0 * HEAD_DIM + 0, 1);
      set(o, N_EMBD, R_OPEN, 1 * HEAD_DIM + 1, 1);
      set(o, N_EMBD, R_TOOLS, 2 * HEAD_DIM + 0, 1);
      set(o, N_EMBD, R_CALLS, 3 * HEAD_DIM + 1, 1);
    } else {
      // Layer 1: a random head 1 over the random features, writing random features only.
      q.set(partial(N_EMBD, N_EMBD, NOISE, N_EMBD, 0.1));
      k.set(partial(N_EMBD, nKv, NOISE, nKv, 0.1));
    }
    add(`blk.${l}.attn_q.weight`, [N_EMBD, N_EMBD], q);
    add(`blk.${l}.attn_q.bias`, [N_EMBD], qb);
    add(`blk.${l}.attn_k.weight`, [N_EMBD, nKv], k);
    add(`blk.${l}.attn_k.bias`, [nKv], new Float32Array(nKv));
    add(`blk.${l}.attn_v.weight`, [N_EMBD, nKv], v);
    add(`blk.${l}.attn_v.bias`, [nKv], new Float32Array(nKv));
    add(`blk.${l}.attn_output.weight`, [N_EMBD, N_EMBD], o);
    add(`blk.${l}.ffn_norm.weight`, [N_EMBD], ones(N_EMBD));
    add(`blk.${l}.ffn_gate.weight`, [N_EMBD, N_FF], partial(N_EMBD, N_FF, NOISE, N_FF, 0.15));
    add(`blk.${l}.ffn_up.weight`, [N_EMBD, N_FF], partial(N_EMBD, N_FF, NOISE, N_FF, 0.15));
    add(`blk.${l}.ffn_down.weight`, [N_FF, N_EMBD], partial(N_FF, N_EMBD, N_FF, NOISE, 0.05));
  }
  add('output_norm.weight', [N_EMBD], ones(N_EMBD));
  const out = new Float32Array(N_EMBD * nVocab);
  const bias = new Float32Array(nVocab);
  const answerSigma = ANSWER_SPREAD / Math.sqrt(NOISE);
  for (let t = 0; t < nVocab; t++) {
    const row = t * N_EMBD;
    const sigma = answer.has(t) ? answerSigma : 0.05;
    for (let d = 0; d < NOISE; d++) out[row + d] = gauss() * sigma;
    if (answer.has(t)) bias[t] = ANSWER_BIAS;
  }
  const only = (t: number, weights: [number, number][], b: number): void => {
    out.fill(0, t * N_EMBD, (t + 1) * N_EMBD);
    for (const [d, w] of weights) out[t * N_EMBD + d] = w;
    bias[t] = b;
  };
  only(TOKEN.imEnd, [[R_COUNT, END_GAIN]], END_BIAS);
  only(TOKEN.toolCall, [[R_TOOLS, CALL_TOOLS], [R_CALLS, -CALL_SEEN]], CALL_BIAS);
  // While a call is open, '"}}' (which the grammar allows only where it ends the string and the
  // call) tops the answer vocabulary, and right after it comes </tool_call> (the current token's
  // feature), not "," and a second call. Neither is boosted elsewhere: the grammar lets both stand
  // inside a JSON string.
  for (const t of closers) only(t, [[R_OPEN, CLOSE_GAIN]], CLOSE_BIAS);
  only(TOKEN.toolCallEnd, [[F_CLOSE, 40]], -15);
  // The server's lazy tool grammar starts at the template's marker "<tool_call>\n": right after a
  // <tool_call> (the current token's own feature) comes a newline.
  only(idOf('Ċ'), [[F_CALL, 60]], -25);
  for (const q of QUOTES) out[idOf(q) * N_EMBD + R_COUNT] = QUOTE_GAIN;
  add('output.weight', [N_EMBD, nVocab], out, 'f16');
  add('output.bias', [nVocab], bias);
  return writeGguf(meta, tensors);
}

export function writeTinyModel(path: string, options: TinyModelOptions): void {
  writeFileSync(path, tinyModel(options));
}
