import type { CoreState, LatencySettings, RequestContext } from './context.ts';
import type { FullResponse, HeaderMap, MockRequest, MockResponse, StreamEvent } from './types.ts';
import type { AccountState } from './accounts.ts';
import type { ModelInfo } from './models.ts';
import type { OutcomeStatus } from '../receipt-hooks.ts';
import { badRequest, errorBody, errorResponse, type ApiError } from './http-errors.ts';
import { validateChatRequest, type ChatRequest } from './validate.ts';
import { planCompletion, type CompletionPlan } from './plan.ts';
import { renderCompletion, renderStream, streamStepCount, streamWire } from './render.ts';
import { admit, checkLimits, goDuration } from './limits.ts';
import { enforcedRequestsPerMinute, limitedHeaders, limitNeverLifted } from './rate-limit-faults.ts';
import { leavesUncounted } from './open-shapes.ts';
import { nanoToDecimal } from './decimal.ts';
import { newCompletionId } from './ids.ts';
import { mulberry32 } from './rng.ts';
import { legalModesOf } from './framing.ts';
import { jsonFaultOf } from './response-format.ts';
import { coreOnlyBody } from './extension-modes.ts';
import { ABANDONED_TTFT_MS } from './cancel-faults.ts';

export const BODY_LIMIT = 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

function parseLatencyHeaders(req: MockRequest, base: LatencySettings): LatencySettings | ApiError {
  const h = req.headers;
  if (h['x-iari-ttft-ms'] === undefined && h['x-iari-itl-ms'] === undefined && h['x-iari-jitter-ms'] === undefined && h['x-iari-tokens-per-chunk'] === undefined && h['x-iari-completion-tokens'] === undefined) {
    return base;
  }
  const out = { ...base };
  const num = (name: string, max: number): number | ApiError | undefined => {
    const v = h[name];
    if (v === undefined) return undefined;
    if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) > max) return badRequest(name, `Invalid header '${name}': expected a number from 0 to ${max}.`, 'invalid_header');
    return Number(v);
  };
  for (const [name, key] of [['x-iari-ttft-ms', 'ttftMs'], ['x-iari-itl-ms', 'itlMs'], ['x-iari-jitter-ms', 'jitterMs']] as const) {
    const v = num(name, 600_000);
    if (typeof v === 'object') return v;
    if (v !== undefined) out[key] = v;
  }
  const tpc = h['x-iari-tokens-per-chunk'];
  if (tpc !== undefined) {
    const pattern = parseTokensPerChunk(tpc);
    if (pattern === null) return badRequest('x-iari-tokens-per-chunk', "Invalid header 'x-iari-tokens-per-chunk': expected positive integers separated by commas.", 'invalid_header');
    out.tokensPerChunk = pattern;
  }
  const ct = h['x-iari-completion-tokens'];
  if (ct !== undefined) {
    if (!/^\d+$/.test(ct.trim()) || Number(ct) < 1 || Number(ct) > 100_000) return badRequest('x-iari-completion-tokens', "Invalid header 'x-iari-completion-tokens': expected an integer from 1 to 100000.", 'invalid_header');
    out.completionTokens = Number(ct);
  }
  return out;
}

export function parseTokensPerChunk(value: string | number | readonly number[]): number[] | null {
  const list = typeof value === 'number' ? [value] : typeof value === 'string' ? value.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : NaN)) : [...value];
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) return null;
  return list;
}

function stepTimes(steps: number, latency: LatencySettings, seed: number): number[] {
  const times = new Array<number>(steps);
  if (latency.ttftMs === 0 && latency.itlMs === 0 && latency.jitterMs === 0) return times.fill(0);
  const rng = mulberry32(seed);
  const jitter = () => (latency.jitterMs === 0 ? 0 : (rng() * 2 - 1) * latency.jitterMs);
  let t = Math.max(0, latency.ttftMs + jitter());
  for (let s = 0; s < steps; s++) {
    if (s > 0) t += Math.max(0, latency.itlMs + jitter());
    times[s] = t;
  }
  return times;
}

function costNano(model: ModelInfo, prompt: number, completion: number): number {
  return prompt * model.inputNanoPerToken + completion * model.outputNanoPerToken;
}

function isStreamRequested(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && (parsed as Record<string, unknown>)['stream'] === true;
}

/** Fault stream-error-as-200: an error before streaming starts is sent inside a 200 event stream. */
function errorAsStream(error: ApiError, ctx: RequestContext): FullResponse {
  return {
    kind: 'full',
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    body: `data: ${errorBody(error, ctx.faults)}\n\ndata: [DONE]\n\n`,
    requestId: ctx.requestId,
  };
}

/** The assistant message(s) as sent: `sent` holds the text fragments per choice and call (null: all). */
function outputOf(plan: CompletionPlan, sent: Map<string, string[]> | null): unknown[] {
  return plan.choices.map((c, i) => {
    const sentText = (key: string, whole: string): string => (sent === null ? whole : (sent.get(key) ?? []).join(''));
    if (c.toolCalls.length === 0) return { role: 'assistant', content: sentText(`${i}`, c.content ?? '') };
    return {
      role: 'assistant',
      content: null,
      tool_calls: c.toolCalls.map((t, k) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: sentText(`${i}/${k}`, t.arguments) } })),
    };
  });
}

/** Fault receipt-gate-unknown-model: an allowed gate, closed by a failed outcome, for a request answered 404. */
function gateRejected(state: CoreState, ctx: RequestContext, account: AccountState, model: string, raw: unknown): void {
  if (state.receipts === null) return;
  const f = ctx.faults;
  const { gateDigest } = state.receipts.gate({ account: account.fixture.id, requestId: ctx.requestId, model, resource: `model:${model}`, inputDigestOf: raw, decision: { result: 'allowed' }, estimatedCostUsd: '0', faults: f });
  state.receipts.outcome({ account: account.fixture.id, gateDigest, status: 'failed', output: [], resolved: null, costUsd: '0', faults: f });
}

export function handleChat(state: CoreState, req: MockRequest, ctx: RequestContext, account: AccountState): MockResponse {
  const f = ctx.faults;
  const fail = (error: ApiError, parsed: unknown = undefined): FullResponse =>
    f.has('stream-error-as-200') && isStreamRequested(parsed) ? errorAsStream(error, ctx) : errorResponse(error, ctx.requestId, f);
  // HTTP profile: 413 code `request_too_large` (body limit 1 MiB).
  if (req.body.length > BODY_LIMIT && !f.has('body-limit-not-enforced')) {
    return fail({ status: 413, type: 'invalid_request_error', message: `Request body too large: ${req.body.length} bytes; the limit is ${BODY_LIMIT} bytes.`, param: null, code: 'request_too_large' });
  }
  // Spec, Endpoints: "Requests with a body use JSON with header Content-Type: application/json."
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json' && !f.has('content-type-not-enforced')) {
    return fail({ status: 415, type: 'invalid_request_error', message: `Unsupported Content-Type '${contentType ?? ''}': send application/json.`, param: null, code: 'unsupported_media_type' });
  }
  let rawBody: string;
  let parsed: unknown;
  try {
    rawBody = decoder.decode(req.body);
    parsed = JSON.parse(rawBody);
  } catch {
    return fail(badRequest(null, 'We could not parse the JSON body of your request. The body must be valid UTF-8 JSON.', 'invalid_json'));
  }
  const extension = f.has('legal-refuses-extensions') && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? coreOnlyBody(parsed as Record<string, unknown>, f) : null;
  if (extension !== null && 'refuse' in extension) return fail(badRequest(extension.refuse, `Unrecognized request argument supplied: ${extension.refuse}`), parsed);
  const validation = validateChatRequest(parsed, f);
  if (!validation.ok) return fail(validation.error, parsed);
  const request = validation.request;
  let latency = parseLatencyHeaders(req, state.latency);
  if ('status' in latency) return fail(latency, parsed);

  const model = state.models.get(request.model) ?? (f.has('retired-model-served') ? state.models.retired(request.model) : undefined);
  if (model === undefined) {
    // HTTP profile D-HTTP-08, as OpenAI answers: 404, type invalid_request_error, code model_not_found, param null.
    const status = f.has('model-not-found-400') ? 400 : 404;
    const code = f.has('model-not-found-no-code') ? null : 'model_not_found';
    // Fault receipt-gate-unknown-model; HTTP profile: a rejected request "adds no allowed gate and no outcome to the chain".
    if (f.has('receipt-gate-unknown-model')) gateRejected(state, ctx, account, request.model, request.raw);
    return fail({ status, type: 'invalid_request_error', message: `The model '${request.model}' does not exist or you do not have access to it.`, param: null, code }, parsed);
  }

  let plan = planCompletion(request, rawBody, { seed: state.seed, tokensPerChunk: latency.tokensPerChunk, completionTokens: latency.completionTokens, jsonFault: jsonFaultOf(f, request.stream) });
  const now = state.now();
  const estimatedTokens = plan.promptTokens + plan.completionTokens;
  let limitHeaders: HeaderMap = {};
  if (state.limits && !f.has('limit-never-429')) {
    const rpm = enforcedRequestsPerMinute(account.fixture.limits.requests_per_minute, f);
    let verdict = checkLimits(account, now, estimatedTokens, rpm);
    if (limitNeverLifted(account, verdict.allowed, f)) {
      verdict = { allowed: false, which: 'requests', retryAfterMs: 60_000, headers: { ...verdict.headers, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': goDuration(60_000) } };
    }
    limitHeaders = f.has('limit-no-ratelimit-headers') ? {} : verdict.headers;
    if (!verdict.allowed) {
      let headers: HeaderMap = { ...limitHeaders };
      // HTTP profile: 429 with `Retry-After` (integer seconds >= 1).
      if (!f.has('limit-no-retry-after')) headers['retry-after'] = f.has('limit-retry-after-invalid') ? '0.5' : f.has('limit-retry-after-too-short') ? '1' : String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
      // HTTP profile D-HTTP-26: a refused request adds nothing to usage (fault limit-refused-counted counts it).
      if (f.has('limit-refused-counted')) account.record(now, 0, 0, 0);
      headers = limitedHeaders(headers, f);
      const limit = verdict.which === 'requests' ? rpm : account.fixture.limits.tokens_per_minute;
      return fail(
        {
          status: 429,
          // As OpenAI: type names the limit ("requests" or "tokens"), code rate_limit_exceeded (D-HTTP-24).
          type: verdict.which ?? 'requests',
          message: `Rate limit reached for ${request.model} on ${verdict.which === 'requests' ? 'requests per minute (RPM)' : 'tokens per minute (TPM)'}: Limit ${limit}. Please try again in ${Math.ceil(verdict.retryAfterMs / 1000)}s.`,
          param: null,
          code: f.has('limit-wrong-error-code') ? 'too_many_requests' : 'rate_limit_exceeded',
          headers,
        },
        parsed,
      );
    }
  }

  const estimatedCost = costNano(model, plan.promptTokens, plan.completionTokens);
  const spent = account.monthTotals(now).spendNano;
  const capNano = Math.round(account.fixture.limits.monthly_spend_cap_usd * 1e9);
  const overCap = spent >= capNano && !f.has('spend-cap-ignored');
  const resource = `model:${request.model}`;
  let gateDigest: string | null = null;
  if (state.receipts !== null) {
    const gate = state.receipts.gate({
      account: account.fixture.id,
      requestId: ctx.requestId,
      model: request.model,
      resource,
      inputDigestOf: request.raw,
      decision: overCap
        ? { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: `Monthly spend cap of ${account.fixture.limits.monthly_spend_cap_usd} USD reached.` }
        : { result: 'allowed' },
      estimatedCostUsd: nanoToDecimal(estimatedCost),
      faults: f,
    });
    gateDigest = gate.gateDigest;
  }
  const gateHeader: HeaderMap = gateDigest === null ? {} : { 'x-receipt-gate': gateDigest };
  if (overCap) {
    // HTTP profile: Monthly spend cap reached: 429, type insufficient_quota, code insufficient_quota.
    return errorResponse(
      { status: 429, type: 'insufficient_quota', message: 'You exceeded your current quota: the monthly spend cap of this account is reached.', param: null, code: 'insufficient_quota', headers: gateHeader },
      ctx.requestId,
      f,
    );
  }
  if (state.limits) admit(account, now, estimatedTokens);

  if (state.prefixCache !== null) {
    const cached = state.prefixCache.admit(ctx.requestId, request.messages, plan.promptTokens);
    // The plan is shared by identical bodies: this request's cache outcome goes on a copy.
    plan = { ...plan, cachedTokens: cached.cachedTokens };
    latency = { ...latency, ttftMs: latency.ttftMs + cached.prefillMs };
  }
  // Fault cancel-ignored: generations whose client left still decode in the batch, and delay every new first token.
  if (state.abandoned > 0) latency = { ...latency, ttftMs: latency.ttftMs + ABANDONED_TTFT_MS };
  const requestNo = ++state.requestCounter;
  const id = newCompletionId();
  const renderCtx = { id, created: Math.floor(now / 1000), model: request.model, faults: f };
  let times = stepTimes(streamStepCount(plan, request.includeUsage), latency, (state.seed ^ Math.imul(requestNo, 0x9e3779b1)) >>> 0);
  // --capacity: a request waits for a free service slot before its first token (service-slots.ts).
  const booking = state.serviceSlots?.book(times[times.length - 1] ?? 0);
  const queuedMs = booking?.queuedMs ?? 0;
  if (queuedMs > 0) times = times.map((t) => t + queuedMs);
  state.metrics.admit(ctx.requestId, plan.promptTokens, plan.cachedTokens ?? 0, queuedMs);
  const startedMs = performance.now();
  const lastStepMs = times[times.length - 1] ?? 0;
  let finished = false;
  const settle = (status: OutcomeStatus, completionTokens: number, sentText: Map<string, string[]> | null, firstTokenMs: number | null = null) => {
    if (finished) return;
    finished = true;
    // The client went away before the answer ended (docs/mock-server.md, Cancellation): the mock stops generating
    // and frees the slot at once, bills what it sent and records the seed's "interrupted" outcome.
    const cut = status === 'interrupted';
    const reason = status !== 'ok' ? 'abort' : plan.choices[0]?.finishReason === 'length' ? 'length' : 'stop';
    if (cut && f.has('cancel-ignored')) {
      // Fault cancel-ignored: the generation goes on to its planned last token, holding its slot (no release).
      const remainingMs = Math.max(0, startedMs + lastStepMs - performance.now());
      state.abandoned++;
      state.metrics.continueAfterCut(ctx.requestId, completionTokens, plan.completionTokens, remainingMs);
      const timer = setTimeout(() => {
        state.abandoned--;
        state.metrics.finish(ctx.requestId, plan.completionTokens, firstTokenMs, 'abort', f);
      }, remainingMs);
      timer.unref?.();
    } else {
      const leaks = cut && f.has('cancel-leaks-slot');
      state.metrics.finish(ctx.requestId, completionTokens, firstTokenMs, reason, f, leaks);
      if (leaks) booking?.leak();
      else if (cut) booking?.release();
    }
    const billed = cut && f.has('cancel-billed-full') ? plan.completionTokens : completionTokens;
    const cost = costNano(model, plan.promptTokens, billed);
    if (!f.has('usage-not-incremented') && !leavesUncounted(f)) account.record(state.now(), plan.promptTokens, billed, f.has('spend-refunded') ? -cost : cost);
    if (state.receipts !== null && gateDigest !== null && !(cut && f.has('cancel-no-receipt'))) {
      state.receipts.outcome({
        account: account.fixture.id,
        gateDigest,
        status,
        output: outputOf(plan, sentText),
        resolved: { provider: model.provider, model: model.id, boundary: [`account:${account.fixture.id}`] },
        costUsd: nanoToDecimal(cost),
        faults: f,
      });
    }
  };
  const headers: HeaderMap = { ...limitHeaders, ...gateHeader };

  if (!request.stream) {
    const lastStep = lastStepMs;
    return {
      kind: 'full',
      status: 200,
      headers: { 'content-type': 'application/json', ...headers },
      body: renderCompletion(plan, renderCtx),
      requestId: ctx.requestId,
      delayMs: lastStep,
      done: (sent, extra = 0) => (sent ? settle('ok', plan.completionTokens + extra, null, lastStep) : settle('interrupted', 0, new Map())),
    };
  }
  let events = renderStream(plan, request.includeUsage, renderCtx, times);
  const failAfter = req.headers['x-iari-fail-after-events'];
  let failsMidStream = false;
  if (failAfter !== undefined && /^\d+$/.test(failAfter.trim())) {
    // Compat (§2 #18): "Errors after streaming starts must be sent as data:{"error":{…}} and the stream then ended."
    const keep = Math.min(Number(failAfter), events.length - 1);
    const at = events[Math.max(0, keep - 1)]?.atMs ?? 0;
    events = events.slice(0, keep);
    if (!f.has('stream-error-swallowed')) {
      const error: ApiError = { status: 500, type: 'server_error', message: 'The model failed while generating the completion.', param: null, code: 'generation_failed' };
      events.push({ atMs: at, data: `data: ${errorBody(error, f)}\n\n`, tokens: 0, content: false });
    }
    events.push({ atMs: at, data: 'data: [DONE]\n\n', tokens: 0, content: false });
    failsMidStream = true;
  }
  return {
    kind: 'stream',
    status: 200,
    headers: { 'content-type': f.has('stream-content-type-json') ? 'application/json' : 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
    requestId: ctx.requestId,
    events,
    framing: legalModesOf(f),
    framingSeed: requestNo,
    ...(f.size === 0 && !failsMidStream ? { wire: streamWire(plan, request.includeUsage, renderCtx, events) } : {}),
    finish: ({ sent, interrupted, events: written = events }) => {
      let tokens = 0;
      let failed = false;
      // A faultless stream sent to the end carried every piece: its output is the whole plan (null), as the pieces join to it.
      const whole = f.size === 0 && !failsMidStream && sent >= written.length;
      const sentText = new Map<string, string[]>();
      for (let k = 0; k < sent && k < written.length; k++) {
        const e = written[k] as StreamEvent;
        tokens += e.tokens;
        if (e.action === 'destroy') failed = true;
        if (!whole && e.text !== undefined && e.choice !== undefined) {
          const key = e.call === undefined ? `${e.choice}` : `${e.choice}/${e.call}`;
          const list = sentText.get(key);
          if (list === undefined) sentText.set(key, [e.text]);
          else list.push(e.text);
        }
      }
      if (sent < written.length && written[sent]?.action === 'destroy') failed = true;
      const first = written.slice(0, sent).find((e) => e.content);
      settle(failed || (failsMidStream && !interrupted) ? 'failed' : interrupted ? 'interrupted' : 'ok', tokens, whole ? null : sentText, first === undefined ? null : first.atMs);
    },
  };
}

export type { ChatRequest };
