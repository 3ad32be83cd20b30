import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTiers, formatTierTimes, tierOf, tierTimes, type TierGlobs } from './ci-durations.ts';

const tiers: TierGlobs[] = [
  { name: 'shared', include: ['src/**/*.test.ts', 'suites/**/*.test.ts'], exclude: ['suites/load/**/*.test.ts', 'suites/hostile/**/*.test.ts'] },
  { name: 'alone', include: ['suites/load/**/*.test.ts'], exclude: [] },
  { name: 'slow', include: ['suites/hostile/**/*.test.ts'], exclude: [] },
];

describe('scripts/ci-durations.ts: where test:all\'s time goes, per tier and per file (issue 41)', () => {
  it('deals each file to the first tier whose include matches and whose exclude does not', () => {
    expect(tierOf('src/a/b.test.ts', tiers)).toBe('shared');
    expect(tierOf('suites/load/x.test.ts', tiers)).toBe('alone');
    expect(tierOf('suites/hostile/h.test.ts', tiers)).toBe('slow');
    expect(tierOf('docs/x.md', tiers)).toBe('none');
  });

  it('gives each tier its wall (from the previous tier\'s last end, the run\'s start for the first, to its own last end: a first file\'s beforeAll is not in its span), the sum of its files (a file\'s span, or its tests\' sum where vitest gives a shorter span) and its slowest files, tiers in the order they ran', () => {
    const rows = tierTimes(
      0,
      [
        { file: 'suites/load/x.test.ts', startMs: 10_000, endMs: 14_000, testsMs: 3_900 },
        { file: 'src/a.test.ts', startMs: 0, endMs: 6_000, testsMs: 5_000 },
        { file: 'src/b.test.ts', startMs: 1_000, endMs: 1_500, testsMs: 8_000 },
        { file: 'suites/load/y.test.ts', startMs: 14_000, endMs: 15_000, testsMs: 900 },
      ],
      tiers,
      1,
    );
    expect(rows).toEqual([
      { tier: 'shared', files: 2, sumS: 14, slowest: [{ file: 'src/b.test.ts', s: 8 }], wallS: 6 },
      { tier: 'alone', files: 2, sumS: 5, slowest: [{ file: 'suites/load/x.test.ts', s: 4 }], wallS: 9 },
    ]);
    expect(formatTierTimes(rows).split('\n')[1]).toBe('shared        2        6       14  src/b.test.ts 8');
  });

  it('vitest.config.ts deals every test file of the repository to a tier (test:all runs them all), the slow files that judge no clock to slow-pairs, the hostile suite apart in slow', async () => {
    const tiers = await configTiers();
    expect(tiers.map((t) => t.name)).toEqual(['shared', 'alone', 'slow', 'slow-pairs', 'fuzz', 'engines']);
    const files = ['src', 'mock-server', 'suites', 'scripts', 'test-support', 'fuzz'].flatMap((top) => readdirSync(top, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).map((f) => `${top}/${f}`));
    expect(files.length).toBeGreaterThan(250);
    expect(files.filter((f) => tierOf(f, tiers) === 'none')).toEqual([]);
    const of = (f: string): string => tierOf(f, tiers);
    expect(['suites/hostile/hostile.test.ts', 'suites/load/capacity-search.test.ts', 'suites/load/cancel-capacity.test.ts'].map(of)).toEqual(['slow', 'slow', 'slow']);
    expect(['suites/hostile/model-cap.test.ts', 'suites/pack/pack-install.test.ts', 'suites/action/action-scripts.test.ts', 'suites/third-party/mock-llm.test.ts'].map(of)).toEqual(['slow-pairs', 'slow-pairs', 'slow-pairs', 'slow-pairs']);
    expect(['suites/meta/fault-matrix.test.ts', 'suites/meta/fault-matrix-clients.test.ts', 'suites/load/progress-log.test.ts', 'fuzz/fuzz-pass-1.test.ts'].map(of)).toEqual(['shared', 'shared', 'alone', 'fuzz']);
  });
});
