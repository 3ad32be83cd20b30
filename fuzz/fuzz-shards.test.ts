import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FUZZ_SHARDS, shardTargets } from './fuzz-pass.ts';
import { targets } from './targets/index.ts';

// The fuzz pass is dealt to shard files run side by side (issue 41): no target may fall between them.
describe('fuzz pass shards', () => {
  it('every target is in exactly one shard, and each shard has its test file', () => {
    const dealt = Array.from({ length: FUZZ_SHARDS }, (_, i) => shardTargets(i + 1).map((t) => t.name)).flat();
    expect(dealt.sort()).toEqual(targets.map((t) => t.name).sort());
    const files = readdirSync(fileURLToPath(new URL('.', import.meta.url))).filter((f) => /^fuzz-pass-\d+\.test\.ts$/.test(f));
    expect(files.sort()).toEqual(Array.from({ length: FUZZ_SHARDS }, (_, i) => `fuzz-pass-${i + 1}.test.ts`));
  });
});
