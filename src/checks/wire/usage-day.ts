import type { UsageDay } from '../kernel/verdicts.ts';

/** Only the row's own fields, in the profile's key order (drops anything else, and counters the server does not carry). */
export function usageDayFields(d: UsageDay): UsageDay {
  const out: UsageDay = { date: d.date };
  for (const k of ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'spend_usd'] as const) {
    const v = d[k];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}
