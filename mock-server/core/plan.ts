import { createHash } from 'node:crypto';
import { countTokens, generateText, splitIntoPieces, truncateToTokens, valueForSchema, type Piece } from './generator.ts';
import { fnv1a, mulberry32, randomInt } from './rng.ts';
import type { AnswerPlan, AskTool as ToolDef, GenerationAsk as ChatRequest, PlannedChoice, PlannedFinish, PlannedToolCall } from '../../src/protocols/protocol-mock.ts';
import { sampleJson } from './json-sampler.ts';
import { dropRequired, type JsonFault } from './response-format.ts';

export type FinishReason = PlannedFinish;
export type ToolCallPlan = PlannedToolCall;
export type ChoicePlan = PlannedChoice;
/** The generated answer (the protocol contract's AnswerPlan). */
export type CompletionPlan = AnswerPlan;

export interface GenerationSettings {
  seed: number;
  tokensPerChunk: readonly number[];
  /** Exact completion length, or an inclusive [min, max] range drawn per request. */
  completionTokens: number | readonly [number, number];
  /** A response-format fault bending the JSON answer (part of the plan's cache key). */
  jsonFault?: JsonFault;
}

/** What JSON mode (`json_object`) answers: an object of this shape. */
const JSON_OBJECT_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 }, tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
  required: ['answer', 'confidence', 'tags'],
};

/** Compat: max_tokens cuts the completion at a token boundary, finish_reason "length". */
function capAtMaxTokens(text: string, maxTokens: number | null): { text: string; finishReason: FinishReason } {
  if (maxTokens === null) return { text, finishReason: 'stop' };
  const cut = truncateToTokens(text, maxTokens);
  return cut.truncated ? { text: cut.text, finishReason: 'length' } : { text, finishReason: 'stop' };
}

/**
 * Compat (OpenAI JSON mode and Structured Outputs): the content is JSON text, an object valid against
 * the request's schema, drawn from the choice's seed; max_tokens still cuts it (finish_reason "length").
 */
function planJsonChoice(request: ChatRequest, settings: GenerationSettings, seed: number, index: number): ChoicePlan {
  const format = request.format;
  const schema = format.type === 'json_schema' ? format.schema : JSON_OBJECT_SCHEMA;
  let value = sampleJson(schema, mulberry32(seed));
  if (settings.jsonFault === 'array' && format.type === 'json_object') value = [value];
  if (settings.jsonFault === 'missing-required' && format.type === 'json_schema') value = dropRequired(value, schema);
  let text = JSON.stringify(value);
  if (settings.jsonFault === 'stream-cut' && format.type === 'json_schema') text = text.slice(0, -1);
  const capped = capAtMaxTokens(text, request.maxTokens);
  text = capped.text;
  const finishReason = capped.finishReason;
  const pieces = splitIntoPieces(text, settings.tokensPerChunk);
  return { index, content: text, pieces, toolCalls: [], finishReason, completionTokens: pieces.reduce((s, p) => s + p.tokens, 0) };
}

/** Compat: about 3 tokens of framing per message plus the tokens of each text and tool definition. */
export function promptTokensOf(request: ChatRequest): number {
  let total = 3;
  for (const m of request.messages) {
    total += 3 + countTokens(m.role) + countTokens(m.text ?? '');
    for (const c of m.toolCalls) total += countTokens(c.function.name) + countTokens(c.function.arguments);
  }
  if (request.tools.length > 0) total += countTokens(JSON.stringify(request.tools));
  return total;
}

/** The tools the model calls: none, the named one, or (parallel calls allowed) the first two declared. */
function chooseTools(request: ChatRequest, choiceIndex: number): ToolDef[] {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice.mode === 'none') return [];
  if (toolChoice.mode === 'named') return tools.filter((t) => t.name === toolChoice.name);
  const last = request.messages[request.messages.length - 1];
  // Compat: with "auto" the model answers in text once a tool result came back.
  if (toolChoice.mode === 'auto' && last?.role === 'tool') return [];
  if (request.parallelToolCalls && tools.length >= 2) return tools.slice(0, 2);
  const one = tools[choiceIndex % tools.length];
  return one === undefined ? [] : [one];
}

function truncateAtStop(text: string, stops: readonly string[]): { text: string; stopped: boolean } {
  let cut = -1;
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut < 0 ? { text, stopped: false } : { text: sliceWhole(text, cut), stopped: true };
}

/** text.slice(0, end), moved back so it never ends between the two halves of a surrogate pair. */
function sliceWhole(text: string, end: number): string {
  if (end >= text.length) return text;
  const before = text.charCodeAt(end - 1);
  return end > 0 && before >= 0xd800 && before <= 0xdbff ? text.slice(0, end - 1) : text.slice(0, end);
}

function truncatePieces(pieces: Piece[], maxTokens: number): { pieces: Piece[]; truncated: boolean } {
  let used = 0;
  const out: Piece[] = [];
  for (const p of pieces) {
    if (used + p.tokens > maxTokens) return { pieces: out, truncated: true };
    out.push(p);
    used += p.tokens;
  }
  return { pieces: out, truncated: false };
}

function planChoice(request: ChatRequest, settings: GenerationSettings, baseSeed: number, index: number, completionTokens: number): ChoicePlan {
  const seed = (baseSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  const chosen = chooseTools(request, index);
  if (chosen.length > 0) {
    const rng = mulberry32(seed);
    let budget = request.maxTokens ?? Number.POSITIVE_INFINITY;
    let finishReason: FinishReason = 'tool_calls';
    const toolCalls: ToolCallPlan[] = [];
    for (const [k, tool] of chosen.entries()) {
      if (finishReason === 'length') break;
      const args = JSON.stringify(valueForSchema(tool.parameters, rng));
      const id = `call_${seed.toString(16).padStart(8, '0')}${index.toString(16)}${k}${fnv1a(tool.name).toString(16)}`;
      let argPieces = splitIntoPieces(args, settings.tokensPerChunk);
      const nameTokens = countTokens(tool.name);
      budget -= nameTokens;
      const cut = truncatePieces(argPieces, Math.max(0, budget));
      if (cut.truncated) {
        argPieces = cut.pieces;
        finishReason = 'length';
      }
      const argTokens = argPieces.reduce((sum, p) => sum + p.tokens, 0);
      budget -= argTokens;
      toolCalls.push({ id, name: tool.name, arguments: argPieces.map((p) => p.text).join(''), argPieces, nameTokens });
    }
    return {
      index,
      content: null,
      pieces: [],
      toolCalls,
      finishReason,
      completionTokens: toolCalls.reduce((sum, t) => sum + t.nameTokens + t.argPieces.reduce((a, p) => a + p.tokens, 0), 0),
    };
  }
  if (request.format.type !== 'text') return planJsonChoice(request, settings, seed, index);
  const last = request.messages[request.messages.length - 1];
  const prefix = last?.role === 'tool' ? `Based on the tool result (${sliceWhole(last.text ?? '', 40)}), ` : '';
  const full = generateText(seed, completionTokens, prefix);
  const stopped = truncateAtStop(full, request.stop);
  const capped = capAtMaxTokens(stopped.text, request.maxTokens);
  const text = capped.text;
  const finishReason = capped.finishReason;
  let pieces = splitIntoPieces(text, settings.tokensPerChunk);
  if (request.maxTokens !== null) pieces = truncatePieces(pieces, request.maxTokens).pieces;
  const content = pieces.map((p) => p.text).join('');
  return { index, content, pieces, toolCalls: [], finishReason, completionTokens: pieces.reduce((s, p) => s + p.tokens, 0) };
}

/**
 * The answer's natural length (where the model would emit its end-of-sequence token), moved by
 * the vLLM sampling extensions: `min_tokens` pushes the end back to at least that many tokens,
 * `ignore_eos` moves it past max_tokens (so max_tokens cuts it, finish_reason "length"). Without
 * max_tokens, ignore_eos has nothing to run to and changes nothing.
 */
export function answerLength(request: Pick<ChatRequest, 'maxTokens' | 'ignoreEos' | 'minTokens'>, natural: number): number {
  let length = natural;
  if (request.minTokens !== null) length = Math.max(length, request.minTokens);
  if (request.ignoreEos && request.maxTokens !== null) length = Math.max(length, request.maxTokens + 1);
  return length;
}

const CACHE_LIMIT = 512;
const patternKeys = new WeakMap<readonly number[], string>();
const cache = new Map<string, CompletionPlan>();

/**
 * The deterministic completion for a request: same request, seed and settings give the same
 * text, tool calls and token counts. Plans are cached by the raw body, so a load test that repeats
 * one prompt pays for generation once.
 */
export function planCompletion(request: ChatRequest, rawBody: string, settings: GenerationSettings): CompletionPlan {
  const bodyKey = rawBody.length > 2048 ? createHash('sha256').update(rawBody).digest('base64') : rawBody;
  let patternKey = patternKeys.get(settings.tokensPerChunk);
  if (patternKey === undefined) {
    patternKey = settings.tokensPerChunk.join(',');
    patternKeys.set(settings.tokensPerChunk, patternKey);
  }
  const key = `${settings.seed}|${patternKey}|${String(settings.completionTokens)}|${request.format.type}|${settings.jsonFault ?? ''}|${bodyKey}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const conversation = JSON.stringify([request.model, request.messages, request.tools.map((t) => t.name), request.seed]);
  const baseSeed = fnv1a(conversation, (settings.seed >>> 0) ^ 0x811c9dc5);
  const range = settings.completionTokens;
  const length = answerLength(request, typeof range === 'number' ? range : randomInt(mulberry32(baseSeed), range[0], range[1]));
  const choices = Array.from({ length: request.n }, (_, i) => planChoice(request, settings, baseSeed, i, length));
  const plan: CompletionPlan = {
    promptTokens: promptTokensOf(request),
    completionTokens: choices.reduce((s, c) => s + c.completionTokens, 0),
    choices,
    streamCache: new Map(),
  };
  cache.set(key, plan);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return plan;
}
