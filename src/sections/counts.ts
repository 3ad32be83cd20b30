/**
 * Named counters as every section keeps them: a record of sums that shards merge exactly by adding
 * key by key (the one implementation of the accumulator shapes the load results repeated).
 */

/** A record of counters, all 0. */
export function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = 0;
  return out;
}

/** Adds `from`'s counters into `into`, key by key (a missing count adds 0). */
export function addCounts<K extends string>(into: Record<K, number>, from: Readonly<Partial<Record<K, number>>>, keys: readonly K[]): void {
  for (const k of keys) into[k] += from[k] ?? 0;
}

/** The counters of several parts added up. */
export function sumCounts<K extends string>(parts: readonly Readonly<Partial<Record<K, number>>>[], keys: readonly K[]): Record<K, number> {
  const out = zeroCounts(keys);
  for (const p of parts) addCounts(out, p, keys);
  return out;
}
