import type { UsageDay } from './verdicts.ts';
import { isInt, isRecord } from './evidence.ts';

/** A value with the shape of one `/v1/me/usage` row. */
export function isUsageDay(v: unknown): v is UsageDay {
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

/** Only the row's own fields, in the profile's key order (drops anything else a server sent). */
export function usageDayFields(d: UsageDay): UsageDay {
  return {
    date: d.date,
    requests: d.requests,
    prompt_tokens: d.prompt_tokens,
    completion_tokens: d.completion_tokens,
    total_tokens: d.total_tokens,
    spend_usd: d.spend_usd,
  };
}
