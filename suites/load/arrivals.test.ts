import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { takeArrivals } from '../../src/load/arrivals.ts';
import type { RequestRecord } from '../../src/load/load-result.ts';
import { runLoad } from '../../src/load/run-load.ts';
import { fittedRate, ksExponential } from '../../src/load/stats.ts';
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
    const { result } = await runLoad(loadConfig(mock, { kind: 'open', rate: 100, arrival: 'constant' }, { durationS: 2, onRecord: (r) => records.push(r) }));
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
    const { result } = await runLoad(loadConfig(mock, { kind: 'open', rate: 100, arrival: 'poisson' }, { durationS: 2, seed: 5, onRecord: (r) => records.push(r) }));
    const scheduled = takeArrivals({ rate: 100, arrival: 'poisson', seed: 5 }, 100_000, 2);
    expect(result.counts.started).toBe(scheduled.length);
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
