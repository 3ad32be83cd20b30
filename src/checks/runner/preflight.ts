import type { RunSettings } from '../context/check-context.ts';
import { createCheckContext } from '../context/check-context.ts';
import { at, isInt } from '../kernel/evidence.ts';

/**
 * The account's `limits.requests_per_minute` from /v1/me, so the suites can throttle themselves
 * against a real server; undefined when it does not say (the run then paces itself, pace.ts).
 * Seed, Limits: "Per-account limits are reported by GET /v1/me in limits".
 */
export async function preflightRequestsPerMinute(settings: RunSettings): Promise<number | undefined> {
  const ctx = createCheckContext(settings);
  try {
    const ex = await ctx.http.get('/v1/me');
    const rpm = at(ex.json, 'limits', 'requests_per_minute');
    return ex.status === 200 && isInt(rpm) && rpm > 0 ? rpm : undefined;
  } catch {
    return undefined;
  } finally {
    await ctx.close();
  }
}
