// A generated answer, whatever its API: planned by the mock's generator (text, tool calls, JSON),
// admitted (rate limits, spend cap, receipt gate), paced (TTFT, ITL, service slots, the prefix
// cache), written through the API's renderer, and settled when it ends or its client goes away
// (billing, /metrics, the Receipt's outcome, cancellation; docs/mock-server.md).
import type { CoreState, LatencySettings, RequestContext } from './context.ts';
import type { FullResponse, HeaderMap, MockRequest, MockResponse, StreamEvent } from './types.ts';
import type { AccountState } from './accounts.ts';
import type { ModelInfo } from './models.ts';
import type { OutcomeStatus } from '../receipt-hooks.ts';
import type { AnswerRenderer, GenerationAsk } from '../../src/protocols/protocol-mock.ts';
import { errorBody, errorResponse, type ApiError } from './http-errors.ts';
import { planCompletion, type CompletionPlan } from './plan.ts';
import { admit } from './limits.ts';
import { costNano, openGate, rateLimit } from './admission.ts';
import { stepTimes } from './pacing.ts';
import { leavesUncounted } from './open-shapes.ts';
import { nanoToDecimal } from './decimal.ts';
import { newCompletionId } from './ids.ts';
import { legalModesOf } from './framing.ts';
import { jsonFaultOf } from './response-format.ts';
import { ABANDONED_TTFT_MS } from './cancel-faults.ts';

/** The answer(s) as sent, for the Receipt's outcome: `sent` holds the text fragments per choice and call (null: all). */
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

export interface Generation {
  ask: GenerationAsk;
  /** The body as received (identical bodies share one plan). */
  rawBody: string;
  model: ModelInfo;
  latency: LatencySettings;
  renderer: AnswerRenderer;
  /** How this route answers an error before the answer starts. */
  fail: (error: ApiError) => FullResponse;
  /** A stateful API keeps its record of the answer once admitted (stored responses). */
  keep?: (plan: CompletionPlan, ctx: { id: string; created: number; model: string; faults: ReadonlySet<string> }) => void;
}

export function generateAnswer(state: CoreState, req: MockRequest, ctx: RequestContext, account: AccountState, g: Generation): MockResponse {
  const f = ctx.faults;
  const { ask, rawBody, model, renderer, fail } = g;
  let latency = g.latency;
  let plan = planCompletion(ask, rawBody, { seed: state.seed, tokensPerChunk: latency.tokensPerChunk, completionTokens: latency.completionTokens, jsonFault: jsonFaultOf(f, ask.stream) });
  const now = state.now();
  const estimatedTokens = plan.promptTokens + plan.completionTokens;
  const limits = rateLimit(state, ctx, account, ask.model, estimatedTokens, now);
  if ('status' in limits) return fail(limits);
  const limitHeaders = limits.headers;
  const { gateDigest, overCap } = openGate(state, ctx, account, ask, costNano(model, plan.promptTokens, plan.completionTokens), now);
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
    const cached = state.prefixCache.admit(ctx.requestId, ask.messages, plan.promptTokens);
    // The plan is shared by identical bodies: this request's cache outcome goes on a copy.
    plan = { ...plan, cachedTokens: cached.cachedTokens };
    latency = { ...latency, ttftMs: latency.ttftMs + cached.prefillMs };
  }
  // Fault cancel-ignored: generations whose client left still decode in the batch, and delay every new first token.
  if (state.abandoned > 0) latency = { ...latency, ttftMs: latency.ttftMs + ABANDONED_TTFT_MS };
  const requestNo = ++state.requestCounter;
  const id = newCompletionId();
  const renderCtx = { id, created: Math.floor(now / 1000), model: ask.model, faults: f };
  g.keep?.(plan, renderCtx);
  let times = stepTimes(renderer.steps(plan, ask), latency, (state.seed ^ Math.imul(requestNo, 0x9e3779b1)) >>> 0);
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

  if (!ask.stream) {
    const lastStep = lastStepMs;
    return {
      kind: 'full',
      status: 200,
      headers: { 'content-type': 'application/json', ...headers },
      body: renderer.whole(plan, ask, renderCtx),
      requestId: ctx.requestId,
      delayMs: lastStep,
      done: (sent, extra = 0) => (sent ? settle('ok', plan.completionTokens + extra, null, lastStep) : settle('interrupted', 0, new Map())),
    };
  }
  let events = renderer.stream(plan, ask, renderCtx, times);
  const wire = f.size === 0 ? renderer.wire?.(plan, ask, renderCtx, events) : undefined;
  const failAfter = req.headers['x-iari-fail-after-events'];
  let failsMidStream = false;
  if (failAfter !== undefined && /^\d+$/.test(failAfter.trim())) {
    // Compat (§2 #18): "Errors after streaming starts must be sent as data:{"error":{…}} and the stream then ended."
    const keep = Math.min(Number(failAfter), events.length - 1);
    const at = events[Math.max(0, keep - 1)]?.atMs ?? 0;
    const error: ApiError = { status: 500, type: 'server_error', message: 'The model failed while generating the completion.', param: null, code: 'generation_failed' };
    events = [...events.slice(0, keep), ...renderer.failure(at, f.has('stream-error-swallowed') ? null : errorBody(error, f))];
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
    ...(wire !== undefined && !failsMidStream ? { wire } : {}),
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
