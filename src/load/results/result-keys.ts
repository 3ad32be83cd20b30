import type { LoadResult } from './load-result.ts';

/**
 * The order of load.json's keys as iari has always written them (a section's key, wherever the
 * section list puts it, keeps its place); keys not named here (a protocol's own section) follow in
 * the order they were added, and the run adds its own after (priming, interrupted, coordination, scenario).
 */
const keyOrder = [
  'meta', 'counts', 'throughput', 'metrics', 'errors', 'slos', 'slosPassed', 'goodput', 'toolCalls',
  'timeslices', 'sweep', 'shard', 'mergedFrom', 'validity', 'tokens', 'cache', 'reasoning',
  'turns', 'embeddings', 'connectionReuse', 'server', 'cancellation',
] as const;

/** A result with its keys in load.json's order (JSON.stringify writes them in insertion order). */
export function orderResultKeys(result: LoadResult): LoadResult {
  const src = result as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keyOrder) if (k in src) out[k] = src[k];
  for (const [k, v] of Object.entries(src)) if (!(k in out)) out[k] = v;
  return out as unknown as LoadResult;
}
