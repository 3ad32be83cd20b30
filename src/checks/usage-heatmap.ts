import type { UsageDay } from './verdicts.ts';
import type { RunSettings } from './check-context.ts';
import type { UsageSection } from './conformance-results.ts';
import { createCheckContext } from './check-context.ts';
import { isInt, isRecord } from './evidence.ts';

function isUsageDay(v: unknown): v is UsageDay {
  return (
    isRecord(v) &&
    typeof v['date'] === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(v['date']) &&
    isInt(v['requests']) &&
    isInt(v['prompt_tokens']) &&
    isInt(v['completion_tokens']) &&
    isInt(v['total_tokens']) &&
    typeof v['spend_usd'] === 'number'
  );
}

/**
 * The account's day-by-day usage for the report's heatmap. Seed, Daily usage: "It holds a
 * day-by-day breakdown of activity, from which an overview heatmap is built." The widest window
 * the profile allows (90 days); anything unusable is reported as unavailable, never thrown.
 */
export async function fetchUsageDays(settings: RunSettings): Promise<UsageSection> {
  const { fault: _fault, ...faithful } = settings;
  const ctx = createCheckContext(faithful);
  try {
    const ex = await ctx.http.get('/v1/me/usage?days=90');
    if (ex.status !== 200) return { unavailable: `GET /v1/me/usage?days=90 answered ${ex.status}` };
    const data = isRecord(ex.json) ? ex.json['data'] : undefined;
    if (!Array.isArray(data) || !data.every(isUsageDay)) return { unavailable: 'GET /v1/me/usage?days=90 did not answer a list of daily rows' };
    return {
      days: data.map((d) => ({
        date: d.date,
        requests: d.requests,
        prompt_tokens: d.prompt_tokens,
        completion_tokens: d.completion_tokens,
        total_tokens: d.total_tokens,
        spend_usd: d.spend_usd,
      })),
    };
  } catch (error) {
    return { unavailable: `GET /v1/me/usage failed: ${ctx.http.redact((error as Error).message)}` };
  }
}
