import type { FaultDefinition } from './fault-catalogue.ts';
import type { FullResponse, MockRequest, MockResponse, StreamEvent } from './types.ts';
import { coreOnlyBody, extensionModes } from './extension-modes.ts';
import { mutateToolCalls, mutateToolEvents, rewriteToolChoice, toolBreadthFaults } from './tool-breadth-faults.ts';
import { chunkBase, chunkOf, withChunk } from './event-chunks.ts';
import { CHAT_COMPLETIONS_PATH } from '../../src/protocols/chat-completions/chat-request.ts';

// Chat, stream and tool faults applied around the chat route: a request rewrite before it (the
// server ignores or mishandles one request member) or a rewrite of the finished completion / of the
// stream's events after it. Each changes one behaviour; `breaks` is what the fault matrix observes.

type Json = Record<string, unknown>;

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });
const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });

export const chatFaults: readonly FaultDefinition[] = [
  // Requests the server mishandles
  f('tool-choice-named-rejected', ['TOOLS-001'], 'A non-streamed request with a named tool_choice answers 400 (param tool_choice).'),
  // OpenAI refuses unknown members ("Unrecognized request argument supplied: x", D-GRADE-06 #5); vLLM ignores them.
  legal('legal-unknown-member-rejected', ['CHAT-020'], 'A request with an unknown top-level member answers 400 "Unrecognized request argument supplied: <name>", param null, as OpenAI does.'),
  f('unknown-member-500', ['CHAT-020'], 'A request with an unknown top-level member answers 500 (neither ignored nor refused as a client fault).'),
  f('missing-model-defaulted', ['CHAT-021'], 'A request without model is served with the first listed model.'),
  f('invalid-json-served', ['CHAT-032'], 'A body that is not valid JSON is answered as a default one-message request (200).'),
  f('tool-call-id-optional', ['CHAT-027'], 'A tool message without tool_call_id is accepted.'),
  { ...f('n-ignored', ['CHAT-029', 'CHAT-STREAM-039'], 'n is ignored: one choice only (legal by default; fails under --expect n).'), expect: ['n'] },
  { ...f('max-tokens-ignored', ['CHAT-030'], 'max_tokens and max_completion_tokens are ignored (legal by default; fails under --expect max-completion-tokens).'), expect: ['max-completion-tokens'] },
  f('tool-messages-rejected', ['CHAT-018', 'CHAT-026', 'TOOLS-011'], 'A conversation containing a role tool message answers 400.'),
  f('tool-choice-none-ignored', ['TOOLS-018', 'TOOLS-027'], 'tool_choice "none" is treated as "auto".'),
  f('tool-choice-named-swapped', ['TOOLS-019', 'TOOLS-027'], 'A named tool_choice calls another declared function instead.'),
  { ...f('parallel-false-ignored', ['TOOLS-020'], 'parallel_tool_calls false is ignored (legal by default; fails under --expect parallel-tool-calls-false).'), expect: ['parallel-tool-calls-false'] },
  f('tool-name-unvalidated', ['TOOLS-021'], 'Function names with spaces or over 64 characters are accepted.'),
  // Completion body
  f('completion-not-object', ['CHAT-001', 'CHAT-029', 'CHAT-030', 'CHAT-031'], 'A completion is sent wrapped in a JSON array.'),
  f('completion-id-prefix', ['CHAT-003'], 'Completion ids start with "cmpl-" instead of "chatcmpl-".'),
  f('completion-created-stale', ['CHAT-006', 'CHAT-STREAM-047'], 'created is two days in the past (completions and stream chunks).'),
  f('completion-model-empty', ['CHAT-007'], 'A completion has model "".'),
  f('completion-choices-empty', ['CHAT-008', 'CHAT-029'], 'A completion has choices [].'),
  f('completion-role-wrong', ['CHAT-010'], 'The completion message has role "model".'),
  f('logprobs-missing', ['CHAT-014'], 'Choices have no logprobs member.'),
  f('usage-total-string', ['CHAT-015', 'CHAT-016'], 'usage.total_tokens is a string.'),
  f('prompt-tokens-zero', ['CHAT-017'], 'usage.prompt_tokens is 0 (total_tokens = completion_tokens).'),
  f('completion-content-type-text', ['CHAT-031'], 'Completions declare Content-Type text/plain (the openai SDK then returns a string).'),
  f('tool-calls-empty', ['TOOLS-002', 'TOOLS-008', 'TOOLS-019', 'TOOLS-023', 'TOOLS-027'], 'A tool-call answer carries tool_calls [].'),
  f('tool-type-wrong', ['TOOLS-004'], 'Tool calls have type "tool" instead of "function".'),
  f('tool-name-undeclared', ['TOOLS-005', 'TOOLS-019', 'TOOLS-027'], 'Tool calls name "<name>_v2", a function not in the request.'),
  f('tool-content-missing', ['TOOLS-010'], 'An assistant message with tool_calls has no content key.'),
  // Stream events
  f('stream-created-changes', ['CHAT-STREAM-010'], 'created grows by one second with every chunk.'),
  f('stream-model-empty', ['CHAT-STREAM-011'], 'Every chunk has model "".'),
  f('stream-empty-choices-chunk', ['CHAT-STREAM-044'], 'An extra chunk with choices [] (and no usage) is sent after the first chunk (Azure sends one for prompt filter results).'),
  f('stream-choices-missing', ['CHAT-STREAM-012'], 'An extra chunk without a choices member is sent after the first chunk.'),
  f('stream-content-number', ['CHAT-STREAM-016'], 'An extra chunk carries delta.content 0 (a number).'),
  f('stream-content-after-finish', ['CHAT-STREAM-021'], 'A content chunk for choice 0 follows its finish_reason chunk.'),
  f('stream-no-chunks', ['CHAT-STREAM-022', 'CHAT-STREAM-038', 'CHAT-STREAM-039'], 'A stream carries no chunk, only [DONE] (the openai SDK then yields nothing; n=2 streams no choice).'),
  f('stream-usage-before-finish', ['CHAT-STREAM-024'], 'The usage chunk comes before the finish_reason chunk.'),
  f('stream-named-events', ['CHAT-STREAM-037'], 'Chunk events carry "event: completion".'),
  f('stream-tool-index-from-1', ['TOOLS-016'], 'Streamed tool-call indexes start at 1.'),
  f('stream-comments', ['CHAT-STREAM-032'], 'A ": ping" comment line precedes each event (legal; recorded).'),
  f('stream-crlf', ['CHAT-STREAM-034'], 'Lines end with CRLF (legal; recorded).'),
  f('stream-data-no-space', ['CHAT-STREAM-036'], '"data:" without a space (legal; recorded).'),
  f('stream-unknown-field', ['CHAT-STREAM-042'], 'Each event carries an unknown "x-note:" field (legal; recorded).'),
  f('stream-split-event', ['CHAT-STREAM-035'], 'The first chunk event is written in two pieces 30 ms apart (legal; recorded).'),
  f('stream-invalid-utf8', ['CHAT-STREAM-041'], 'An extra content chunk carries the byte 0xFF inside its text (not UTF-8).'),
  f('stream-bom', ['CHAT-STREAM-043'], 'The stream starts with a UTF-8 byte order mark (legal SSE, but openai-python loses the first event).'),
];

const names = new Set([...chatFaults, ...extensionModes, ...toolBreadthFaults].map((x) => x.name));
const active = (fs: ReadonlySet<string>): boolean => fs.size > 0 && [...fs].some((n) => names.has(n));
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const KNOWN = new Set(['model', 'messages', 'stream', 'stream_options', 'n', 'stop', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'seed', 'user', 'presence_penalty', 'frequency_penalty', 'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'logit_bias', 'metadata', 'store', 'reasoning_effort']);

/** Before the chat route: the request as a server with the fault would understand it, or a refusal. */
export function rewriteChatRequest(req: MockRequest, fs: ReadonlySet<string>): MockRequest | { status: 400 | 500; param: string | null; message: string } {
  if (!active(fs) || req.method !== 'POST' || !req.path.startsWith(CHAT_COMPLETIONS_PATH)) return req;
  let body: Json;
  try {
    const v: unknown = JSON.parse(decoder.decode(req.body));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return req;
    body = v as Json;
  } catch {
    if (!fs.has('invalid-json-served')) return req;
    body = { model: 'iari-mini', messages: [{ role: 'user', content: 'hi' }] };
    return { ...req, body: encoder.encode(JSON.stringify(body)) };
  }
  // legal-core-only: members beyond the seed's table are dropped (legal-refuses-extensions: the chat protocol's validation refuses them, after auth).
  if (fs.has('legal-core-only')) {
    // TOOLS-027: tool_choice is not a member a server may drop; one that cannot enforce it refuses it ("auto" is what it does anyway).
    if (body['tool_choice'] !== undefined && body['tool_choice'] !== 'auto') return { status: 400, param: 'tool_choice', message: 'tool_choice is not supported: this server cannot enforce it.' };
    body = coreOnlyBody(body);
  }
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Json[]) : [];
  if (fs.has('legal-unknown-member-rejected') || fs.has('unknown-member-500')) {
    const extra = Object.keys(body).find((k) => !KNOWN.has(k));
    if (extra !== undefined && fs.has('unknown-member-500')) return { status: 500, param: null, message: 'The server had an error while processing your request.' };
    if (extra !== undefined) return { status: 400, param: null, message: `Unrecognized request argument supplied: ${extra}` };
  }
  if (fs.has('tool-choice-named-rejected') && body['stream'] !== true && typeof body['tool_choice'] === 'object' && body['tool_choice'] !== null) return { status: 400, param: 'tool_choice', message: 'A named tool_choice is not supported.' };
  if (fs.has('tool-messages-rejected') && messages.some((m) => m?.['role'] === 'tool')) return { status: 400, param: 'messages', message: 'Tool messages are not supported.' };
  if (fs.has('missing-model-defaulted') && body['model'] === undefined) body['model'] = 'iari-mini';
  if (fs.has('tool-call-id-optional')) for (const m of messages) if (m?.['role'] === 'tool' && m['tool_call_id'] === undefined) m['tool_call_id'] = 'call_any';
  if (fs.has('n-ignored')) delete body['n'];
  if (fs.has('max-tokens-ignored')) {
    delete body['max_tokens'];
    delete body['max_completion_tokens'];
  }
  if (fs.has('tool-choice-none-ignored') && body['tool_choice'] === 'none') body['tool_choice'] = 'auto';
  rewriteToolChoice(body, fs);
  if (fs.has('parallel-false-ignored') && body['parallel_tool_calls'] === false) delete body['parallel_tool_calls'];
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Json[]) : [];
  if (fs.has('tool-choice-named-swapped')) {
    const named = (body['tool_choice'] as Json | undefined)?.['function'] as Json | undefined;
    const other = tools.map((t) => (t['function'] as Json | undefined)?.['name']).find((n) => typeof n === 'string' && n !== named?.['name']);
    if (named !== undefined && other !== undefined) named['name'] = other;
  }
  if (fs.has('tool-name-unvalidated')) {
    tools.forEach((t, i) => {
      const fn = t['function'] as Json | undefined;
      if (fn !== undefined && typeof fn['name'] === 'string' && !/^[A-Za-z0-9_-]{1,64}$/.test(fn['name'])) fn['name'] = `fn_${i}`;
    });
  }
  return { ...req, body: encoder.encode(JSON.stringify(body)) };
}

function mutateCompletion(body: Json, fs: ReadonlySet<string>): void {
  const has = (n: string): boolean => fs.has(n);
  if (has('completion-id-prefix') && typeof body['id'] === 'string') body['id'] = body['id'].replace(/^chatcmpl-/, 'cmpl-');
  if (has('completion-created-stale') && typeof body['created'] === 'number') body['created'] -= 2 * 86_400;
  if (has('completion-model-empty')) body['model'] = '';
  if (has('completion-choices-empty')) body['choices'] = [];
  const usage = body['usage'] as Json | undefined;
  if (usage !== undefined && usage !== null) {
    if (has('usage-total-string')) usage['total_tokens'] = String(usage['total_tokens']);
    if (has('prompt-tokens-zero')) {
      usage['prompt_tokens'] = 0;
      usage['total_tokens'] = usage['completion_tokens'];
    }
  }
  for (const c of (Array.isArray(body['choices']) ? body['choices'] : []) as Json[]) {
    const msg = c['message'] as Json | undefined;
    if (has('logprobs-missing')) delete c['logprobs'];
    if (msg === undefined) continue;
    if (has('completion-role-wrong')) msg['role'] = 'model';
    const calls = Array.isArray(msg['tool_calls']) ? (msg['tool_calls'] as Json[]) : undefined;
    if (calls === undefined) continue;
    if (has('tool-content-missing')) delete msg['content'];
    if (has('tool-calls-empty')) msg['tool_calls'] = [];
    mutateToolCalls(calls, fs);
    for (const call of calls) {
      if (has('tool-type-wrong')) call['type'] = 'tool';
      const fn = call['function'] as Json | undefined;
      if (has('tool-name-undeclared') && fn !== undefined) fn['name'] = `${String(fn['name'])}_v2`;
    }
  }
}

const extra = (atMs: number, chunk: Json): StreamEvent => ({ atMs, data: `data: ${JSON.stringify(chunk)}\n\n`, tokens: 0, content: false });

function mutateEvents(events: readonly StreamEvent[], fs: ReadonlySet<string>): StreamEvent[] {
  const has = (n: string): boolean => fs.has(n);
  let out = mutateToolEvents([...events], fs);
  const chunks = out.map(chunkOf);
  const first = chunks.find((c) => c !== undefined);
  const firstAt = out[0]?.atMs ?? 0;
  if (has('stream-no-chunks')) return out.filter((e) => e.data.startsWith('data: [DONE]') || e.data.startsWith('data: {"error"'));
  if (has('stream-created-changes') || has('stream-model-empty') || has('stream-tool-index-from-1')) {
    let k = 0;
    out = out.map((e, i) => {
      const c = chunks[i];
      if (c === undefined) return e;
      if (has('stream-created-changes') && typeof c['created'] === 'number') c['created'] += k++;
      const choices = Array.isArray(c['choices']) ? (c['choices'] as Json[]) : [];
      if (has('stream-model-empty')) c['model'] = '';
      if (has('stream-tool-index-from-1')) {
        for (const ch of choices) for (const t of ((ch['delta'] as Json | undefined)?.['tool_calls'] ?? []) as Json[]) if (typeof t['index'] === 'number') t['index'] += 1;
      }
      return withChunk(e, c);
    });
  }
  if (first !== undefined) {
    const base = chunkBase(first);
    if (has('stream-empty-choices-chunk')) out.splice(1, 0, extra(firstAt, { ...base, choices: [] }));
    if (has('stream-choices-missing')) out.splice(1, 0, extra(firstAt, { ...base }));
    if (has('stream-content-number')) out.splice(1, 0, extra(firstAt, { ...base, choices: [{ index: 0, delta: { content: 0 }, logprobs: null, finish_reason: null }] }));
    if (has('stream-invalid-utf8')) {
      const text = `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'x\uFFFDy' }, logprobs: null, finish_reason: null }] })}\n\n`;
      const utf8 = encoder.encode(text);
      const at = utf8.findIndex((b, i) => b === 0xef && utf8[i + 1] === 0xbf && utf8[i + 2] === 0xbd);
      const bytes = new Uint8Array([...utf8.subarray(0, at), 0xff, ...utf8.subarray(at + 3)]);
      out.splice(1, 0, { ...extra(firstAt, {}), data: text, bytes });
    }
    const finishAt = out.map(chunkOf).findIndex((c) => ((c?.['choices'] ?? []) as Json[]).some((ch) => ch['index'] === 0 && ch['finish_reason'] !== null && ch['finish_reason'] !== undefined));
    if (has('stream-content-after-finish') && finishAt >= 0) {
      out.splice(finishAt + 1, 0, extra(out[finishAt]?.atMs ?? firstAt, { ...base, choices: [{ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }] }));
    }
    if (has('stream-usage-before-finish') && finishAt >= 0) {
      const u = out.findIndex((e) => { const c = chunkOf(e); return c !== undefined && Array.isArray(c['choices']) && (c['choices'] as unknown[]).length === 0 && c['usage'] !== null && c['usage'] !== undefined; });
      if (u > finishAt) {
        const [usageEvent] = out.splice(u, 1);
        if (usageEvent !== undefined) out.splice(finishAt, 0, usageEvent);
      }
    }
  }
  if (has('stream-named-events')) out = out.map((e) => (chunkOf(e) === undefined ? e : { ...e, data: `event: completion\n${e.data}` }));
  if (has('stream-comments')) out = out.map((e) => ({ ...e, data: `: ping\n${e.data}` }));
  if (has('stream-unknown-field')) out = out.map((e) => ({ ...e, data: `x-note: iari\n${e.data}` }));
  if (has('stream-data-no-space')) out = out.map((e) => ({ ...e, data: e.data.replace(/^data: /gm, 'data:') }));
  if (has('stream-crlf')) out = out.map((e) => ({ ...e, data: e.data.replace(/\n/g, '\r\n') }));
  if (has('stream-split-event') && out[0] !== undefined) {
    const e = out[0];
    const cut = Math.floor(e.data.length / 2);
    const later = e.atMs + 30;
    out = [{ ...e, data: e.data.slice(0, cut) }, { atMs: later, data: e.data.slice(cut), tokens: 0, content: false }, ...out.slice(1).map((x) => ({ ...x, atMs: Math.max(x.atMs, later) }))];
  }
  if (has('stream-bom') && out[0] !== undefined) out[0] = { ...out[0], data: `\uFEFF${out[0].data}` };
  return out;
}

/** After the chat route: the completion or stream as the faulty server would write it. */
export function rewriteChatResponse(res: MockResponse, fs: ReadonlySet<string>): MockResponse {
  if (!active(fs) || res.status !== 200) return res;
  if (res.kind === 'stream') {
    res.events = mutateEvents(res.events, fs);
    return res;
  }
  const full: FullResponse = res;
  if (typeof full.body !== 'string') return res;
  let body: Json;
  try {
    body = JSON.parse(full.body) as Json;
  } catch {
    return res;
  }
  if (body['object'] !== 'chat.completion') return res;
  mutateCompletion(body, fs);
  full.body = JSON.stringify(fs.has('completion-not-object') ? [body] : body);
  if (fs.has('completion-content-type-text')) full.headers['content-type'] = 'text/plain; charset=utf-8';
  return res;
}
