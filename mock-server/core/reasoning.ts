import type { FaultDefinition } from './fault-catalogue.ts';
import type { MockRequest, MockResponse, StreamEvent } from './types.ts';
import { countTokens } from './generator.ts';
import { chunkBase, chunkOf, withChunk } from './event-chunks.ts';
import { CHAT_COMPLETIONS_PATH } from '../../src/protocols/chat-completions/chat-request.ts';

// The mock's reasoning model (issue 19): `iari-reasoner` thinks before it answers. Streamed, its
// reasoning comes first as delta.reasoning_content (DeepSeek, vLLM before PR 27752), or as
// delta.reasoning under legal-reasoning-field (vLLM after it, Ollama); not streamed, it is
// message.reasoning_content. usage.completion_tokens counts it, and
// usage.completion_tokens_details.reasoning_tokens says how much of it was reasoning; the account's
// ledger counts it too, streamed or not. reasoning_effort sets how much it thinks (OpenAI: "Reducing
// reasoning effort can result in ... fewer tokens used on reasoning"; Ollama: "none" turns thinking off).

type Json = Record<string, unknown>;

export const REASONING_MODEL = 'iari-reasoner';

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });
const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });

export const reasoningFaults: readonly FaultDefinition[] = [
  legal('legal-reasoning-field', ['CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050'], 'The reasoning model sends its thinking under "reasoning" (vLLM after PR 27752, Ollama) instead of "reasoning_content".'),
  f('reasoning-leaked', ['CHAT-STREAM-048'], 'The reasoning model also sends its thinking in content, wrapped in <think>...</think>.'),
  f('reasoning-after-content', ['CHAT-STREAM-049'], 'The reasoning model streams its thinking after the answer.'),
  f('reasoning-tokens-exceed', ['CHAT-STREAM-050'], 'usage.completion_tokens_details.reasoning_tokens is larger than completion_tokens.'),
  f('reasoning-echo-rejected', ['CHAT-038'], 'A request whose assistant message carries the reasoning it was given back (reasoning_content or reasoning) answers 400.'),
  { ...f('reasoning-effort-ignored', ['CHAT-039'], 'reasoning_effort is accepted and ignored: every effort reasons as "medium" (legal by default; fails under --expect reasoning-effort).'), expect: ['reasoning-effort'] },
  { ...f('reasoning-absent', ['CHAT-038', 'CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'], 'iari-reasoner answers without reasoning, as a server with no reasoning model does (legal by default; fails under --expect reasoning).'), expect: ['reasoning'] },
  f('reasoning-empty-alias', ['CLIENT-027', 'CLIENT-054'], 'Thinking chunks carry delta.reasoning_content "" beside delta.reasoning (an empty alias): the AI SDK reads reasoning_content first and gives the application no reasoning.'),
  f('reasoning-effort-inverted', ['CHAT-039'], 'reasoning_effort "low" reasons more than "high" (the efforts are swapped).'),
];

const THOUGHT_LOW = ['The user asks for a short reply.'];
const THOUGHT_MEDIUM = [...THOUGHT_LOW, ' A greeting fits;', ' keep it to one sentence.'];
const THOUGHT_HIGH = [...THOUGHT_MEDIUM, ' Check the tone once more:', ' friendly, plain,', ' and without a question back.'];

/** The reasoning pieces for a request's reasoning_effort (none: no reasoning at all, as Ollama does). */
export function thoughtFor(effort: unknown, fs: ReadonlySet<string>): readonly string[] {
  if (fs.has('reasoning-effort-ignored') || typeof effort !== 'string') return THOUGHT_MEDIUM;
  const level = fs.has('reasoning-effort-inverted') ? ({ low: 'high', minimal: 'high', high: 'low', xhigh: 'low' } as Record<string, string>)[effort] ?? effort : effort;
  if (level === 'none') return [];
  if (level === 'minimal' || level === 'low') return THOUGHT_LOW;
  if (level === 'high' || level === 'xhigh') return THOUGHT_HIGH;
  return THOUGHT_MEDIUM;
}

/** Streamed, the default (medium) thinking comes in this many chunks, one inter-token gap apart, before the answer moves on. */
export const REASONING_CHUNKS = THOUGHT_MEDIUM.length;

function bodyOf(req: MockRequest): Json | undefined {
  try {
    const v: unknown = JSON.parse(new TextDecoder().decode(req.body));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Fault reasoning-echo-rejected: the refusal of a tool turn that gives the reasoning back. */
export function reasoningRefusal(req: MockRequest, fs: ReadonlySet<string>): { status: 400; param: string; message: string } | undefined {
  if (!fs.has('reasoning-echo-rejected') || req.method !== 'POST' || !req.path.startsWith(CHAT_COMPLETIONS_PATH)) return undefined;
  const body = bodyOf(req);
  const messages = Array.isArray(body?.['messages']) ? (body['messages'] as Json[]) : [];
  const at = messages.findIndex((m) => m?.['role'] === 'assistant' && ('reasoning_content' in m || 'reasoning' in m));
  return at < 0 ? undefined : { status: 400, param: `messages[${at}]`, message: `Invalid 'messages[${at}]': reasoning is not accepted in input messages.` };
}

const delta0 = (c: Json | undefined): Json | undefined => ((Array.isArray(c?.['choices']) ? (c['choices'] as Json[]) : [])[0]?.['delta'] as Json | undefined);

function withReasoningUsage(usage: Json, reasoning: number, fs: ReadonlySet<string>): void {
  if (typeof usage['completion_tokens'] !== 'number' || typeof usage['total_tokens'] !== 'number') return;
  usage['completion_tokens'] += reasoning;
  usage['total_tokens'] += reasoning;
  usage['completion_tokens_details'] = { reasoning_tokens: fs.has('reasoning-tokens-exceed') ? usage['completion_tokens'] + 5 : reasoning };
}

/** The reasoning model's answer: thinking added before (or, faulted, after) the answer, and counted. */
export function applyReasoning(req: MockRequest, res: MockResponse, fs: ReadonlySet<string>): MockResponse {
  if (res.status !== 200 || req.method !== 'POST' || !req.path.startsWith(CHAT_COMPLETIONS_PATH)) return res;
  const request = bodyOf(req);
  if (request?.['model'] !== REASONING_MODEL) return res;
  const field = fs.has('legal-reasoning-field') ? 'reasoning' : 'reasoning_content';
  const thought = fs.has('reasoning-absent') ? [] : thoughtFor(request['reasoning_effort'], fs);
  if (thought.length === 0) return res;
  const thoughtText = thought.join('');
  const reasoningTokens = countTokens(thoughtText);
  if (res.kind === 'stream') {
    const events = [...res.events];
    const first = events.map(chunkOf).find((c) => c !== undefined && Array.isArray(c['choices']) && (c['choices'] as unknown[]).length > 0);
    if (first === undefined) return res;
    const base = chunkBase(first);
    const make = (d: Json, atMs: number, tokens: number): StreamEvent => ({ atMs, data: `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: null }] })}\n\n`, tokens, content: tokens > 0 });
    const answerAt = events.findIndex((e) => { const d = delta0(chunkOf(e)); return d !== undefined && ((typeof d['content'] === 'string' && d['content'] !== '') || Array.isArray(d['tool_calls'])); });
    const finishAt = events.findIndex((e) => { const c = chunkOf(e); return ((c?.['choices'] ?? []) as Json[]).some((ch) => ch['finish_reason'] !== null && ch['finish_reason'] !== undefined); });
    const at = fs.has('reasoning-after-content') && finishAt >= 0 ? finishAt : answerAt >= 0 ? answerAt : 1;
    const atMs = events[at]?.atMs ?? 0;
    // The thinking takes time: one chunk per inter-token gap of the answer (10 ms when it has one chunk),
    // and everything after it moves later by the reasoning phase (one gap per chunk).
    const next = events[at + 1]?.atMs;
    const gap = next !== undefined && next > atMs ? next - atMs : 10;
    const piece = (t: string): Json => (fs.has('reasoning-empty-alias') ? { reasoning_content: '', reasoning: t } : { [field]: t });
    const thinking = thought.map((t, i) => make(piece(t), atMs + i * gap, countTokens(t)));
    if (fs.has('reasoning-leaked')) thinking.push(make({ content: `<think>${thoughtText}</think>` }, atMs + (thought.length - 1) * gap, 0));
    for (let i = at; i < events.length; i++) events[i] = { ...(events[i] as StreamEvent), atMs: (events[i] as StreamEvent).atMs + thought.length * gap };
    events.splice(at, 0, ...thinking);
    for (const [i, e] of events.entries()) {
      const c = chunkOf(e);
      const usage = c?.['usage'];
      if (c === undefined || typeof usage !== 'object' || usage === null) continue;
      withReasoningUsage(usage as Json, reasoningTokens, fs);
      events[i] = withChunk(e, c);
    }
    const { wire: _fastPath, ...rest } = res;
    // The ledger counts the events really written, the thinking among them (as usage.completion_tokens does).
    return { ...rest, events, finish: (result) => res.finish({ ...result, events }) };
  }
  if (typeof res.body !== 'string') return res;
  let body: Json;
  try {
    body = JSON.parse(res.body) as Json;
  } catch {
    return res;
  }
  for (const c of (Array.isArray(body['choices']) ? body['choices'] : []) as Json[]) {
    const msg = c['message'] as Json | undefined;
    if (msg === undefined) continue;
    Object.assign(msg, fs.has('reasoning-empty-alias') ? { reasoning_content: '', reasoning: thoughtText } : { [field]: thoughtText });
    if (fs.has('reasoning-leaked') && typeof msg['content'] === 'string') msg['content'] = `<think>${thoughtText}</think>${msg['content']}`;
  }
  if (typeof body['usage'] === 'object' && body['usage'] !== null) withReasoningUsage(body['usage'] as Json, reasoningTokens, fs);
  // The ledger counts the reasoning of a plain answer as it does a streamed one's.
  const done = res.done;
  return { ...res, body: JSON.stringify(body), ...(done === undefined ? {} : { done: (sent: boolean) => done(sent, reasoningTokens) }) };
}
