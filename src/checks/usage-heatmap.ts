import type { RunSettings } from './check-context.ts';
import type { UsageSection } from './conformance-results.ts';
import { createCheckContext } from './check-context.ts';
import { isRecord } from './evidence.ts';
import { isUsageDay, usageDayFields } from './usage-day.ts';

/**
 * The account's day-by-day usage for the report's heatmap. Seed, Daily usage: "It holds a
 * day-by-day breakdown of activity, from which an overview heatmap is built." The widest window
 * the profile allows (90 days); anything unusable is reported as unavailable, never thrown.
 */
export async function fetchUsageDays(settings: RunSettings): Promise<UsageSection> {
  const { fault: _fault, ...faithful } = settings;
  const ctx = createCheckContext(faithful);
  // After the run's deadline nothing more is sent (check-deadline.ts).
  if (settings.runDeadline !== undefined && Date.now() >= settings.runDeadline.at) return { unavailable: 'not fetched: the run\'s deadline (--run-timeout) had passed' };
  try {
    const ex = await ctx.http.get('/v1/me/usage?days=90');
    if (ex.status !== 200) return { unavailable: `GET /v1/me/usage?days=90 answered ${ex.status}` };
    const data = isRecord(ex.json) ? ex.json['data'] : undefined;
    if (!Array.isArray(data) || !data.every(isUsageDay)) return { unavailable: 'GET /v1/me/usage?days=90 did not answer a list of daily rows' };
    return { days: data.map(usageDayFields) };
  } catch (error) {
    return { unavailable: `GET /v1/me/usage failed: ${ctx.http.redact((error as Error).message)}` };
  }
}
