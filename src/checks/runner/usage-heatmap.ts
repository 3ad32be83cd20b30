import type { RunSettings } from '../context/check-context.ts';
import type { UsageSection } from './conformance-results.ts';
import type { UsageDay } from '../kernel/verdicts.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runTimeLeft } from '../kernel/check-deadline.ts';
import { discoverShape, readRows, type UsageDiscovery } from '../wire/usage-shape.ts';
import { dayTotals } from '../requests/usage-discovery.ts';
import { usageDayFields } from '../wire/usage-day.ts';

/**
 * The account's day-by-day usage for the report's heatmap. Seed, Daily usage: "It holds a
 * day-by-day breakdown of activity, from which an overview heatmap is built." Read with the shape
 * the run discovered (D-HTTP-43): the widest window the server offers (days=90 when it honours
 * `days`), the counters it carries; anything unusable is reported as unavailable, never thrown.
 */
export async function fetchUsageDays(settings: RunSettings, discovery?: UsageDiscovery): Promise<UsageSection> {
  const { fault: _fault, ...faithful } = settings;
  // After the run's deadline nothing more is sent (check-deadline.ts).
  if (runTimeLeft(settings.runDeadline) <= 0) return { unavailable: 'not fetched: the run\'s deadline (--run-timeout) had passed' };
  const ctx = createCheckContext(faithful);
  const path = discovery === undefined || discovery.days.param === 'honoured' ? '/v1/me/usage?days=90' : discovery.path;
  try {
    const ex = await ctx.http.get(path);
    if (ex.status !== 200) return { unavailable: `GET ${path} answered ${ex.status}` };
    // Without the run's discovery (a run that never reached the usage checks), names alone.
    const shape = discovery?.shape ?? discoverShape(ex.json);
    const rows = shape === undefined ? undefined : readRows(ex.json, shape);
    if (rows === undefined) return { unavailable: `GET ${path} did not answer a list of daily rows iari could read` };
    const dates = [...new Set(rows.map((r) => r.date))].sort();
    const days: UsageDay[] = dates.map((date) => usageDayFields(dayTotals(rows, date)));
    return { days };
  } catch (error) {
    return { unavailable: `GET /v1/me/usage failed: ${ctx.http.redact((error as Error).message)}` };
  } finally {
    await ctx.close();
  }
}
