import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FuzzTarget } from './target.ts';

/**
 * The kept inputs of each target: fuzz/corpus/<target> (seeded from the repository's fixtures and
 * generated valid inputs, grown by long runs, minimised: fuzz/minimise.ts) and
 * fuzz/regressions/<target> (each input that once broke an invariant, never minimised away). Files
 * are named by the SHA-1 of their bytes, as libFuzzer names them.
 */

export const corpusDir = (root: string, target: string): string => join(root, 'fuzz/corpus', target);
export const regressionsDir = (root: string, target: string): string => join(root, 'fuzz/regressions', target);

export function readInputs(dir: string): Uint8Array[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => new Uint8Array(readFileSync(join(dir, f))));
}

/** The corpus and the regression inputs of a target. */
export function readCorpus(root: string, target: string): Uint8Array[] {
  return [...readInputs(corpusDir(root, target)), ...readInputs(regressionsDir(root, target))];
}

export function writeInput(dir: string, input: Uint8Array): string {
  mkdirSync(dir, { recursive: true });
  const name = createHash('sha1').update(input).digest('hex');
  writeFileSync(join(dir, name), input);
  return name;
}

/** Writes the target's seeds (fixtures) and 300 generated valid inputs (a fixed seed) into its corpus. */
export async function seedCorpus(root: string, target: FuzzTarget): Promise<number> {
  const dir = corpusDir(root, target.name);
  const inputs = [...(target.seeds?.() ?? []), ...fc.sample(target.valid, { numRuns: 300, seed: 40 })].filter((i) => i.length <= target.maxLen);
  for (const input of inputs) writeInput(dir, input);
  return inputs.length;
}
