import type { SchemaError, SchemaResult } from './schema-validators.ts';
import { isRecord } from '../framework/json-guards.ts';

/**
 * Rules JSON Schema cannot express (it cannot add numbers or compare across members). Each returns the
 * same result shape as validateSchema, with JSON Pointers into the value it was given.
 */

function result(errors: SchemaError[]): SchemaResult {
  return errors.length === 0 ? { ok: true } : { ok: false, errors };
}

// Spec, Chat completion: "usage.total_tokens | integer | sum of the two above"
/** total_tokens = prompt_tokens + completion_tokens for a usage object at `pointer` (skips non-integers: the schema reports those). */
export function checkUsageSum(usage: unknown, pointer = ''): SchemaResult {
  if (!isRecord(usage)) return { ok: true };
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = usage;
  if (!Number.isInteger(p) || !Number.isInteger(c) || !Number.isInteger(t)) return { ok: true };
  const expected = (p as number) + (c as number);
  if (t === expected) return { ok: true };
  return result([{ pointer: `${pointer}/total_tokens`, keyword: 'sum', message: `must equal prompt_tokens + completion_tokens (${expected}), got ${String(t)}` }]);
}

/** Usage-sum rule applied where a response or chunk carries usage: ChatCompletion, UsageChunk, DailyUsage rows. */
export function checkSemanticRules(kind: 'ChatCompletion' | 'UsageChunk' | 'DailyUsage', value: unknown): SchemaResult {
  if (!isRecord(value)) return { ok: true };
  if (kind === 'DailyUsage') {
    const rows = Array.isArray(value['data']) ? value['data'] : [];
    const errors = rows.flatMap((row, i) => {
      const r = checkUsageSum(row, `/data/${i}`);
      return r.ok ? [] : r.errors;
    });
    return result(errors);
  }
  return checkUsageSum(value['usage'], '/usage');
}

/** conformance-anchors.md §2 #13: `created` below 10^10 (the schema) and within `toleranceSeconds` of `nowSeconds`. */
export function checkCreatedNear(created: unknown, nowSeconds: number, toleranceSeconds = 86_400, pointer = '/created'): SchemaResult {
  if (!Number.isInteger(created)) return result([{ pointer, keyword: 'type', message: 'must be an integer' }]);
  const skew = Math.abs((created as number) - nowSeconds);
  if (skew <= toleranceSeconds) return { ok: true };
  return result([{ pointer, keyword: 'near-now', message: `must be within ${toleranceSeconds}s of now (${nowSeconds}), off by ${skew}s` }]);
}
