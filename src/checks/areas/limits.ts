import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { bound } from '../requests/capability-probes.ts';
import { requirementIds } from '../context/check-types.ts';
import type { HttpExchange, Auth } from '../http/check-http.ts';
import { evidence, at, isInt, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorMemberIs, modelUnderTest } from '../requests/common-requests.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

const ids = (...n: number[]): string[] => requirementIds('LIMIT', ...n);

/** Most requests a rate-limit check sends to exhaust a window: limits above this are skipped. */
export const MAX_PROBES = 120;

function bearer(token: string | undefined): Auth {
  return token === undefined ? 'token' : { authorization: `Bearer ${token}` };
}

async function usageTotals(ctx: CheckContext, auth: Auth): Promise<{ requests: unknown; tokens: unknown; spend: unknown }> {
  const me = await ctx.http.get('/v1/me', { auth });
  return { requests: at(me.json, 'usage', 'requests_this_month'), tokens: at(me.json, 'usage', 'tokens_this_month'), spend: at(me.json, 'usage', 'spend_usd') };
}

const requestsPerMinute: CheckDef = {
  name: 'limits-requests-per-minute',
  area: 'limits',
  ids: ids(1, 2, 3, 4, 7, 8),
  title: 'more than requests_per_minute requests get 429 rate_limit_exceeded with Retry-After and x-ratelimit headers, are not counted, and succeed again after Retry-After',
  needsLimits: true,
  // Waits out Retry-After, up to a whole one-minute window.
  timeoutMs: 150_000,
  async run(ctx, j) {
    const auth = bearer(ctx.limitTokens.requestLimited);
    const me = await ctx.http.get('/v1/me', { auth });
    const rpm = at(me.json, 'limits', 'requests_per_minute');
    if (!isInt(rpm) || rpm < 1) {
      j.skipRest('/v1/me reports no requests_per_minute');
      return;
    }
    if (rpm > MAX_PROBES) {
      j.skipRest(`requests_per_minute ${rpm} is too high to exhaust within ${MAX_PROBES} requests`);
      return;
    }
    const model = await modelUnderTest(ctx);
    const body = chatBody(ctx, model, { ...(await bound(ctx, 1)) });
    const before = await usageTotals(ctx, auth);
    let accepted = 0;
    let limited: HttpExchange | undefined;
    for (let i = 0; i <= rpm && limited === undefined; i++) {
      // `raw`: this check exhausts the window on purpose, so its 429 must not be waited out.
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, body, { auth, rateLimit: 'raw' });
      if (ex.status === 429) limited = ex;
      else if (ex.status === 200) accepted += 1;
    }
    const after = await usageTotals(ctx, auth);
    // DECISIONS.md D-HTTP-24, as OpenAI: 429, code rate_limit_exceeded (type names the limit, "requests" or "tokens", and is not graded).
    if (limited === undefined) {
      j.violated('LIMIT-001', evidence(undefined, `${rpm + 1} requests within a minute were all accepted`, { expected: `429 after ${rpm} requests`, received: `${accepted} accepted` }));
      j.skipRest('no rate-limit 429 to inspect');
      return;
    }
    j.expect('LIMIT-001', errorMemberIs(limited, 'code', ['rate_limit_exceeded']), () =>
      evidence(limited, 'the 429 does not carry code rate_limit_exceeded', { expected: { code: 'rate_limit_exceeded' }, received: describeResponse(limited) }),
    );
    const retryAfter = limited.headers['retry-after'];
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
    j.expect('LIMIT-002', seconds !== undefined && seconds >= 1, () => evidence(limited, 'Retry-After is not an integer number of seconds >= 1', { expected: 'integer >= 1', received: retryAfter }));
    const h = limited.headers;
    j.expect('LIMIT-003', h['x-ratelimit-limit-requests'] !== undefined && h['x-ratelimit-remaining-requests'] === '0' && h['x-ratelimit-reset-requests'] !== undefined, () =>
      evidence(limited, 'the 429 lacks x-ratelimit-limit/remaining (0)/reset-requests', {
        expected: { 'x-ratelimit-remaining-requests': '0' },
        received: { limit: h['x-ratelimit-limit-requests'], remaining: h['x-ratelimit-remaining-requests'], reset: h['x-ratelimit-reset-requests'] },
      }),
    );
    // A real account may have used part of its window already, so only a fresh mock account must match exactly.
    const exact = ctx.target === 'bundled-mock' && ctx.limitTokens.requestLimited !== undefined;
    j.expect('LIMIT-008', exact ? accepted === rpm : accepted <= rpm, () =>
      evidence(limited, `the first 429 came after ${accepted} accepted requests`, { expected: exact ? rpm : `<= ${rpm}`, received: accepted }),
    );
    const grew = (k: 'requests' | 'tokens'): number => (after[k] as number) - (before[k] as number);
    if (isInt(before.requests) && isInt(after.requests)) {
      j.expect('LIMIT-007', grew('requests') === accepted, () =>
        evidence(limited, 'limited requests were counted as usage', { expected: { requests: accepted }, received: { requests: grew('requests') } }),
      );
    } else j.skip('LIMIT-007', '/v1/me usage is unreadable (ME checks)');
    if (seconds === undefined || seconds < 1) {
      j.skip('LIMIT-004', 'no usable Retry-After to wait for (LIMIT-002)');
      return;
    }
    await ctx.sleep(seconds * 1000);
    const again = await ctx.http.post(CHAT_COMPLETIONS_PATH, body, { auth, rateLimit: 'raw' });
    j.expect('LIMIT-004', again.status === 200, () => evidence(again, `after waiting Retry-After (${seconds} s) the request answered ${again.status}`, { expected: 200, received: describeResponse(again) }));
  },
};

const tokensPerMinute: CheckDef = {
  name: 'limits-tokens-per-minute',
  area: 'limits',
  ids: ids(5),
  title: 'requests whose tokens exceed tokens_per_minute get 429 rate_limit_exceeded',
  needsLimits: true,
  async run(ctx, j) {
    const auth = bearer(ctx.limitTokens.tokenLimited);
    const me = await ctx.http.get('/v1/me', { auth });
    const tpm = at(me.json, 'limits', 'tokens_per_minute');
    const rpm = at(me.json, 'limits', 'requests_per_minute');
    if (!isInt(tpm) || tpm < 1) {
      j.skip('LIMIT-005', '/v1/me reports no tokens_per_minute');
      return;
    }
    const model = await modelUnderTest(ctx);
    const body = chatBody(ctx, model, { ...(await bound(ctx, 64)) });
    const budget = Math.min(MAX_PROBES, isInt(rpm) ? rpm : MAX_PROBES);
    let tokens = 0;
    for (let i = 0; i < budget; i++) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, body, { auth, rateLimit: 'raw' });
      if (ex.status === 429) {
        j.expect('LIMIT-005', errorMemberIs(ex, 'code', ['rate_limit_exceeded']), () => evidence(ex, 'the tokens 429 is not rate_limit_exceeded', { expected: 'rate_limit_exceeded', received: describeResponse(ex) }));
        return;
      }
      const used = at(ex.json, 'usage', 'total_tokens');
      if (ex.status === 200 && isInt(used)) tokens += used;
      if (tokens > tpm * 2) {
        j.violated('LIMIT-005', evidence(ex, `${tokens} tokens within a minute were accepted`, { expected: `429 beyond ${tpm} tokens`, received: tokens }));
        return;
      }
    }
    j.skip('LIMIT-005', `tokens_per_minute ${tpm} could not be exhausted within ${budget} requests`);
  },
};

const spendCap: CheckDef = {
  name: 'limits-spend-cap',
  area: 'limits',
  ids: ids(6),
  title: 'an account at its monthly spend cap gets 429 insufficient_quota',
  needsLimits: true,
  async run(ctx, j) {
    const token = ctx.limitTokens.capped;
    const auth = bearer(token);
    const me = await ctx.http.get('/v1/me', { auth });
    const spend = at(me.json, 'usage', 'spend_usd');
    const cap = at(me.json, 'limits', 'monthly_spend_cap_usd');
    if (typeof spend !== 'number' || typeof cap !== 'number' || spend < cap) {
      j.skip('LIMIT-006', token === undefined ? 'the account has not reached its monthly spend cap (bundled mock only provides one)' : 'the capped account is not at its cap');
      return;
    }
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { ...(await bound(ctx, 1)) }), { auth, rateLimit: 'raw' });
    // HTTP profile: "Monthly spend cap reached: 429, type insufficient_quota, code insufficient_quota".
    j.expect('LIMIT-006', ex.status === 429 && errorMemberIs(ex, 'type', ['insufficient_quota']) && errorMemberIs(ex, 'code', ['insufficient_quota']), () =>
      evidence(ex, 'a request over the monthly spend cap was not refused with 429 insufficient_quota', { expected: { status: 429, code: 'insufficient_quota' }, received: describeResponse(ex) }),
    );
  },
};

/**
 * The rate limits the run met without trying: each 429 is waited out by the HTTP client and judged
 * by the check that met it (check-runner.ts, rate-limit-findings.ts). This check gives LIMIT-009 and
 * LIMIT-010 their verdict when no 429 was met. DECISIONS.md D-HTTP-42.
 */
const metDuringRun: CheckDef = {
  name: 'limits-met-during-run',
  area: 'limits',
  ids: ids(9, 10),
  title: 'a 429 met during the run lifts after the wait the server asks for and never comes before the limits /v1/me reports',
  async run(ctx, j) {
    const events = (ctx.http.rateLimits?.all ?? []).filter((e) => e.action !== 'quota');
    const sent = ctx.http.sent.length;
    if (events.length === 0) {
      j.expect('LIMIT-009', sent > 0, () => ({ message: 'the run sent no request to judge' }));
      j.skip('LIMIT-010', `no 429 was met in the ${sent} requests sent so far`);
      return;
    }
    j.skipRest(`${events.length} 429s were met; each is judged with the check that met it`);
  },
};

export const limitsChecks: CheckDef[] = [requestsPerMinute, tokensPerMinute, spendCap, metDuringRun];
