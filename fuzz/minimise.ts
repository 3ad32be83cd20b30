import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { corpusDir, readInputs, writeInput } from './corpus.ts';
import { execute } from './execute.ts';
import type { FuzzTarget } from './target.ts';

/** libFuzzer's hit-count buckets: a block run once, twice, 3 times, 4-7, 8-15, 16-31, 32-127, 128 or more. */
const bucket = (n: number): number => (n < 4 ? n : n < 8 ? 4 : n < 16 ? 5 : n < 32 ? 6 : n < 128 ? 7 : 8);

/**
 * Folds the inputs a long run found (.fuzz/<target>/corpus) into the kept corpus and minimises it:
 * every input is run once under V8's block coverage, smallest first, and kept only when it reaches
 * a block of src/ (or a block's hit-count bucket) no smaller input reached. What libFuzzer's
 * -merge=1 does, by V8's own counters.
 */
export async function minimise(root: string, target: FuzzTarget): Promise<{ before: number; after: number; blocks: number }> {
  const dir = corpusDir(root, target.name);
  const fresh = join(root, '.fuzz', target.name, 'corpus');
  const before = existsSync(dir) ? readdirSync(dir).length : 0;
  const unique = new Map<string, Uint8Array>();
  for (const input of [...readInputs(dir), ...readInputs(fresh)]) unique.set(createHash('sha1').update(input).digest('hex'), input);
  const inputs = [...unique.values()].sort((a, b) => a.length - b.length);
  const session = new Session();
  session.connect();
  const kept: Uint8Array[] = [];
  const seen = new Set<string>();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
    await session.post('Profiler.takePreciseCoverage');
    for (const input of inputs) {
      try {
        await execute(target, input);
      } catch {
        // An input that breaks an invariant is a finding (fuzz/regressions once fixed), not corpus.
        await session.post('Profiler.takePreciseCoverage');
        continue;
      }
      const { result } = await session.post('Profiler.takePreciseCoverage');
      let adds = false;
      for (const script of result) {
        if (!script.url.includes('/src/') || script.url.includes('/node_modules/')) continue;
        for (const fn of script.functions) {
          for (const r of fn.ranges) {
            if (r.count === 0) continue;
            const key = `${script.url}:${r.startOffset}:${r.endOffset}:${bucket(r.count)}`;
            if (!seen.has(key)) {
              seen.add(key);
              adds = true;
            }
          }
        }
      }
      if (adds) kept.push(input);
    }
    await session.post('Profiler.stopPreciseCoverage');
  } finally {
    session.disconnect();
  }
  if (kept.length === 0) return { before, after: before, blocks: 0 };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const input of kept) writeInput(dir, input);
  rmSync(fresh, { recursive: true, force: true });
  return { before, after: kept.length, blocks: seen.size };
}
