import { describe, expect, it } from 'vitest';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { compareLoad } from './load-compare.ts';
import { parseGate } from './gates.ts';
import { evaluateGates } from './gate-outcome.ts';
import { compareConformance } from './conformance-compare.ts';
import { tinyConformanceReport } from '../../test-support/sample-reports.ts';
import { isHarnessError } from '../errors.ts';

const slowerTtft = withSlowerTtft;

const base = sampleLoadResult({ seed: 3, stall: false, errors: false });
const keys = new Set(compareLoad(base, base).map((r) => r.key));

describe('iari report compare, load', () => {
  it('LOAD-COMPARE: finds TTFT 20% higher significant at p50 by the named block bootstrap, and nothing else changed', () => {
    const rows = compareLoad(base, slowerTtft(base, 1.2));
    const p50 = rows.find((r) => r.key === 'ttft.p50');
    expect(p50?.test).toBe('blocks');
    expect(p50?.significant).toBe(true);
    expect(p50?.relative).toBeGreaterThan(0.15);
    expect(p50?.low).toBeGreaterThan(0);
    expect(rows.filter((r) => r.significant).map((r) => r.key).every((k) => k.startsWith('ttft.'))).toBe(true);
  });

  it('LOAD-COMPARE: no constant noise floor decides a row: a 20% p95 regression whose within-run interval excludes 0 is significant, and its row says the interval has no run-to-run noise in it', () => {
    const p95 = compareLoad(base, slowerTtft(base, 1.2)).find((r) => r.key === 'ttft.p95');
    expect(p95?.statisticallySignificant).toBe(true);
    expect(p95?.minEffect).toBe(0.05);
    expect(p95?.significant).toBe(true);
    expect(p95?.noise).toBeNull();
  });

  it('two samples of one configuration (different seeds) show no significant TTFT p50/p95 change', () => {
    const rows = compareLoad(sampleLoadResult({ seed: 3, stall: false, errors: false }), sampleLoadResult({ seed: 4, stall: false, errors: false }));
    expect(rows.filter((r) => r.key === 'ttft.p50' || r.key === 'ttft.p95').map((r) => r.significant)).toEqual([false, false]);
  });

  it('leaves a percentile with fewer than 5 samples beyond it untested instead of calling the maximum significant, and says why', () => {
    const rows = compareLoad(base, slowerTtft(base, 1.2));
    const n = base.metrics.ttft?.count ?? 0;
    const p999 = rows.find((r) => r.key === 'ttft.p99.9');
    expect(n).toBeLessThan(5000);
    expect(p999?.test).toBeNull();
    expect(p999?.untested).toEqual({ kind: 'samples', need: 5000, base: n, new: n, per: 'requests', ratePerS: expect.any(Number) });
    expect(rows.find((r) => r.key === 'ttft.p95')?.test).toBe('blocks');
  });

  it('tests the error rate by two proportions and throughput over the timeslices', () => {
    const withErrors = sampleLoadResult({ seed: 3, stall: false, errors: true });
    const rows = compareLoad(base, withErrors);
    expect(rows.find((r) => r.key === 'errors.rate')).toMatchObject({ test: 'proportions', base: 0 });
    expect(rows.find((r) => r.key === 'throughput.rps')?.test).toBe('timeslices');
  });
});

describe('--fail-on gates', () => {
  it('ttft.p50>+10% fails on a 20% regression whose interval lies above +10%, with a message naming the metric, the change and its interval', () => {
    const rows = compareLoad(base, slowerTtft(base, 1.2));
    const [g] = evaluateGates([parseGate('ttft.p50>+10%', keys)], rows, null);
    expect(g?.tripped).toBe(true);
    expect(g?.outcome).toBe('trip');
    expect(g?.scope).toBe('load');
    expect(g?.message).toMatch(/^ttft\.p50 changed \+(1[5-9]|2[0-5])\.\d%, 95% interval \+1\d\.\d% … \+2\d\.\d% \(blocks, within each run\), wholly beyond \+10\.0%: gate ttft\.p50>\+10% failed$/);
    // +30% is above the whole interval, but a within-run interval cannot hold a gate: inconclusive.
    expect(evaluateGates([parseGate('ttft.p50>+30%', keys)], rows, null)[0]?.outcome).toBe('inconclusive');
  });

  it('conformance.new_fail>0 fails naming the new failure; a malformed or unknown gate is a usage error (exit 2)', () => {
    const a = tinyConformanceReport('x-secret-1234');
    const b = { ...a, results: a.results.map((r) => (r.id === 'AUTH-001' ? { ...r, verdict: 'fail' as const, failures: [{ message: 'now broken' }] } : r.id === 'AUTH-006' ? { ...r, verdict: 'pass' as const } : r)) };
    const diff = compareConformance(a, b as typeof a, (x, y) => x.localeCompare(y));
    expect(diff.newFail).toEqual(['AUTH-001']);
    expect(diff.fixed).toEqual(['AUTH-006']);
    expect(diff.changed).toEqual([
      { id: 'AUTH-001', base: 'pass', new: 'fail' },
      { id: 'AUTH-006', base: 'fail', new: 'pass' },
    ]);
    const [g] = evaluateGates([parseGate('conformance.new_fail>0', keys)], null, diff);
    expect(g).toMatchObject({ outcome: 'trip', tripped: true, scope: 'conformance', message: 'conformance.new_fail = 1 (AUTH-001), gate conformance.new_fail>0 failed' });
    for (const bad of ['ttft.p95>10', 'ttft.p96>+10%', 'ttft.p95>>1%', 'throughput.rps>+5ms', 'ttft.p95>+1pp']) {
      let code = 0;
      try {
        parseGate(bad, keys);
      } catch (error) {
        code = isHarnessError(error) ? error.exitCode : -1;
      }
      expect(code, bad).toBe(2);
    }
  });
});

describe('goodput per second (issue 43)', () => {
  it('LOAD-COMPARE: two runs equally good at different speeds: goodput.rps carries no borrowed test (it read "p 1.000" beside throughput p < 0.001), says which rows are tested, and a gate on it is inconclusive naming them', () => {
    const fast = { ...base, goodput: { ...base.goodput, goodputRps: base.goodput.goodputRps * 2 } };
    const rows = compareLoad(base, fast);
    const g = rows.find((r) => r.key === 'goodput.rps');
    expect(g).toMatchObject({ test: null, p: null, significant: false, untested: { kind: 'rate-of-good' } });
    expect(g?.relative).toBeCloseTo(1, 6);
    const [result] = evaluateGates([parseGate('goodput.rps<-10%', keys)], rows, null, { windowS: base.throughput.windowS });
    expect(result?.inconclusive).toMatchObject({ code: 'rate-of-good', toDecide: expect.stringMatching(/throughput\.ok_rps or goodput\.fraction/) });
  });
});
