import type { CoreState, RequestContext } from './context.ts';
import type { FullResponse, MockRequest } from './types.ts';
import type { AccountState } from './accounts.ts';
import { badRequest, errorResponse } from './http-errors.ts';
import { json } from './json-response.ts';
import { applyMeFaults } from './account-faults.ts';
import { reportedRequestsPerMinute } from './rate-limit-faults.ts';
import { shapedUsageBody } from './open-shapes.ts';

// GET /v1/me and GET /v1/me/usage, with the account faults.

export function meBody(state: CoreState, account: AccountState, f: ReadonlySet<string>): unknown {
  const me = account.me(state.now()) as Record<string, Record<string, unknown>>;
  if (f.size === 0) return me;
  if (f.has('me-wrong-types') && me['usage'] !== undefined) me['usage']['requests_this_month'] = String(me['usage']['requests_this_month']);
  if (f.has('me-renews-at-not-iso') && me['plan'] !== undefined) me['plan']['renews_at'] = String(me['plan']['renews_at']).replace('T', ' ').replace('Z', '');
  if (f.has('me-features-missing') && me['features'] !== undefined) delete me['features']['ember_os'];
  if (me['limits'] !== undefined) me['limits']['requests_per_minute'] = reportedRequestsPerMinute(Number(me['limits']['requests_per_minute']), f);
  applyMeFaults(me, f);
  return me;
}

export function usage(state: CoreState, req: MockRequest, ctx: RequestContext, account: AccountState): FullResponse {
  const f = ctx.faults;
  const raw = req.query.get('days');
  let days = 30;
  if (raw !== null) {
    // HTTP profile: `days` integer 1..90, default 30; else 400 with param `days`.
    const valid = /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 90;
    if (valid) days = Number(raw);
    else if (!f.has('usage-days-unvalidated')) {
      return errorResponse(badRequest('days', `Invalid 'days': expected an integer from 1 to 90, got '${raw.slice(0, 40)}'.`), ctx.requestId, f);
    }
  }
  if (f.has('usage-days-ignored')) days = 30;
  let rows: Record<string, unknown>[] = account.usageRows(state.now(), days);
  if (f.size > 0) {
    const today = rows[rows.length - 1];
    if (f.has('daily-rows-not-summing') && today !== undefined) {
      today['requests'] = Number(today['requests']) + 1;
    }
    if (f.has('usage-rows-not-zero-filled')) rows = rows.filter((r) => r['requests'] !== 0);
    if (f.has('usage-rows-newest-first')) rows.reverse();
    if (f.has('usage-spend-string')) for (const r of rows) r['spend_usd'] = String(r['spend_usd']);
  }
  // Other legal shapes of the same rows (legal-usage-* modes and their faults).
  const shaped = f.size > 0 ? shapedUsageBody(rows as Parameters<typeof shapedUsageBody>[0], days, f) : undefined;
  return json(200, shaped ?? { object: 'list', days, data: rows }, ctx.requestId);
}
