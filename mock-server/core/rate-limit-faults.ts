import type { FaultDefinition } from './fault-catalogue.ts';
import type { HeaderMap } from './types.ts';

// Rate limits a normal `iari test` run meets (issue 10, part 4): iari waits them out, judges them
// by LIMIT-001/002/003/009/010 and HDR-004/005/006 only, and every other verdict stays as on the
// faithful mock (suites/meta/rate-limit-faults.test.ts). `limit-never-429` (fault-catalogue.ts) is
// the third case: a server that never limits.

/** The requests per minute these faults hold every account to (a full run sends about 100 chat requests). */
export const LOW_REQUESTS_PER_MINUTE = 20;

const f = (name: string, breaks: string[], exercises: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, exercises, description });

export const rateLimitFaults: readonly FaultDefinition[] = [
  f(
    'rate-limit-below-reported',
    // HDR-007 (INFO): the x-ratelimit-* headers tell the enforced limit, which differs from /v1/me's.
    ['LIMIT-009', 'HDR-007'],
    ['LIMIT-010'],
    `Chat requests are held to ${LOW_REQUESTS_PER_MINUTE} per minute per account while /v1/me reports the plan's limit (the x-ratelimit-* headers tell the enforced one); its 429s are well-formed.`,
  ),
  f(
    'rate-limit-no-retry-after',
    ['LIMIT-002', 'LIMIT-003'],
    ['LIMIT-010'],
    `Every account is limited to ${LOW_REQUESTS_PER_MINUTE} chat requests per minute and /v1/me says so; its 429s carry neither Retry-After nor x-ratelimit-* headers, so a client must back off.`,
  ),
  f(
    'rate-limit-never-lifts',
    // LIMIT-009 too: after the wait, a request within the reported limit is still refused; and
    // LIMIT-004 (judged with --include limits): the request sent after Retry-After is refused.
    ['LIMIT-010', 'LIMIT-009', 'LIMIT-004'],
    ['LIMIT-010'],
    `Every account is limited to ${LOW_REQUESTS_PER_MINUTE} chat requests per minute and /v1/me says so; once an account is limited, every later chat request gets a well-formed 429 (Retry-After included), however long the client waits.`,
  ),
];

/** The requests_per_minute /v1/me reports under the faults. */
export function reportedRequestsPerMinute(rpm: number, f: ReadonlySet<string>): number {
  return f.has('rate-limit-no-retry-after') || f.has('rate-limit-never-lifts') ? Math.min(rpm, LOW_REQUESTS_PER_MINUTE) : rpm;
}

/** Accounts a `rate-limit-never-lifts` limit has caught. */
const caught = new WeakSet<object>();

/** Under `rate-limit-never-lifts`: whether this request is refused although the window admits it (the account was limited before). */
export function limitNeverLifted(account: object, admitted: boolean, f: ReadonlySet<string>): boolean {
  if (!f.has('rate-limit-never-lifts')) return false;
  if (!admitted) caught.add(account);
  return admitted && caught.has(account);
}

/** The requests_per_minute the chat route enforces under the faults. */
export function enforcedRequestsPerMinute(rpm: number, f: ReadonlySet<string>): number {
  if (f.has('limit-one-below-reported')) return Math.max(1, rpm - 1);
  return f.has('rate-limit-below-reported') || f.has('rate-limit-no-retry-after') || f.has('rate-limit-never-lifts') ? Math.min(rpm, LOW_REQUESTS_PER_MINUTE) : rpm;
}

/** The headers of a rate-limit 429 under the faults (those that say when to retry are dropped). */
export function limitedHeaders(headers: HeaderMap, f: ReadonlySet<string>): HeaderMap {
  if (!f.has('rate-limit-no-retry-after')) return headers;
  const out: HeaderMap = {};
  for (const [k, v] of Object.entries(headers)) if (k !== 'retry-after' && !k.startsWith('x-ratelimit-')) out[k] = v;
  return out;
}
