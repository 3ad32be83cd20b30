import { describe, expect, it } from 'vitest';
import { driftOf, offsetOf, probeOffset, timeSourceFromEnv, type ProbeSample } from './clock.ts';
import { skewOf, startInterval } from './coordination-report.ts';

/** A probe over a path with the given one-way delays, against a coordinator whose clock is `truth` ms ahead. */
const sample = (localT1: number, up: number, down: number, truth: number): ProbeSample => ({ t1: localT1, coordinatorMs: localT1 + up + truth, t4: localT1 + up + down });

describe('clock offset probes', () => {
  it('the min-RTT probe gives midpoint ± half its round trip, and the interval holds the truth whatever the asymmetry', () => {
    const truth = 200;
    const samples = [sample(0, 30, 2, truth), sample(100, 1, 9, truth), sample(200, 3, 1, truth), sample(300, 50, 50, truth)];
    const p = offsetOf(samples);
    expect(p.rttMs).toBe(4);
    expect(p.offsetMs).toEqual({ estimate: 201, low: 199, high: 203 });
    for (const [up, down] of [[0, 10], [10, 0], [5, 5], [0.1, 7]] as const) {
      const one = offsetOf([sample(0, up, down, -200)]);
      expect(one.offsetMs.low).toBeLessThanOrEqual(-200);
      expect(one.offsetMs.high).toBeGreaterThanOrEqual(-200);
    }
  });

  it('drift is the interval of rates both offset intervals allow, in ppm', () => {
    const start = { ...offsetOf([sample(0, 1, 1, 100)]), atMs: 0 };
    const end = { ...offsetOf([sample(10_000, 1, 1, 101)]), atMs: 10_000 };
    const d = driftOf(start, end);
    expect(d?.estimate).toBe(100);
    expect(d!.low).toBeLessThan(100);
    expect(d!.high).toBeGreaterThan(100);
    expect(driftOf(start, { ...end, atMs: 500 })).toBeNull();
  });

  it('probeOffset sends the probes it is asked for', async () => {
    let n = 0;
    const p = await probeOffset(async () => sample(n++ * 10, 1, 1, 5), 8);
    expect(n).toBe(8);
    expect(p.probes).toBe(8);
    // Past the minimum only while the best round trip is too wide, and never past the maximum.
    let m = 0;
    const wide = await probeOffset(async () => sample(m++ * 10, 5, 5, 5), 8, { max: 20, goodRttMs: 1 });
    expect(wide.probes).toBe(20);
    let k = 0;
    const narrowed = await probeOffset(async () => (k++ < 12 ? sample(k * 10, 5, 5, 5) : sample(k * 10, 0.2, 0.2, 5)), 8, { max: 20, goodRttMs: 1 });
    expect(narrowed.probes).toBe(13);
  });

  it('IARI_TEST_CLOCK_OFFSET_MS shifts the time source (tests only), and nothing else does', () => {
    const shifted = timeSourceFromEnv({ IARI_TEST_CLOCK_OFFSET_MS: '-200' });
    const plain = timeSourceFromEnv({});
    expect(shifted.injectedMs).toBe(-200);
    expect(plain.injectedMs).toBe(0);
    expect(Math.abs(shifted.time() - plain.time() + 200)).toBeLessThan(5);
    expect(timeSourceFromEnv({ IARI_TEST_CLOCK_OFFSET_MS: 'x' }).injectedMs).toBe(0);
  });
});

describe('start skew', () => {
  it('a shard started at t0 + (true offset - estimate): the interval from its offset interval, and the spread of the latest and earliest', () => {
    const a = startInterval({ estimate: 10, low: 9, high: 11 }, 0)!;
    const b = startInterval({ estimate: -200, low: -202, high: -198 }, 3)!;
    expect(a).toEqual({ estimate: 0, low: -1, high: 1 });
    expect(b).toEqual({ estimate: 3, low: 1, high: 5 });
    expect(skewOf([a, b])).toEqual({ estimate: 3, low: 0, high: 6 });
    expect(skewOf([])).toBeNull();
  });
});

describe('the summary line', () => {
  it('names a shard\'s offsets and lateness, and the run\'s shards, skew, window and the shards without a result', async () => {
    const { coordinationLine } = await import('./coordination-report.ts');
    expect(coordinationLine(undefined)).toBeNull();
    expect(coordinationLine({ role: 'shard', coordinator: 'http://c:7070', t0Ms: 1, lateMs: 0, offsetStartMs: { estimate: -200, low: -200.5, high: -199.5 }, offsetEndMs: null, rttMs: 1, stop: null })).toBe('coordinated shard (http://c:7070): clock offset -200 ms [-200.5, -199.5] at the start, - at the end; started at t0');
    const line = coordinationLine({ role: 'coordinator', t0Ms: 1, shards: [{ shard: 0, host: 'a', offsetStartMs: null, offsetEndMs: null, driftPpm: null, startMs: null }, { shard: 1, host: 'b', offsetStartMs: null, offsetEndMs: null, driftPpm: null, startMs: null, missing: 'died and sent no result within 10 s' }], startSkewMs: { estimate: 0, low: 0, high: 0.96 }, window: { startMs: 0, endMs: 3000, seconds: 3 }, stop: null });
    expect(line).toBe('coordinated run: 1/2 shards, start skew 0 ms [0, 0.96], rates over the 3 s in which all ran; without a result: shard 1 (died and sent no result within 10 s)');
  });
});
