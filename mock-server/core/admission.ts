// What a generated answer passes before the mock generates it, whatever its API: its model exists,
// the account's rate limits and monthly spend cap allow it, and (receipts on) its gate is recorded.
import type { CoreState, RequestContext } from './context.ts';
import type { HeaderMap } from './types.ts';
import type { AccountState } from './accounts.ts';
import type { ModelInfo } from './models.ts';
import type { ApiError } from './http-errors.ts';
import { checkLimits, goDuration } from './limits.ts';
import { enforcedRequestsPerMinute, limitedHeaders, limitNeverLifted } from './rate-limit-faults.ts';
import { nanoToDecimal } from './decimal.ts';

export function costNano(model: ModelInfo, prompt: number, completion: number): number {
  return prompt * model.inputNanoPerToken + completion * model.outputNanoPerToken;
}

/** Fault receipt-gate-unknown-model: an allowed gate, closed by a failed outcome, for a request answered 404. */
function gateRejected(state: CoreState, ctx: RequestContext, account: AccountState, model: string, raw: unknown): void {
  if (state.receipts === null) return;
  const f = ctx.faults;
  const { gateDigest } = state.receipts.gate({ account: account.fixture.id, requestId: ctx.requestId, model, resource: `model:${model}`, inputDigestOf: raw, decision: { result: 'allowed' }, estimatedCostUsd: '0', faults: f });
  state.receipts.outcome({ account: account.fixture.id, gateDigest, status: 'failed', output: [], resolved: null, costUsd: '0', faults: f });
}

/** The model asked for, or the 404 OpenAI answers (HTTP profile D-HTTP-08; faults bend it). */
export function findModel(state: CoreState, ctx: RequestContext, account: AccountState | null, asked: { model: string; raw: unknown }): ModelInfo | ApiError {
  const f = ctx.faults;
  const model = state.models.get(asked.model) ?? (f.has('retired-model-served') ? state.models.retired(asked.model) : undefined);
  if (model !== undefined) return model;
  // HTTP profile D-HTTP-08, as OpenAI answers: 404, type invalid_request_error, code model_not_found, param null.
  const status = f.has('model-not-found-400') ? 400 : 404;
  const code = f.has('model-not-found-no-code') ? null : 'model_not_found';
  // Fault receipt-gate-unknown-model; HTTP profile: a rejected request "adds no allowed gate and no outcome to the chain".
  if (account !== null && f.has('receipt-gate-unknown-model')) gateRejected(state, ctx, account, asked.model, asked.raw);
  return { status, type: 'invalid_request_error', message: `The model '${asked.model}' does not exist or you do not have access to it.`, param: null, code };
}

/** The account's RPM and TPM limits for a request of `estimatedTokens`: its x-ratelimit-* headers, or the 429 (with Retry-After). */
export function rateLimit(state: CoreState, ctx: RequestContext, account: AccountState, model: string, estimatedTokens: number, now: number): { headers: HeaderMap } | ApiError {
  const f = ctx.faults;
  if (!state.limits || f.has('limit-never-429')) return { headers: {} };
  const rpm = enforcedRequestsPerMinute(account.fixture.limits.requests_per_minute, f);
  let verdict = checkLimits(account, now, estimatedTokens, rpm);
  if (limitNeverLifted(account, verdict.allowed, f)) {
    verdict = { allowed: false, which: 'requests', retryAfterMs: 60_000, headers: { ...verdict.headers, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': goDuration(60_000) } };
  }
  const limitHeaders = f.has('limit-no-ratelimit-headers') ? {} : verdict.headers;
  if (verdict.allowed) return { headers: limitHeaders };
  let headers: HeaderMap = { ...limitHeaders };
  // HTTP profile: 429 with `Retry-After` (integer seconds >= 1).
  if (!f.has('limit-no-retry-after')) headers['retry-after'] = f.has('limit-retry-after-invalid') ? '0.5' : f.has('limit-retry-after-too-short') ? '1' : String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
  // HTTP profile D-HTTP-26: a refused request adds nothing to usage (fault limit-refused-counted counts it).
  if (f.has('limit-refused-counted')) account.record(now, 0, 0, 0);
  headers = limitedHeaders(headers, f);
  const limit = verdict.which === 'requests' ? rpm : account.fixture.limits.tokens_per_minute;
  return {
    status: 429,
    // As OpenAI: type names the limit ("requests" or "tokens"), code rate_limit_exceeded (D-HTTP-24).
    type: verdict.which ?? 'requests',
    message: `Rate limit reached for ${model} on ${verdict.which === 'requests' ? 'requests per minute (RPM)' : 'tokens per minute (TPM)'}: Limit ${limit}. Please try again in ${Math.ceil(verdict.retryAfterMs / 1000)}s.`,
    param: null,
    code: f.has('limit-wrong-error-code') ? 'too_many_requests' : 'rate_limit_exceeded',
    headers,
  };
}

/** The receipt gate of an admitted request (null without receipts), and whether the account's monthly spend cap refuses it. */
export function openGate(state: CoreState, ctx: RequestContext, account: AccountState, asked: { model: string; raw: unknown }, estimatedCostNano: number, now: number): { gateDigest: string | null; overCap: boolean } {
  const f = ctx.faults;
  const spent = account.monthTotals(now).spendNano;
  const capNano = Math.round(account.fixture.limits.monthly_spend_cap_usd * 1e9);
  const overCap = spent >= capNano && !f.has('spend-cap-ignored');
  if (state.receipts === null) return { gateDigest: null, overCap };
  const gate = state.receipts.gate({
    account: account.fixture.id,
    requestId: ctx.requestId,
    model: asked.model,
    resource: `model:${asked.model}`,
    inputDigestOf: asked.raw,
    decision: overCap
      ? { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: `Monthly spend cap of ${account.fixture.limits.monthly_spend_cap_usd} USD reached.` }
      : { result: 'allowed' },
    estimatedCostUsd: nanoToDecimal(estimatedCostNano),
    faults: f,
  });
  return { gateDigest: gate.gateDigest, overCap };
}
