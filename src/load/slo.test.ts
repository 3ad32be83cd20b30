import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.ts';
import { compare, parseSlo, requestIsGood } from './slo.ts';

describe('SLO expressions', () => {
  it('parses durations into microseconds and ratios into fractions', () => {
    expect(parseSlo('ttft.p95<800ms')).toMatchObject({ metric: 'ttft', stat: 'p95', op: '<', threshold: 800_000, unit: 'us', perRequest: true });
    expect(parseSlo('itl.p99.9<=1.5s').threshold).toBe(1_500_000);
    expect(parseSlo('e2e.mean<250us').threshold).toBe(250);
    expect(parseSlo('errors.rate<1%').threshold).toBeCloseTo(0.01);
    expect(parseSlo('goodput.rps>=5')).toMatchObject({ op: '>=', threshold: 5, perRequest: false });
    expect(parseSlo('schedule_lag.p99<5ms').perRequest).toBe(false);
  });

  it('rejects unknown metrics, unknown statistics, missing or wrong units with a usage error (exit 2)', () => {
    for (const bad of ['latency.p95<1ms', 'ttft.p97<1ms', 'ttft.p95<800', 'errors.rate<5ms', 'errors.rate<1.5', 'ttft.p95', 'ttft.p95<<1ms', 'throughput.rps<10%']) {
      let caught: unknown;
      try {
        parseSlo(bad);
      } catch (error) {
        caught = error;
      }
      expect(isHarnessError(caught) && caught.exitCode === 2, bad).toBe(true);
    }
  });

  it('a request is good only when it succeeded and meets every per-request SLO on its own value', () => {
    const slos = [parseSlo('ttft.p95<100ms'), parseSlo('errors.rate<0.1')];
    const v = { ttfb: 1000, ttft: 50_000, itl: null, tpot: 2000, e2e: 90_000 };
    expect(requestIsGood(slos, true, v)).toBe(true);
    expect(requestIsGood(slos, true, { ...v, ttft: 150_000 })).toBe(false);
    expect(requestIsGood(slos, false, v)).toBe(false);
    expect(compare(1, '<=', 1)).toBe(true);
    expect(compare(1, '<', 1)).toBe(false);
  });
});
