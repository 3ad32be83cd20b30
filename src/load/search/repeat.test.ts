import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test-support/cli-in-process.ts';
import { compareLoad } from '../../compare/load-compare.ts';
import { withSlowerTtft } from '../../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { repeatSection } from './repeat.ts';
import type { LoadResult } from '../results/load-result.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-repeat-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const runs = [3, 4, 5].map((seed) => sampleLoadResult({ seed, stall: false, errors: false }));

describe('iari load --repeat', () => {
  it('gives each metric its mean over the runs, a t interval that holds it, the CV, and flags a metric varying more than 10%', () => {
    const s = repeatSection(runs);
    expect(s.runs).toBe(3);
    expect(s.values['ttft.p50']).toEqual(runs.map((r) => r.metrics.ttft?.percentiles.p50));
    const st = s.stats['ttft.p50'];
    const values = s.values['ttft.p50'] ?? [];
    expect(st?.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / 3, 6);
    expect(st?.low).toBeLessThan(st?.mean ?? 0);
    expect(st?.high).toBeGreaterThan(st?.mean ?? 0);
    const wild = repeatSection([runs[0] as LoadResult, withSlowerTtft(runs[1] as LoadResult, 1.5), runs[2] as LoadResult]);
    expect(wild.unstable).toContain('ttft.p50');
    expect(s.unstable).not.toContain('ttft.p50');
  });

  it('compare tests a row by Welch t over the runs when both sides were repeated', () => {
    const a = { ...(runs[0] as LoadResult), repeat: repeatSection(runs) };
    const slower = runs.map((r) => withSlowerTtft(r, 1.2));
    const b = { ...(slower[0] as LoadResult), repeat: repeatSection(slower) };
    const row = compareLoad(a, b).find((r) => r.key === 'ttft.p50');
    expect(row?.test).toBe('repeats');
    expect(row?.significant).toBe(true);
    expect(compareLoad(runs[0] as LoadResult, slower[0] as LoadResult).find((r) => r.key === 'ttft.p50')?.test).toBe('blocks');
  });

  it('runs the bundled mock twice, prints mean, interval and CV, writes repeat into load.json and the second run to run-2/', async () => {
    const out = join(tmp, 'rep');
    // In this process (cli-in-process.ts); 2 s runs (were 3 s): the statistics need two runs, not long ones.
    const { code, stdout } = await runCli(['load', '--repeat', '2', '--duration', '2s', '--concurrency', '2', '--quiet', '--report', out]);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^repeated 2 runs of one configuration:$/m);
    expect(stdout).toMatch(/^ttft\.p50 +[\d.]+ms +[\d.-]+ms … [\d.]+ms +[\d.]+%/m);
    const json = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as { repeat: { runs: number; values: Record<string, number[]> } };
    expect(json.repeat.runs).toBe(2);
    expect(json.repeat.values['ttft.p50']).toHaveLength(2);
    expect(existsSync(join(out, 'run-2', 'load.json'))).toBe(true);
  }, 120_000);
});
