import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { scheduleWindows, takeArrivals } from '../../src/load/executors/arrivals.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { fittedRate, ksExponential } from '../../test-support/load-stats.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

const gaps = (t: readonly number[]): number[] => t.slice(1).map((x, i) => x - (t[i] ?? 0));

describe('arrival schedules', () => {
  it('a Poisson schedule is reproducible from its seed and differs for another seed', () => {
    const a = takeArrivals({ rate: 20, arrival: 'poisson', seed: 42 }, 50);
    expect(takeArrivals({ rate: 20, arrival: 'poisson', seed: 42 }, 50)).toEqual(a);
    expect(takeArrivals({ rate: 20, arrival: 'poisson', seed: 43 }, 50)).not.toEqual(a);
  });

  it('Poisson inter-arrivals pass a Kolmogorov-Smirnov test against the exponential, and a constant grid does not', () => {
    const poisson = ksExponential(gaps(takeArrivals({ rate: 50, arrival: 'poisson', seed: 7 }, 5000)), 50);
    expect(poisson.pValue).toBeGreaterThan(0.05);
    const constant = ksExponential(gaps(takeArrivals({ rate: 50, arrival: 'constant', seed: 7 }, 5000)), 50);
    expect(constant.pValue).toBeLessThan(1e-6);
  });

  it('constant shards interleave into exactly the unsharded schedule', () => {
    const whole = takeArrivals({ rate: 40, arrival: 'constant', seed: 1 }, 400, 5);
    const shards = [0, 1, 2, 3].flatMap((index) => takeArrivals({ rate: 40, arrival: 'constant', seed: 1, shard: { index, count: 4 } }, 400, 5));
    expect(shards.sort((x, y) => x - y)).toEqual(whole);
  });

  it('a Poisson schedule conditioned on its windows holds exactly round(rate x length) arrivals in each, in order, with exponential gaps', () => {
    const t = takeArrivals({ rate: 100, arrival: 'poisson', seed: 3, windows: [1.5, 50] }, 1_000_000, 51.5);
    expect(t.filter((x) => x < 1.5)).toHaveLength(150);
    expect(t.filter((x) => x >= 1.5)).toHaveLength(5000);
    expect(t.every((x, i) => i === 0 || x >= (t[i - 1] ?? 0))).toBe(true);
    expect(ksExponential(gaps(t.filter((x) => x >= 1.5)), 100).pValue).toBeGreaterThan(0.05);
    // Another seed gives another schedule with the same counts.
    const u = takeArrivals({ rate: 100, arrival: 'poisson', seed: 4, windows: [1.5, 50] }, 1_000_000, 51.5);
    expect(u).toHaveLength(5150);
    expect(u).not.toEqual(t);
  });

  it('after its windows a conditioned Poisson schedule goes on unconditioned at the same rate', () => {
    const t = takeArrivals({ rate: 100, arrival: 'poisson', seed: 3, windows: [0, 2] }, 1_000_000, 102);
    expect(t.filter((x) => x < 2)).toHaveLength(200);
    const after = t.filter((x) => x >= 2);
    expect(Math.abs(after.length / 100 - 100) / 100).toBeLessThan(0.05);
    expect(ksExponential(gaps(after), 100).pValue).toBeGreaterThan(0.01);
  });

  it('the conditioned windows are the warmup and the duration, or the time the request budget takes at the rate', () => {
    expect(scheduleWindows(5, 30, null, 20)).toEqual([5, 30]);
    expect(scheduleWindows(0, null, 300, 100)).toEqual([0, 3]);
    expect(scheduleWindows(0, 10, 300, 100)).toEqual([0, 3]);
    expect(scheduleWindows(0, null, null, 100)).toEqual([]);
  });

  it('conditioned Poisson shards together hold exactly the full count of the measured window', () => {
    const shards = [0, 1, 2, 3].map((index) => takeArrivals({ rate: 100, arrival: 'poisson', seed: 9, shard: { index, count: 4 }, windows: [0, 20] }, 100_000, 20));
    expect(shards.map((s) => s.length)).toEqual([500, 500, 500, 500]);
    expect(shards[0]).not.toEqual(shards[1]);
  });

  it('Poisson shards are independent processes whose superposition has the full rate', () => {
    const merged = [0, 1, 2, 3].flatMap((index) => takeArrivals({ rate: 100, arrival: 'poisson', seed: 9, shard: { index, count: 4 } }, 100_000, 50)).sort((x, y) => x - y);
    expect(Math.abs(merged.length / 50 - 100) / 100).toBeLessThan(0.05);
    expect(ksExponential(gaps(merged), 100).pValue).toBeGreaterThan(0.01);
  });
});

describe('arrival accuracy on the wire (open loop against the mock)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 2, completionTokens: 3, tokensPerChunk: 1 });
  });
  afterAll(() => mock.close());

  it('a constant 100/s run achieves the target rate within 1%, fitted to the actual send times', async () => {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 100, arrival: 'constant' }, { durationS: 2, onRecord: (r) => records.push(r) }));
    // Never dropped, never capped: every scheduled arrival was sent.
    expect(result.counts.started).toBe(200);
    expect(Math.abs((result.throughput.achievedArrivalRate ?? 0) - 100) / 100).toBeLessThan(0.01);
    const achieved = fittedRate(records.map((r) => r.sentUs / 1e6));
    if (result.validity.valid) {
      expect(Math.abs(achieved - 100) / 100).toBeLessThan(0.01);
    } else {
      // A starved client (shared CPU) sends late; the run must then say so instead of passing as honest.
      expect(result.validity.warnings.join(' ')).toMatch(/event-loop lag|schedule lag/);
    }
  });

  it('a Poisson run sends every scheduled arrival, and the actual send gaps pass the KS test', async () => {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 100, arrival: 'poisson' }, { durationS: 2, seed: 5, onRecord: (r) => records.push(r) }));
    const scheduled = takeArrivals({ rate: 100, arrival: 'poisson', seed: 5, windows: scheduleWindows(0, 2, null, 100) }, 100_000, 2);
    // Conditioned on the window (D-LOAD-05): exactly rate x duration arrivals, all of them sent.
    expect(scheduled).toHaveLength(200);
    expect(result.counts.started).toBe(200);
    const intendedS = records.map((r) => r.intendedUs / 1e6).sort((a, b) => a - b);
    expect(intendedS.every((t, i) => Math.abs(t - (scheduled[i] ?? Infinity)) < 2e-6)).toBe(true);
    const intended = records.map((r) => r.intendedUs / 1e6).sort((a, b) => a - b);
    expect(ksExponential(gaps(intended), 100).pValue).toBeGreaterThan(0.01);
    const sent = records.map((r) => r.sentUs / 1e6).sort((a, b) => a - b);
    if (result.validity.valid) {
      expect(ksExponential(gaps(sent), 100).pValue).toBeGreaterThan(0.01);
    } else {
      // A starved client (shared CPU) sends late; the run must then say so instead of passing as honest.
      expect(result.validity.warnings.join(' ')).toMatch(/event-loop lag|schedule lag/);
    }
  });
});
