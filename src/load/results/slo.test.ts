import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
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

describe('tool-call SLOs', () => {
  it('LOAD-TOOLS: tool_calls.invalid_rate is a ratio (or %), judged on the calls; without calls it has no data and is not met', async () => {
    const { parseSlo, evaluateSlos } = await import('./slo.ts');
    expect(parseSlo('tool_calls.invalid_rate<1%')).toMatchObject({ metric: 'tool_calls', stat: 'invalid_rate', threshold: 0.01, unit: 'ratio' });
    expect(() => parseSlo('tool_calls.invalid_rate<5ms')).toThrow(/no time unit/);
    expect(() => parseSlo('tool_calls.bad_rate<0.1')).toThrow(/unknown statistic/);
    const base = { metrics: {}, errors: { total: 0, rate: 0, byClass: {}, byStatus: {}, byFinding: {}, examples: [] }, throughput: {}, goodput: {} } as never;
    const report = (calls: number, invalid: number) => ({ tools: 'builtin', requestsWithTools: 10, requestsCalling: 10, callRate: 1, calls, invalidCalls: invalid, invalidRate: calls === 0 ? 0 : invalid / calls, invalidByKind: { not_json: invalid, unknown_function: 0, schema_mismatch: 0 }, invalidRateByKind: { not_json: calls === 0 ? 0 : invalid / calls, unknown_function: 0, schema_mismatch: 0 }, requestsInvalid: invalid, firstToolCall: null });
    const slo = [parseSlo('tool_calls.invalid_rate<0.01'), parseSlo('tool_calls.not_json_rate<0.01')];
    expect(evaluateSlos(slo, { ...(base as object), toolCalls: report(200, 1) } as never, 10).map((s) => s.passed)).toEqual([true, true]);
    expect(evaluateSlos(slo, { ...(base as object), toolCalls: report(200, 4) } as never, 10).map((s) => s.passed)).toEqual([false, false]);
    const none = evaluateSlos(slo, base, 10)[0]!;
    expect(none.passed).toBe(false);
    expect(none.noData).toMatch(/no tool call/);
  });
});

describe('TTFO SLOs', () => {
  const base = { metrics: {}, errors: { total: 0, rate: 0, byClass: {}, byStatus: {}, byFinding: {}, examples: [] }, throughput: {}, goodput: {} };
  const ttfo = (p95Us: number) => ({ count: 10, mean: p95Us / 2, max: p95Us, percentiles: { p50: p95Us / 2, p90: p95Us, p95: p95Us, p99: p95Us, 'p99.9': p95Us } });

  it('LOAD-REASONING: ttfo.p95<1s is an SLO on the reasoning report\'s TTFO, judged on its value', async () => {
    const { evaluateSlos } = await import('./slo.ts');
    expect(parseSlo('ttfo.p95<1s')).toMatchObject({ metric: 'ttfo', stat: 'p95', threshold: 1_000_000, unit: 'us' });
    const slo = [parseSlo('ttfo.p95<1s')];
    const at = (us: number) => evaluateSlos(slo, { ...base, reasoning: { ttfo: ttfo(us) } } as never, 10)[0]!;
    expect(at(800_000)).toMatchObject({ passed: true, observed: 800_000 });
    expect(at(1_200_000)).toMatchObject({ passed: false, observed: 1_200_000 });
  });

  it('LOAD-REASONING: ttfo with no request that streamed reasoning has no data, is not met and says why', async () => {
    const { evaluateSlos } = await import('./slo.ts');
    const none = evaluateSlos([parseSlo('ttfo.p95<1s')], base as never, 10)[0]!;
    expect(none.passed).toBe(false);
    expect(none.noData).toMatch(/streamed reasoning/);
  });
});
