import type { CalledTool, CheckedResponse, NormalUsage, ResponseFacts } from '../protocol.ts';
import type { ContentEvent, StreamCheckResult } from './stream-types.ts';

/** usage.completion_tokens_details.reasoning_tokens (OpenAI; vLLM, DeepSeek), or null. */
export function reasoningTokensOf(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const d = (usage as { completion_tokens_details?: unknown }).completion_tokens_details;
  if (typeof d !== 'object' || d === null) return null;
  const n = (d as { reasoning_tokens?: unknown }).reasoning_tokens;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** OpenAI usage: `prompt_tokens_details.cached_tokens`, the prompt tokens served from the prompt cache. */
export function cachedTokensOf(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const details = (usage as { prompt_tokens_details?: unknown }).prompt_tokens_details;
  if (typeof details !== 'object' || details === null) return null;
  const cached = (details as { cached_tokens?: unknown }).cached_tokens;
  return typeof cached === 'number' && Number.isInteger(cached) && cached >= 0 ? cached : null;
}

/**
 * llama.cpp's per-request `timings` (its server, non-streamed body and final stream chunk):
 * `prompt_ms` is the time it spent on the prompt before the first token, a server-side TTFT
 * (issue 43: "llama.cpp's per-request timings (a server-side TTFT) are ignored").
 */
export function serverPrefillMsOf(timings: unknown): number | undefined {
  if (typeof timings !== 'object' || timings === null) return undefined;
  const ms = (timings as { prompt_ms?: unknown }).prompt_ms;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** A streamed answer's usage (the usage chunk's), normalised: D-LOAD-03 trusts an integer completion_tokens only. */
function streamUsage(usage: unknown): NormalUsage {
  const u = (typeof usage === 'object' && usage !== null ? usage : {}) as { completion_tokens?: unknown; prompt_tokens?: unknown };
  const output = typeof u.completion_tokens === 'number' && Number.isInteger(u.completion_tokens) ? u.completion_tokens : null;
  return { input: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null, output, cachedInput: cachedTokensOf(usage), reasoning: reasoningTokensOf(usage) };
}

function assembledText(r: StreamCheckResult): string {
  let text = '';
  for (const c of r.assembled.choices) {
    text += (c.content ?? '') + (c.refusal ?? '');
    for (const call of c.toolCalls) text += (call.name ?? '') + call.arguments;
  }
  return text;
}

/** Each event's text, recovered from the assembled content and reasoning (single choice, content only). */
function eventTexts(r: StreamCheckResult, events: readonly ContentEvent[]): string[] | null {
  const choices = r.assembled.choices;
  const c = choices[0];
  if (choices.length !== 1 || c === undefined || c.refusal !== null || c.toolCalls.length > 0) return null;
  const content = c.content ?? '';
  const reasoning = r.timing.reasoning ?? '';
  let pos = 0;
  let rpos = 0;
  const texts = events.map((e) => {
    if (e.reasoning === true) {
      const piece = reasoning.slice(rpos, rpos + e.chars);
      rpos += e.chars;
      return piece;
    }
    const piece = content.slice(pos, pos + e.chars);
    pos += e.chars;
    return piece;
  });
  return pos === content.length && rpos === reasoning.length ? texts : null;
}

/**
 * The facts of a checked chat completion stream. Spec, Streamed chunk: "The text fragment is at
 * choices[0].delta.content and may be absent": the output events are only those the checker saw
 * carrying text, a tool call or reasoning (D-LOAD-02).
 */
export function streamFacts(r: StreamCheckResult): ResponseFacts {
  const events = r.timing.contentEvents;
  const first = r.assembled.choices[0];
  const facts: ResponseFacts = {
    events: r.reader.events,
    // Content events are output events (arrival, characters, reasoning): handed over as they are, not copied (2,000 per long stream).
    output: events,
    usage: streamUsage(r.assembled.usage),
    outputText: () => assembledText(r),
    eventTexts: () => eventTexts(r, events),
    answer: first?.content ?? null,
    toolCalls: (first?.toolCalls ?? []).map((c) => ({ name: c.name ?? null, arguments: c.arguments })),
    finish: typeof first?.finishReason === 'string' ? first.finishReason : null,
  };
  if (first?.finishReason === 'length') facts.cutAtLimit = true;
  const prefill = serverPrefillMsOf(r.assembled.timings);
  if (prefill !== undefined) facts.serverPrefillMs = prefill;
  if (r.timing.reasoning !== undefined) facts.reasoningText = r.timing.reasoning;
  if (r.timing.firstToolCallAt !== undefined) facts.firstToolCallAt = r.timing.firstToolCallAt;
  return facts;
}

/** A whole answer's message.tool_calls as name and arguments text (arguments that are not a string kept as JSON text). */
function wholeToolCalls(raw: unknown): CalledTool[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((c) => {
    const f = (c as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    return { name: typeof f?.name === 'string' ? f.name : null, arguments: typeof f?.arguments === 'string' ? f.arguments : JSON.stringify(f?.arguments ?? null) };
  });
}

/** A whole chat completion (compat ChatCompletion): its first choice's message and its usage. */
export function judgeWholeCompletion(parsed: unknown): CheckedResponse {
  const body = parsed as { choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[]; usage?: { completion_tokens?: unknown; prompt_tokens?: unknown } } | null;
  const choice = body !== null && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = choice?.message;
  const content = message !== undefined && typeof message === 'object' && message !== null && typeof message.content === 'string' ? message.content : null;
  const usage = body?.usage;
  const facts: ResponseFacts = {
    events: 0,
    output: [],
    usage: {
      input: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : null,
      output: typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : null,
      cachedInput: cachedTokensOf(usage),
      reasoning: null,
    },
    outputText: () => content ?? '',
    eventTexts: () => null,
    answer: content,
    toolCalls: message !== undefined && typeof message === 'object' && message !== null ? wholeToolCalls(message.tool_calls) : [],
    finish: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
  };
  if (choice?.finish_reason === 'length') facts.cutAtLimit = true;
  const prefill = serverPrefillMsOf((parsed as { timings?: unknown } | null)?.timings);
  if (prefill !== undefined) facts.serverPrefillMs = prefill;
  if (message === undefined || typeof message !== 'object' || message === null) return { findings: [], facts, unusable: { detail: 'response has no choices[0].message' } };
  return { findings: [], facts };
}
