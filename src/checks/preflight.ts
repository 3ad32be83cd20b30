import type { RunSettings } from './check-context.ts';
import { createCheckContext } from './check-context.ts';
import { at, isInt } from './evidence.ts';

/** Used when /v1/me does not say: a conservative budget for an unknown real server. */
export const DEFAULT_REQUESTS_PER_MINUTE = 60;

/**
 * The account's `limits.requests_per_minute` from /v1/me, so the suites can throttle themselves
 * against a real server. Seed, Limits: "Per-account limits are reported by GET /v1/me in limits".
 */
export async function preflightRequestsPerMinute(settings: RunSettings): Promise<number> {
  const ctx = createCheckContext(settings);
  try {
    const ex = await ctx.http.get('/v1/me');
    const rpm = at(ex.json, 'limits', 'requests_per_minute');
    return ex.status === 200 && isInt(rpm) && rpm > 0 ? rpm : DEFAULT_REQUESTS_PER_MINUTE;
  } catch {
    return DEFAULT_REQUESTS_PER_MINUTE;
  } finally {
    await ctx.close();
  }
}
