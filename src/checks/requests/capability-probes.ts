import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import { at, isRecord } from '../kernel/evidence.ts';
import { BOTH_TOOLS_PROMPT, chatBody, modelUnderTest, modelIds, parallelToolStream, timeTool, weatherTool } from './common-requests.ts';
import { StreamValidator } from '../../protocols/chat-completions/stream-checker.ts';
import { streamChunks } from '../../protocols/chat-completions/stream-chunks.ts';
import { callsByIndex, streamedCallCount, toolDeltas } from '../wire/streamed-tool-calls.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { capabilityDef, offered, type Capability, type CapabilityProbe } from '../registry/capabilities.ts';
import type { Protocol } from '../../protocols/protocol.ts';
import { protocolNamed, rootPath } from '../../protocols/registry.ts';
import { WEATHER_PROMPT, WEATHER_SCHEMA_FOR_PROBE, schemaProblem } from '../wire/structured-output.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest, sharedRequestBy } from '../context/shared-requests.ts';
import { probeResponsesState } from './responses-requests.ts';
import { FORCED_FUNCTION, toolChoiceTurns } from './tool-choice-turns.ts';

// One probe per capability, sent once per run (CapabilityBook). Each tells honoured from ignored
// by an effect a server that drops the member cannot produce by chance.

const CHAT = CHAT_COMPLETIONS_PATH;

function found(ex: HttpExchange, status: CapabilityProbe['status'], detail: string, extra: Partial<CapabilityProbe> = {}): CapabilityProbe {
  return { status, detail, ...(ex.requestId === undefined ? {} : { requestId: ex.requestId }), ...extra };
}

/** A 4xx is a refusal (with the server's message); a 5xx or a transport oddity leaves it undecided. */
function notServed(ex: HttpExchange, what: string): CapabilityProbe | undefined {
  if (ex.status >= 400 && ex.status < 500) {
    const message = at(ex.json, 'error', 'message');
    return found(ex, 'refused', `${what} answered ${ex.status}${typeof message === 'string' ? `: ${message.slice(0, 120)}` : ''}`);
  }
  if (ex.status !== 200) return found(ex, 'undecided', `${what} answered ${ex.status}`);
  return undefined;
}

function contentOf(ex: HttpExchange): string | undefined {
  const c = at(ex.json, 'choices', 0, 'message', 'content');
  return typeof c === 'string' ? c : undefined;
}

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Text that does not even start like JSON was written without JSON mode: ignored, not broken. */
const looksLikeJson = (text: string): boolean => /^\s*(```(json)?\s*)?[[{]/.test(text);

function callsOf(ex: HttpExchange): { name: unknown }[] {
  const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
  return Array.isArray(calls) ? calls.map((c) => ({ name: at(c, 'function', 'name') })) : [];
}

const weatherAndTime = BOTH_TOOLS_PROMPT;


/** The calls and finish of a turn: what tool_choice may change. */
function turnSignature(ex: HttpExchange): string {
  return `${callsOf(ex).map((c) => String(c.name)).sort().join(',')}|${String(at(ex.json, 'choices', 0, 'finish_reason'))}`;
}

export interface ToolChoiceEffect {
  what: string;
  /** `honoured`: right and unlike the baseline; `no effect`: wrong and like it; `moot`: the baseline was already right; `wrong`: unlike it and still wrong. */
  effect: 'honoured' | 'no effect' | 'moot' | 'wrong';
  ex: HttpExchange;
}

/** What one tool_choice variant did, judged against the same request without tool_choice. */
export function toolChoiceEffect(what: string, baseline: HttpExchange, ex: HttpExchange, right: (calls: { name: unknown }[]) => boolean): ToolChoiceEffect {
  if (ex.status !== 200) return { what: `${what} answered ${ex.status}`, effect: 'wrong', ex };
  const ok = right(callsOf(ex));
  const same = turnSignature(ex) === turnSignature(baseline);
  return { what, effect: ok ? (same ? 'moot' : 'honoured') : same ? 'no effect' : 'wrong', ex };
}

/**
 * Honoured when every variant that could show an effect showed the right one; ignored when none
 * showed any; broken when one went wrong or the server honours some variants and ignores others
 * (half an implementation is judged).
 */
export function toolChoiceStatus(effects: readonly ToolChoiceEffect[]): CapabilityProbe['status'] {
  const has = (e: ToolChoiceEffect['effect']): boolean => effects.some((x) => x.effect === e);
  if (has('wrong') || (has('honoured') && has('no effect'))) return 'broken';
  if (has('honoured')) return 'honoured';
  return has('no effect') ? 'ignored' : 'undecided';
}


const probes: Readonly<Record<Capability, (ctx: CheckContext) => Promise<CapabilityProbe>>> = {
  async 'json-object'(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { messages: [{ role: 'user', content: WEATHER_PROMPT }], response_format: { type: 'json_object' } }));
    const what = 'response_format json_object';
    const refused = notServed(ex, what);
    if (refused !== undefined) return refused;
    const text = contentOf(ex);
    if (text === undefined) return found(ex, 'undecided', `${what}: no message content`);
    const p = parses(text);
    if (p.ok) return found(ex, isRecord(p.value) ? 'honoured' : 'broken', `${what}: the content ${isRecord(p.value) ? 'is a JSON object' : 'is JSON but not an object'}`);
    return found(ex, looksLikeJson(text) ? 'broken' : 'ignored', `${what}: the content ${looksLikeJson(text) ? 'starts like JSON but does not parse' : 'is plain text'} (${JSON.stringify(text.slice(0, 40))})`);
  },
  async 'json-schema'(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { messages: [{ role: 'user', content: WEATHER_PROMPT }], response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER_SCHEMA_FOR_PROBE, strict: true } } }));
    const what = 'response_format json_schema';
    const refused = notServed(ex, what);
    if (refused !== undefined) return refused;
    const text = contentOf(ex);
    if (text === undefined) return found(ex, 'undecided', `${what}: no message content`);
    if (!parses(text).ok && !looksLikeJson(text)) return found(ex, 'ignored', `${what}: the content is plain text (${JSON.stringify(text.slice(0, 40))})`);
    const problem = schemaProblem(text);
    // Half an implementation (JSON that violates the schema) is broken: its requirements are judged.
    return found(ex, problem === undefined ? 'honoured' : 'broken', `${what}: ${problem === undefined ? 'the content validates against the schema' : problem.message}`);
  },
  async 'stream-usage'(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { stream: true, stream_options: { include_usage: true } }));
    const what = 'stream_options.include_usage';
    const refused = notServed(ex, what);
    if (refused !== undefined) return refused;
    const v = new StreamValidator({ includeUsage: true });
    ex.chunks.forEach((c, i) => v.feed(c.bytes, BigInt(i)));
    const usage = v.end().assembled.usage;
    if (usage !== undefined && usage !== null) return found(ex, 'honoured', `${what}: a chunk carried usage`);
    // Chunks that carry "usage": null acknowledge the option (OpenAI sends it on every chunk then): a missing usage chunk is broken, not ignored.
    const acknowledged = /"usage"\s*:\s*null/.test(new TextDecoder().decode(Buffer.concat(ex.chunks.map((c) => c.bytes))));
    return found(ex, acknowledged ? 'broken' : 'ignored', `${what}: no chunk carried usage${acknowledged ? ', though chunks carry "usage": null' : ''}`);
  },
  async 'tool-choice'(ctx) {
    // A server that ignores tool_choice answers each variant as it answers the same request without
    // it (CHAT-020): it has not claimed the capability (TOOLS-027 judges that). Each variant is compared with that baseline.
    const { both, none, named, hello, required } = await toolChoiceTurns(ctx);
    const failed = notServed(both, 'two tools without tool_choice');
    if (failed !== undefined) return { ...failed, status: 'undecided' };
    const refused = notServed(none, 'tool_choice "none"');
    if (refused !== undefined) return refused;
    const effects: ToolChoiceEffect[] = [
      toolChoiceEffect('"none"', both, none, (calls) => calls.length === 0),
      toolChoiceEffect('a named function', both, named, (calls) => calls.length > 0 && calls.every((c) => c.name === FORCED_FUNCTION)),
      toolChoiceEffect('"required"', hello, required, (calls) => calls.length > 0),
    ];
    const status = toolChoiceStatus(effects);
    const last = effects.find((e) => e.effect === (status === 'honoured' ? 'honoured' : status === 'ignored' ? 'no effect' : 'wrong')) ?? effects[0];
    return found(last?.ex ?? named, status, effects.map((e) => `${e.what}: ${e.effect}`).join('; '));
  },
  async 'parallel-tool-calls'(ctx) {
    // The same streamed turn TOOLS-024/025 judge: a server that never puts two calls in one turn does not offer them.
    const ex = await parallelToolStream(ctx);
    const failed = notServed(ex, 'two tools, streamed');
    if (failed !== undefined) return { ...failed, status: 'undecided' };
    const count = streamedCallCount(callsByIndex(toolDeltas(ex)));
    return found(ex, count >= 2 ? 'honoured' : 'absent', `asked for both tools, the streamed turn carried ${count} call(s)`);
  },
  async 'parallel-tool-calls-false'(ctx) {
    const model = await modelUnderTest(ctx);
    const body = (extra: Record<string, unknown>): Record<string, unknown> => ({ model, messages: [{ role: 'user', content: weatherAndTime }], tools: [weatherTool, timeTool], ...extra });
    const both = await ctx.http.post(CHAT, body({}));
    const failed = notServed(both, 'two tools');
    if (failed !== undefined) return { ...failed, status: 'undecided' };
    const one = await ctx.http.post(CHAT, body({ parallel_tool_calls: false }));
    const refused = notServed(one, 'parallel_tool_calls false');
    if (refused !== undefined) return refused;
    // A server that makes one call per turn anyway shows no effect to tell: TOOLS-020 is judged (and holds).
    if (callsOf(both).length < 2) return found(one, 'undecided', `without the member the turn carried ${callsOf(both).length} call(s): nothing to switch off`);
    return found(one, callsOf(one).length <= 1 ? 'honoured' : 'ignored', callsOf(one).length <= 1 ? 'two calls in one turn, one with parallel_tool_calls false' : 'two calls in one turn, and still two with parallel_tool_calls false');
  },
  async stop(ctx) {
    // A stop sequence of one space cuts any answer of a few words after its first word.
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { stop: [' '] }));
    const refused = notServed(ex, 'stop [" "]');
    if (refused !== undefined) return refused;
    const text = contentOf(ex) ?? '';
    return found(ex, text.includes(' ') ? 'ignored' : 'honoured', `stop [" "]: the content ${text.includes(' ') ? 'still holds a space' : 'ends before the first space'}`);
  },
  async n(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { n: 2 }));
    const refused = notServed(ex, 'n 2');
    if (refused !== undefined) return refused;
    const count = Array.isArray(at(ex.json, 'choices')) ? (at(ex.json, 'choices') as unknown[]).length : 0;
    return found(ex, count === 2 ? 'honoured' : count === 1 ? 'ignored' : 'broken', `n 2: ${count} choice(s)`);
  },
  async seed(ctx) {
    const model = await modelUnderTest(ctx);
    const body = chatBody(ctx, model, { seed: ctx.seed, temperature: 1 });
    const a = await ctx.http.post(CHAT, body);
    const refused = notServed(a, 'seed');
    if (refused !== undefined) return refused;
    const b = await ctx.http.post(CHAT, body);
    const same = contentOf(a) !== undefined && contentOf(a) === contentOf(b);
    return found(b, same ? 'honoured' : 'ignored', same ? 'the same seed at temperature 1 gave the same text twice' : 'the same seed at temperature 1 gave different texts');
  },
  async logprobs(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { logprobs: true }));
    const refused = notServed(ex, 'logprobs true');
    if (refused !== undefined) return refused;
    const content = at(ex.json, 'choices', 0, 'logprobs', 'content');
    return found(ex, Array.isArray(content) && content.length > 0 ? 'honoured' : 'ignored', `logprobs true: choices[0].logprobs.content is ${Array.isArray(content) ? `${content.length} entries` : JSON.stringify(content) ?? 'absent'}`);
  },
  async 'max-completion-tokens'(ctx) {
    const ex = await ctx.http.post(CHAT, chatBody(ctx, await modelUnderTest(ctx), { max_completion_tokens: 1 }));
    const refused = notServed(ex, 'max_completion_tokens 1');
    if (refused !== undefined) return refused;
    const ct = at(ex.json, 'usage', 'completion_tokens');
    if (typeof ct !== 'number') return found(ex, 'undecided', 'max_completion_tokens 1: no usage.completion_tokens');
    return found(ex, ct <= 1 ? 'honoured' : 'ignored', `max_completion_tokens 1: completion_tokens ${ct}`);
  },
  async reasoning(ctx) {
    // Reasoning models stream their thinking before the answer, under reasoning_content (DeepSeek,
    // vLLM before PR 27752) or reasoning (vLLM after it, Ollama); the first listed model that does is used.
    const ids = (await modelIds(ctx)).slice(0, 6);
    let last: HttpExchange | undefined;
    for (const model of ids) {
      const ex = await ctx.http.post(CHAT, chatBody(ctx, model, { stream: true }));
      last = ex;
      if (ex.status !== 200) continue;
      const field = reasoningFieldOf(ex);
      if (field !== undefined) return found(ex, 'honoured', `model ${model} streams delta.${field}`, { model });
    }
    return { status: 'absent', detail: `none of the listed models (${ids.join(', ')}) streams delta.reasoning_content or delta.reasoning`, ...(last?.requestId === undefined ? {} : { requestId: last.requestId }) };
  },
  async 'reasoning-effort'(ctx) {
    const reasoning = await probeCapability(ctx, 'reasoning');
    if (!offered(reasoning.status) || reasoning.model === undefined) return { status: 'absent', detail: `no reasoning model to ask (reasoning ${reasoning.status})` };
    const { low, high } = await effortTurns(ctx, reasoning.model);
    const lowRefused = notServed(low, 'reasoning_effort "low"');
    const highRefused = notServed(high, 'reasoning_effort "high"');
    if (lowRefused?.status === 'refused' && highRefused?.status === 'refused') return lowRefused;
    if (lowRefused !== undefined || highRefused !== undefined) {
      const first = (lowRefused ?? highRefused) as CapabilityProbe;
      // One effort served and the other refused is half an implementation: judged.
      return { ...first, status: first.status === 'refused' ? 'broken' : first.status };
    }
    const order = effortOrder(low, high);
    if (order === undefined) return found(high, 'undecided', 'neither answer says how much it reasoned (no reasoning_tokens, no reasoning text)');
    // Both cut at the bound reason alike whatever the effort: no evidence either way.
    const cut = (ex: HttpExchange): boolean => at(ex.json, 'choices', 0, 'finish_reason') === 'length';
    if (cut(low) && cut(high)) return found(high, 'undecided', `both efforts were cut at ${EFFORT_TOKEN_BOUND} completion tokens`);
    const { unit, lowAmount, highAmount } = order;
    const status = lowAmount < highAmount ? 'honoured' : lowAmount === highAmount ? 'ignored' : 'broken';
    return found(high, status, `model ${reasoning.model}: ${unit} ${lowAmount} with "low", ${highAmount} with "high"`, { model: reasoning.model });
  },
  async 'model-retrieve'(ctx) {
    const model = await modelUnderTest(ctx);
    const ex = await ctx.http.get(`/v1/models/${encodeURIComponent(model)}`);
    if (ex.status === 404 || ex.status === 405 || ex.status === 501) return found(ex, 'absent', `GET /v1/models/${model} answered ${ex.status}`);
    if (ex.status === 200 && isRecord(ex.json)) return found(ex, 'honoured', `GET /v1/models/${model} answered 200 JSON`);
    return found(ex, 'broken', `GET /v1/models/${model} answered ${ex.status}${isRecord(ex.json) ? '' : ' without a JSON object'}`);
  },
  async metrics(ctx) {
    // The server's own Prometheus counters (docs/server-metrics.md): served beside /v1 by vLLM, SGLang, TGI and llama.cpp's server.
    const ex = await ctx.http.get('/metrics');
    if (ex.status === 404 || ex.status === 405 || ex.status === 501) return found(ex, 'absent', `GET /metrics answered ${ex.status}`);
    if (ex.status === 200) return found(ex, 'honoured', 'GET /metrics answered 200');
    return found(ex, 'undecided', `GET /metrics answered ${ex.status}`);
  },
  'responses-state': probeResponsesState,
  async receipts(ctx) {
    const ex = await receiptKeys(ctx);
    if (ex.status === 404) return found(ex, 'absent', 'GET /v1/receipts/keys answered 404 (not advertised)');
    return found(ex, ex.status === 200 ? 'honoured' : 'undecided', `GET /v1/receipts/keys answered ${ex.status}`);
  },
};

/** A one-line request to an API's route, sent once per run (its route's probe, and the API's checks read it). */
export const routeProbe = sharedRequestBy('route-probe', async (ctx: CheckContext, api: string): Promise<HttpExchange> => {
  const protocol = protocolNamed(ctx.protocols, api);
  const built = protocol.request({ model: await modelUnderTest(ctx), messages: [{ role: 'user', content: 'The quick brown fox jumps over the lazy dog.' }], maxOutputTokens: 16, stream: false });
  return ctx.http.post(rootPath(built.route), built.body);
});

/** Whether the server serves an API beyond the seed: a route a server without it answers 404 (llama.cpp's server without --embeddings: 501). */
async function probeRoute(ctx: CheckContext, protocol: Protocol): Promise<CapabilityProbe> {
  const ex = await routeProbe(ctx, protocol.name);
  const what = `${protocol.routes[0].method} ${rootPath(protocol.routes[0])}`;
  if (ex.status === 404 || ex.status === 405 || ex.status === 501) return found(ex, 'absent', `${what} answered ${ex.status}`);
  if (ex.status === 200 && isRecord(ex.json)) return found(ex, 'honoured', `${what} answered 200 JSON`);
  return notServed(ex, what) ?? found(ex, 'broken', `${what} answered 200 without a JSON object`);
}

/** Most completion tokens a reasoning_effort turn may use where the server takes a bound. */
export const EFFORT_TOKEN_BOUND = 2048;

/** HTTP profile: "GET /v1/receipts/keys (public) ... a 404 there means 'not advertised'". Once per run: the probe and the RCPT checks read it. */
export const receiptKeys = sharedRequest('receipts:keys', (ctx: CheckContext): Promise<HttpExchange> => ctx.http.get('/v1/receipts/keys', { auth: 'none' }));

/** The same plain question at reasoning_effort "low" and "high", sent once per run (the probe and CHAT-039 read them). */
export const effortTurns = sharedRequestBy('reasoning-effort', async (ctx: CheckContext, model: string): Promise<{ low: HttpExchange; high: HttpExchange }> => {
  // A real model at "high" may reason at length: bounded where the server offers a bound (a cut turn is told apart below).
  const limit = await bound(ctx, EFFORT_TOKEN_BOUND);
  const ask = (effort: string): Promise<HttpExchange> => ctx.http.post(CHAT, chatBody(ctx, model, { reasoning_effort: effort, ...limit }));
  const low = await ask('low');
  return { low, high: await ask('high') };
});

/** How much a plain answer reasoned: usage reasoning_tokens where it reports them, else the reasoning text's length. */
function reasoningAmount(ex: HttpExchange): { tokens?: number; chars: number } | undefined {
  const tokens = at(ex.json, 'usage', 'completion_tokens_details', 'reasoning_tokens');
  const msg = at(ex.json, 'choices', 0, 'message');
  const text = isRecord(msg) ? (typeof msg['reasoning_content'] === 'string' ? msg['reasoning_content'] : typeof msg['reasoning'] === 'string' ? msg['reasoning'] : undefined) : undefined;
  if (typeof tokens !== 'number' && text === undefined) return undefined;
  return { ...(typeof tokens === 'number' ? { tokens } : {}), chars: text?.length ?? 0 };
}

/** The reasoning of the "low" and "high" answers in one unit (tokens where both report them), if both say. */
export function effortOrder(low: HttpExchange, high: HttpExchange): { unit: 'reasoning_tokens' | 'reasoning characters'; lowAmount: number; highAmount: number } | undefined {
  const l = reasoningAmount(low);
  const h = reasoningAmount(high);
  if (l === undefined || h === undefined) return undefined;
  if (l.tokens !== undefined && h.tokens !== undefined) return { unit: 'reasoning_tokens', lowAmount: l.tokens, highAmount: h.tokens };
  return { unit: 'reasoning characters', lowAmount: l.chars, highAmount: h.chars };
}

/** The delta member a stream carries reasoning under, if any. */
export function reasoningFieldOf(ex: HttpExchange): 'reasoning_content' | 'reasoning' | undefined {
  for (const chunk of streamChunks(ex)) {
    const d = at(chunk, 'choices', 0, 'delta');
    for (const f of ['reasoning_content', 'reasoning'] as const) if (isRecord(d) && typeof d[f] === 'string' && d[f] !== '') return f;
  }
  return undefined;
}

/** What the run found about `cap` (probed once per run). */
export function probeCapability(ctx: CheckContext, cap: Capability): Promise<CapabilityProbe> {
  // An API beyond the seed is probed at its route; a feature by its own probe.
  const api = ctx.protocols.find((p) => p.capability?.name === cap);
  const probe = api === undefined ? probes[cap] : (c: CheckContext) => probeRoute(c, api);
  if (probe === undefined) return Promise.resolve({ status: 'undecided', detail: `iari has no probe for ${cap}` });
  // A probe that cannot run (no model listed, a transport error) decides nothing: the requirements are judged.
  return ctx.capabilities.probe(cap, () =>
    probe(ctx).catch((error: unknown): CapabilityProbe => {
      // A rate limit that outlasted the run's wait budget: LIMIT-010 judges it, and every check that
      // needed this probe is skipped saying so (check-runner.ts), not judged on an undecided probe.
      if (rateLimitGiveUp(error) !== undefined) throw error;
      return { status: 'undecided', detail: `the probe could not run: ${ctx.http.redact(error instanceof Error ? error.message : String(error))}` };
    }),
  );
}

/**
 * Judges the capability's requirements (those of `ids` this check declares) only where the server
 * offers it: otherwise they are skipped with the reason, or fail under --expect. True: judge them.
 */
export async function gate(ctx: CheckContext, j: Judge, cap: Capability, ids: readonly string[] = capabilityDef(ctx.protocols, cap).ids): Promise<boolean> {
  return gateOn(j, cap, await probeCapability(ctx, cap), ctx.capabilities.expected, capabilityDef(ctx.protocols, cap).member, ids);
}

/** True when the server offers `cap` (or it is expected), without judging anything. */
export async function offers(ctx: CheckContext, cap: Capability): Promise<boolean> {
  const p = await probeCapability(ctx, cap);
  return p.status === 'honoured' || p.status === 'broken' || p.status === 'undecided';
}

/** `{ max_completion_tokens: n }` where the server offers the bound, else nothing: the seed's table does not show it. */
export async function bound(ctx: CheckContext, n: number): Promise<Record<string, number>> {
  return (await offers(ctx, 'max-completion-tokens')) ? { max_completion_tokens: n } : {};
}

/**
 * Where the capability is not offered: its requirements `ids` (not judged yet) are skipped with the
 * reason, or fail when the user declared it with --expect. Returns true when the check should judge.
 */
export function gateOn(j: Judge, cap: Capability, probe: CapabilityProbe, expected: ReadonlySet<Capability>, member: string, ids: readonly string[]): boolean {
  if (offered(probe.status)) return true;
  const mine = ids.filter((id) => j.ids.includes(id) && !j.has(id));
  if (expected.has(cap)) {
    for (const id of mine) j.violatedHard(id, { message: `--expect ${cap}: the server ${probe.status === 'absent' ? 'does not serve' : probe.status} ${member}: ${probe.detail}`, ...(probe.requestId === undefined ? {} : { requestId: probe.requestId }) });
  } else {
    for (const id of mine) j.skip(id, `capability ${cap} not offered: the server ${probe.status === 'absent' ? 'does not serve' : probe.status} ${member} (${probe.detail}); --expect ${cap} makes this fail`);
  }
  return false;
}
