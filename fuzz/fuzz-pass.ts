import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCorpus } from './corpus.ts';
import { runFastCheck } from './engines/fast-check.ts';
import { targets } from './targets/index.ts';

// CI's fuzz pass (fuzz tier: it loads a core for a minute per target): generated inputs for each
// target, time-boxed as undici's test/fuzzing is. FUZZ_SECONDS sets the box (default 60);
// FUZZ_SEED replays a run. A finding fails the test with the input, its seed and its path.
// The targets are dealt to FUZZ_SHARDS test files (fuzz-pass-N.test.ts), which the fuzz tier runs
// side by side, one per core: no clock is measured, and every target still gets its whole box.
const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env['FUZZ_SECONDS'] ?? 60);
const seed = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);

/** How many fuzz-pass-N.test.ts files share the targets. */
export const FUZZ_SHARDS = 2;

/** The targets shard `n` (1-based) of FUZZ_SHARDS runs: every FUZZ_SHARDS-th, so each target is in exactly one shard. */
export function shardTargets(n: number): typeof targets {
  return targets.filter((_, i) => i % FUZZ_SHARDS === n - 1);
}

export function fuzzPass(n: number): void {
  describe(`fuzz pass, shard ${n} of ${FUZZ_SHARDS}`, () => {
    for (const target of shardTargets(n)) {
      it(`${target.name}: ${seconds} s of generated inputs break no invariant`, async () => {
        const r = await runFastCheck(target, readCorpus(root, target.name), { seconds, ...(seed === undefined ? {} : { seed }) });
        const found = r.finding === null ? null : `${r.finding.error}\ninput (base64): ${Buffer.from(r.finding.input).toString('base64').slice(0, 2000)}\nreplay: FUZZ_SEED=${r.finding.seed} (path ${r.finding.path})`;
        expect(found).toBeNull();
        expect(r.executions).toBeGreaterThan(0);
      }, (seconds + 120) * 1000);
    }
  });
}
