import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../results/load-result.ts';
import type { LoadConfig } from '../run-load.ts';
import { capacityBound, converged, nextLevel, runCapacitySearch } from './capacity-search.ts';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { planFromFlags } from '../../cli/load-flags.ts';
import { isHarnessError } from '../../errors.ts';

const sample = sampleLoadResult({ seed: 3, stall: false, errors: false });

/** A server whose TTFT p95 is 40% of the SLO up to `capacity`, then jumps past 1 and grows 5x the overshoot. */
function fakeServer(capacity: number, noise: (level: number, call: number) => number = () => 0) {
  const calls: number[] = [];
  const run = async (base: LoadConfig, level: number): Promise<{ result: LoadResult; records: [] }> => {
    calls.push(level);
    const ratio = (level <= capacity ? 0.4 + (0.5 * level) / capacity : 1.05 + ((level - capacity) / capacity) * 5) + noise(level, calls.length);
    const slo = { expr: 'ttft.p95<800ms', metric: 'ttft', stat: 'p95', op: '<' as const, threshold: 800_000, observed: ratio * 800_000, unit: 'us' as const, passed: ratio < 1, perRequest: true };
    const achieved = base.mode.kind === 'open' ? level : 10;
    return { result: { ...sample, slos: [slo], slosPassed: slo.passed, throughput: { ...sample.throughput, okRps: achieved } }, records: [] };
  };
  return { calls, run };
}

const config = (mode: LoadConfig['mode']): LoadConfig => ({ runId: 'cap', baseUrl: 'http://127.0.0.1:1/v1', token: 't', model: 'm', target: 'bundled-mock', mode, durationS: 1, requests: null, warmupS: 0, maxTokens: 8, stream: true, prompts: [], promptsSource: 'builtin', seed: 1, timeoutMs: 1000, slos: [], sloExprs: [], shard: null });
const open = config({ kind: 'open', rate: 4, arrival: 'constant' });
const closed = config({ kind: 'closed', concurrency: 1, engine: 'autocannon' });

describe('iari load --find-capacity', () => {
  it('LOAD-CAPACITY: brackets the rate by doubling, then narrows to within the 5% tolerance around the true capacity', async () => {
    let clearBreaks = 0;
    for (const truth of [13.9, 37, 5.2]) {
      const s = fakeServer(truth);
      const { result } = await runCapacitySearch(open, { levelBoundS: 1, run: s.run });
      const c = result.sweep?.capacity;
      expect(c?.converged).toBe(true);
      expect(c?.capacity).toBeLessThanOrEqual(truth);
      expect((truth - (c?.capacity ?? 0)) / truth).toBeLessThanOrEqual(0.05);
      expect(c?.breaking).toBeGreaterThan(truth);
      expect(c?.relativeWidth).toBeLessThanOrEqual(0.05);
      expect(s.calls.slice(0, 2)).toEqual([4, 8]);
      // A break by less than twice the threshold ran twice (the second run confirmed it: a majority of 3); a clear one decided at once.
      for (const l of c?.levels ?? []) if (!l.met) expect(l.runs, `level ${l.level}, ratio ${l.sloRatio}`).toBe((l.sloRatio ?? 0) < 2 ? 2 : 1);
      clearBreaks += c?.levels.filter((l) => !l.met && l.runs === 1).length ?? 0;
      expect(result.sweep?.best).toBe(c?.capacity);
      expect(result.slosPassed).toBe(true);
      expect(result.sweep?.steps.map((x) => x.phase)[0]).toBe('bracket');
    }
    expect(clearBreaks).toBeGreaterThan(0);
  });

  it('LOAD-CAPACITY: a closed loop searches integer concurrency and stops at adjacent levels', async () => {
    const s = fakeServer(6);
    const { result } = await runCapacitySearch(closed, { levelBoundS: 1, run: s.run });
    expect(result.sweep?.kind).toBe('concurrency');
    expect(result.sweep?.capacity).toMatchObject({ capacity: 6, breaking: 7, converged: true });
    expect(s.calls.every((l) => Number.isInteger(l))).toBe(true);
  });

  it('LOAD-CAPACITY: halves when the first level breaks, and says none met when even the lowest breaks', async () => {
    const s = fakeServer(1.5);
    const { result } = await runCapacitySearch(open, { levelBoundS: 1, run: s.run });
    // A break at 9x the threshold is no client pause: the level halves at once (issue 43).
    expect(s.calls.slice(0, 2)).toEqual([4, 2]);
    expect(result.sweep?.capacity?.capacity).toBeLessThanOrEqual(1.5);
    const none = fakeServer(0);
    const { result: r0 } = await runCapacitySearch(closed, { levelBoundS: 1, run: none.run });
    expect(r0.sweep?.stopReason).toBe('none_met');
    expect(r0.sweep?.capacity?.capacity).toBeNull();
    expect(r0.slosPassed).toBe(false);
  });

  it('LOAD-CAPACITY: runs a level near the boundary again and takes the majority of its runs', async () => {
    // Noise flips the verdict of the first run at each level just below capacity; the repeats outvote it.
    const seen = new Map<number, number>();
    const s = fakeServer(10, (level) => {
      const n = (seen.get(level) ?? 0) + 1;
      seen.set(level, n);
      return n === 1 && level > 9 && level <= 10 ? 0.15 : 0;
    });
    const { result } = await runCapacitySearch(open, { levelBoundS: 1, run: s.run, tolerance: 0.02 });
    const levels = result.sweep?.capacity?.levels ?? [];
    const repeated = levels.filter((l) => l.runs > 1);
    expect(repeated.length).toBeGreaterThan(0);
    expect(result.sweep?.steps.some((x) => x.phase === 'repeat')).toBe(true);
    expect(result.sweep?.capacity?.capacity).toBeGreaterThan(9.7);
    expect(result.sweep?.capacity?.capacity).toBeLessThanOrEqual(10);
  });

  it('LOAD-CAPACITY: no run starts that would end past the budget, and the search says it stopped on the budget', async () => {
    let t = 0;
    const s = fakeServer(1000);
    const run: typeof s.run = async (b, l) => {
      t += 10;
      return s.run(b, l);
    };
    const { result } = await runCapacitySearch(open, { levelBoundS: 10, budgetS: 45, run, now: () => t });
    expect(s.calls.length).toBe(4);
    expect(result.sweep?.stopReason).toBe('budget');
    expect(result.sweep?.capacity?.converged).toBe(false);
    expect(capacityBound(45, 10)).toMatchObject({ maxRuns: 4 });
    // Runs much shorter than their bound: still no more runs than the line before any traffic promised (issue 43: "at most 9 runs", then 13 ran).
    let t2 = 0;
    const quick = fakeServer(1000);
    const { result: r2 } = await runCapacitySearch(open, { levelBoundS: 10, budgetS: 45, run: async (b, l) => ((t2 += 1), quick.run(b, l)), now: () => t2 });
    expect(quick.calls.length).toBe(4);
    expect(r2.sweep?.stopReason).toBe('budget');
    expect(capacityBound(600, 16.2).line).toBe('at most 37 runs of at most 17 s each; ends within 600 s (--budget)');
  });

  it('LOAD-CAPACITY: interpolates on the SLO ratio, kept inside the middle half of the interval', () => {
    expect(nextLevel(8, 16, 0.5, 2, false)).toBeCloseTo(12, 5);
    expect(nextLevel(8, 16, 0.99, 8, false)).toBe(10);
    expect(nextLevel(8, 16, null, 3, false)).toBe(12);
    expect(nextLevel(4, 6, 0.5, 3, true)).toBe(5);
    expect(converged(100, 105, 0.05, false)).toBe(true);
    expect(converged(100, 106, 0.05, false)).toBe(false);
    expect(converged(6, 7, 0.05, true)).toBe(true);
  });

  it('LOAD-CAPACITY: --tolerance and --budget parse before any traffic; a search without an SLO or mixed with --sweep is a usage error (exit 2)', () => {
    expect(planFromFlags({ 'find-capacity': true, slo: ['ttft.p95<1s'], tolerance: '3%', budget: '2m' }).findCapacity).toEqual({ tolerance: 0.03, budgetS: 120 });
    expect(planFromFlags({ 'find-capacity': true, slo: ['ttft.p95<1s'] }).findCapacity).toEqual({ tolerance: 0.05, budgetS: 600 });
    expect(planFromFlags({}).findCapacity).toBeNull();
    const bad = [{ 'find-capacity': true }, { 'find-capacity': true, slo: ['ttft.p95<1s'], sweep: true, duration: '1s' }, { tolerance: '5%' }, { 'find-capacity': true, slo: ['ttft.p95<1s'], tolerance: '80%' }];
    for (const flags of bad) {
      let code = 0;
      try {
        planFromFlags(flags);
      } catch (error) {
        code = isHarnessError(error) ? error.exitCode : -1;
      }
      expect(code, JSON.stringify(flags)).toBe(2);
    }
  });
});
