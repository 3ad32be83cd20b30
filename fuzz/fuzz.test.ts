import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCorpus } from './corpus.ts';
import { runFastCheck } from './engines/fast-check.ts';
import { targets } from './targets/index.ts';

// CI's fuzz pass (slow tier: it loads a core for a minute per target): generated inputs for each
// target, time-boxed as undici's test/fuzzing is. FUZZ_SECONDS sets the box (default 60);
// FUZZ_SEED replays a run. A finding fails the test with the input, its seed and its path.
const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env['FUZZ_SECONDS'] ?? 60);
const seed = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);

describe('fuzz pass', () => {
  for (const target of targets) {
    it(`${target.name}: ${seconds} s of generated inputs break no invariant`, async () => {
      const r = await runFastCheck(target, readCorpus(root, target.name), { seconds, ...(seed === undefined ? {} : { seed }) });
      const found = r.finding === null ? null : `${r.finding.error}\ninput (base64): ${Buffer.from(r.finding.input).toString('base64').slice(0, 2000)}\nreplay: FUZZ_SEED=${r.finding.seed} (path ${r.finding.path})`;
      expect(found).toBeNull();
      expect(r.executions).toBeGreaterThan(0);
    }, (seconds + 120) * 1000);
  }
});
