import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { corpusDir, readInputs, regressionsDir } from './corpus.ts';
import { execute } from './execute.ts';
import { targets } from './targets/index.ts';

// Every kept input of every target, run through its invariants: the corpus (fuzz/corpus/<target>) and
// each input that once broke one (fuzz/regressions/<target>). The long runs are `npm run fuzz`; the
// time-boxed generated pass is fuzz/fuzz-pass.ts (fuzz tier).
const root = fileURLToPath(new URL('..', import.meta.url));

describe('fuzz corpus and regressions', () => {
  for (const target of targets) {
    it(`${target.name}: every kept input keeps every invariant`, async () => {
      const inputs = [...readInputs(corpusDir(root, target.name)), ...readInputs(regressionsDir(root, target.name))];
      expect(inputs.length, `fuzz/corpus/${target.name} is empty: npm run fuzz -- --target ${target.name} --seed-corpus`).toBeGreaterThan(0);
      for (const input of inputs) await execute(target, input);
    }, 120_000);
  }

  it('every target names modules that exist (coverage and the docs table are measured over them)', () => {
    const missing = targets.flatMap((t) => t.sources.filter((s) => !existsSync(join(root, s))).map((s) => `${t.name}: ${s}`));
    expect(missing).toEqual([]);
    expect(targets.every((t) => t.sources.length > 0)).toBe(true);
  });
});
