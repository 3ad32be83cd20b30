import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

// In a child process: the flag is process-wide, and the test's own worker must keep V8's defaults.
// The child allocates 200 MiB of objects that survive their scavenges (what a large import does),
// then prints its young generation's committed size in MiB.
function youngGenerationAfterSurvivors(keep: boolean): number {
  const code = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { keepYoungGenerationSize } from './src/young-generation.ts';
    if (${String(keep)}) keepYoungGenerationSize();
    const kept = [];
    for (let i = 0; i < 200_000; i++) kept.push({ i, text: 'x'.repeat(1000 + (i % 7)) });
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 2 ** 20) + ' ' + kept.length);`;
  const child = spawnSync(process.execPath, ['--import', `${root}scripts/register-ts.mjs`, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  const [mib, count] = child.stdout.trim().split(' ').map(Number);
  expect(count).toBe(200_000);
  return mib!;
}

describe('keepYoungGenerationSize', () => {
  it('keeps the young generation at its size while survivors pile up, where V8 alone grows it (issue 41)', () => {
    const grown = youngGenerationAfterSurvivors(false);
    const kept = youngGenerationAfterSurvivors(true);
    expect(grown, 'V8 alone grows its young generation under survivors').toBeGreaterThanOrEqual(4 * kept);
    expect(kept).toBeLessThanOrEqual(4);
  });
});
