import type { Grade } from '../kernel/verdicts.ts';
import type { CheckOutcome } from '../kernel/verdicts.ts';
import type { RateLimitEvent } from './rate-limit-retry.ts';
import { Judge } from '../kernel/judge.ts';
import { at, isInt } from '../kernel/evidence.ts';
import { formatWait, parseGoDuration } from './rate-limit-wait.ts';

/**
 * The requirements a 429 met during the run is judged by, and only these (issue 10, part 4): every
 * other check sees the answer the server gave once the limit lifted.
 */
export const OBSERVED_IDS = ['LIMIT-001', 'LIMIT-002', 'LIMIT-003', 'LIMIT-009', 'LIMIT-010', 'HDR-004', 'HDR-005', 'HDR-006'] as const;

/** The account limits /v1/me reports (seed §Limits: "Per-account limits are reported by GET /v1/me in limits"). */
export interface ReportedLimits {
  requestsPerMinute: number | undefined;
  tokensPerMinute: number | undefined;
}

export function reportedLimitsOf(meJson: unknown): ReportedLimits {
  const rpm = at(meJson, 'limits', 'requests_per_minute');
  const tpm = at(meJson, 'limits', 'tokens_per_minute');
  return { requestsPerMinute: isInt(rpm) && rpm > 0 ? rpm : undefined, tokensPerMinute: isInt(tpm) && tpm > 0 ? tpm : undefined };
}

function failureOf(e: RateLimitEvent, message: string, detail: { expected?: unknown; received?: unknown } = {}): { message: string; expected?: unknown; received?: unknown; requestId?: string; curl?: string } {
  return {
    message: `${e.method} ${e.path} answered 429 during the run: ${message}`,
    ...detail,
    ...(e.requestId === undefined ? {} : { requestId: e.requestId }),
    ...(e.curl === undefined ? {} : { curl: e.curl }),
  };
}

/** A 429 that tells a token limit apart: remaining tokens 0, or an error message naming tokens. */
function aboutTokens(e: RateLimitEvent): boolean {
  const message = at(e.json, 'error', 'message');
  return e.headers['x-ratelimit-remaining-tokens']?.trim() === '0' || (typeof message === 'string' && /token/i.test(message) && !/request/i.test(message));
}

/**
 * Judges the rate-limit 429s the run met (not those the limits checks provoke on purpose, which
 * they judge themselves). `limits` is /v1/me's report for the run's account; only 429s of that
 * account (`account: 'run'`) are compared with it. Returns outcomes for the IDs judged.
 */
export function judgeRateLimitEvents(events: readonly RateLimitEvent[], limits: ReportedLimits | undefined, gradeOf: (id: string) => Grade): CheckOutcome[] {
  const j = new Judge(OBSERVED_IDS, gradeOf);
  for (const e of events) {
    if (e.action === 'quota') continue;
    const h = e.headers;
    // DECISIONS.md D-HTTP-24, as OpenAI: 429, code rate_limit_exceeded (type names the limit, "requests" or "tokens",
    // and is not graded: D-GRADE-06 #8), with Retry-After ... and the six headers.
    const type = at(e.json, 'error', 'type');
    const code = at(e.json, 'error', 'code');
    j.expect('LIMIT-001', code === 'rate_limit_exceeded', () =>
      failureOf(e, 'the 429 does not carry code rate_limit_exceeded', { expected: { code: 'rate_limit_exceeded' }, received: { type, code } }),
    );
    const retryAfter = h['retry-after'];
    j.expect('LIMIT-002', retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) && Number(retryAfter) >= 1, () =>
      failureOf(e, `Retry-After is not an integer number of seconds >= 1 (iari ${e.wait === undefined ? 'did not wait' : `waited ${formatWait(e.wait.ms)} by ${e.wait.basis}`})`, { expected: 'integer >= 1', received: retryAfter }),
    );
    j.expect('LIMIT-003', h['x-ratelimit-limit-requests'] !== undefined && h['x-ratelimit-remaining-requests'] !== undefined && h['x-ratelimit-reset-requests'] !== undefined, () =>
      failureOf(e, 'the 429 lacks x-ratelimit-limit/remaining/reset-requests', {
        received: { limit: h['x-ratelimit-limit-requests'], remaining: h['x-ratelimit-remaining-requests'], reset: h['x-ratelimit-reset-requests'] },
      }),
    );
    // D-HTTP-35: rate-limit headers, where present, are well-formed.
    for (const kind of ['requests', 'tokens'] as const) {
      const limit = h[`x-ratelimit-limit-${kind}`];
      const remaining = h[`x-ratelimit-remaining-${kind}`];
      const reset = h[`x-ratelimit-reset-${kind}`];
      if (limit !== undefined) j.expect('HDR-004', /^\d+$/.test(limit), () => failureOf(e, `x-ratelimit-limit-${kind} is not a non-negative integer`, { received: limit }));
      if (remaining !== undefined) {
        j.expect('HDR-005', /^\d+$/.test(remaining) && (limit === undefined || Number(remaining) <= Number(limit)), () =>
          failureOf(e, `x-ratelimit-remaining-${kind} is not an integer within the limit`, { expected: `0..${limit ?? '?'}`, received: remaining }),
        );
      }
      if (reset !== undefined) j.expect('HDR-006', parseGoDuration(reset) !== undefined, () => failureOf(e, `x-ratelimit-reset-${kind} is not a Go-style duration`, { expected: '1s, 250ms, 6m0s', received: reset }));
    }
    // Seed §Limits: "Per-account limits are reported by GET /v1/me in limits".
    if (e.account === 'run' && limits?.requestsPerMinute !== undefined && !aboutTokens(e)) {
      const tokensLeft = limits.tokensPerMinute === undefined || e.tokensInWindow < limits.tokensPerMinute;
      j.expect('LIMIT-009', !(e.sentInWindow <= limits.requestsPerMinute && tokensLeft), () =>
        failureOf(e, `the run had sent ${e.sentInWindow} requests with this account in the minute before it, and /v1/me reports requests_per_minute ${limits.requestsPerMinute} (a limit lower than reported, or another client using the same account)`, {
          expected: `no 429 before ${limits.requestsPerMinute} requests in a minute`,
          received: { requests_in_window: e.sentInWindow, tokens_in_window: e.tokensInWindow },
        }),
      );
    }
    if (e.lifted === true) j.pass('LIMIT-010');
    else if (e.lifted === false) {
      j.violated('LIMIT-010', failureOf(e, `the limit did not lift: ${e.reason ?? 'iari stopped waiting'}; the check that sent it could not decide and is skipped`, { received: { attempt: e.attempt, 'retry-after': retryAfter } }));
    }
  }
  return j.outcomes().filter((o) => j.has(o.id));
}
