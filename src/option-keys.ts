import { HarnessError, HarnessErrorCode } from './errors.ts';

/** Levenshtein distance, for "did you mean" on a misspelt option. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j] as number;
      row[j] = Math.min(here + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length] as number;
}

/**
 * A library's options object may hold only the keys it documents: a misspelt one
 * (`runLoad({ concurency: 4 })`) would otherwise be ignored and the run would use the default.
 * Refused as a usage error naming the key as the caller wrote it, with the nearest known key.
 */
export function refuseUnknownKeys(who: string, options: object, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${who}: the options must be an object, got ${Array.isArray(options) ? 'an array' : options === null ? 'null' : typeof options}`);
  }
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const key = unknown[0] as string;
  const near = known.map((k) => ({ k, d: distance(key.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  const hint = near !== undefined && near.d <= Math.max(2, Math.floor(key.length / 3)) ? `did you mean ${near.k}?` : `known options: ${known.join(', ')}`;
  throw new HarnessError(HarnessErrorCode.USAGE, `${who}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}`, { hint });
}
