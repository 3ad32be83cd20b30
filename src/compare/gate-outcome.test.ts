import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { tinyConformanceReport } from '../../test-support/sample-reports.ts';
import { compareConformance } from './conformance-compare.ts';
import { evaluateGates, runContext, type GateResult } from './gate-outcome.ts';
import { parseGate } from './gates.ts';
import { compareLoad, samplesNeeded, type MetricRow } from './load-compare.ts';
import { calibrate } from './noise-calibration.ts';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';

const keysOf = (rows: readonly MetricRow[]): Set<string> => new Set([...rows.map((r) => r.key)]);
const run = (seed: number, durationS: number): ReturnType<typeof sampleLoadResult> => sampleLoadResult({ seed, durationS, rate: 17, stall: false, errors: false });
const gate = (expr: string, rows: MetricRow[], windowS = 5): GateResult => evaluateGates([parseGate(expr, keysOf(rows))], rows, null, { windowS })[0] as GateResult;

/** A row as compareLoad builds it, with a chosen interval of the relative change. */
function row(relative: number, low: number, high: number, over: Partial<MetricRow> = {}): MetricRow {
  const base = 100_000;
  return {
    key: 'ttft.p95',
    unit: 'us',
    base,
    new: base * (1 + relative),
    change: base * relative,
    relative,
    test: 'blocks',
    low: base * low,
    high: base * high,
    p: 0.01,
    relativeLow: low,
    relativeHigh: high,
    noise: null,
    untested: null,
    statisticallySignificant: low > 0 || high < 0,
    minEffect: 0.05,
    significant: low > 0 || high < 0,
    ...over,
  };
}

describe('gate outcomes: trip, hold, inconclusive', () => {
  it('LOAD-COMPARE: a +50% TTFT p95 over about 85 requests a side is inconclusive, not held, naming the 100 requests p95 needs and what would decide it', () => {
    const a = run(3, 5);
    const rows = compareLoad(a, withSlowerTtft(run(4, 5), 1.5));
    const n = a.metrics.ttft?.count ?? 0;
    expect(n).toBeGreaterThan(70);
    expect(n).toBeLessThan(100);
    const g = gate('ttft.p95>+10%', rows);
    expect(g.outcome).toBe('inconclusive');
    expect(g.tripped).toBe(false);
    expect(g.inconclusive?.code).toBe('samples');
    expect(g.inconclusive?.reason).toMatch(/^p95 needs ≥ 100 requests per side, this run had [0-9]{2}\b/);
    expect(g.inconclusive?.toDecide).toMatch(/^run ≥ [67] s at this rate \([0-9.]+\/s\), or use --repeat 5 on both sides$/);
    expect(rows.find((r) => r.key === 'ttft.p95')?.untested).toMatchObject({ kind: 'samples', need: 100 });
  });

  it('LOAD-COMPARE: with 600 requests a side the same +50% p95 trips: its interval lies wholly above +10%', () => {
    const rows = compareLoad(run(3, 35), withSlowerTtft(run(4, 35), 1.5));
    const g = gate('ttft.p95>+10%', rows, 35);
    expect(g.outcome).toBe('trip');
    expect(g.interval?.low).toBeGreaterThan(0.1);
    expect(g.message).toMatch(/^ttft\.p95 changed \+\d+\.\d%, 95% interval \+\d+\.\d% … \+\d+\.\d% \(blocks, within each run\), wholly beyond \+10\.0%: gate ttft\.p95>\+10% failed$/);
  });

  it('LOAD-COMPARE: two single runs of one configuration never hold a percentile gate without an estimate of run-to-run noise', () => {
    const rows = compareLoad(run(3, 35), run(4, 35));
    for (const expr of ['ttft.p50>+10%', 'ttft.p95>+10%', 'itl.p95>+10%', 'throughput.rps<-10%']) {
      const g = gate(expr, rows, 35);
      expect(g.outcome, expr).toBe('inconclusive');
      expect(['noise', 'straddles'], expr).toContain(g.inconclusive?.code);
      expect(g.inconclusive?.toDecide, expr).toContain('--noise-floors');
    }
  });

  it('LOAD-COMPARE: the interval decides: wholly beyond trips, wholly safe holds only with run-to-run noise in it, straddling is inconclusive', () => {
    expect(gate('ttft.p95>+10%', [row(0.3, 0.15, 0.45)]).outcome).toBe('trip');
    expect(gate('ttft.p95>+10%', [row(0.02, -0.04, 0.08)]).inconclusive?.code).toBe('noise');
    expect(gate('ttft.p95>+10%', [row(0.02, -0.04, 0.08, { noise: 'repeats' })]).outcome).toBe('hold');
    expect(gate('ttft.p95>+10%', [row(0.02, -0.04, 0.08, { noise: 'calibration' })]).outcome).toBe('hold');
    const s = gate('ttft.p95>+10%', [row(0.14, 0.02, 0.26)]);
    expect(s.inconclusive?.code).toBe('straddles');
    // (0.14 - 0.02) / (0.14 - 0.10) = 3, squared: a run 9 times as long narrows the interval enough.
    expect(s.inconclusive?.toDecide).toBe('runs of ≥ 45 s (about 9× as long), or --repeat 5 on both sides');
    // Drops: throughput.rps<-5% trips when the whole interval is below -5%.
    const rps = (rel: number, lo: number, hi: number, noise: MetricRow['noise']): MetricRow => row(rel, lo, hi, { key: 'throughput.rps', unit: 'per_s', test: 'timeslices', noise });
    expect(gate('throughput.rps<-5%', [rps(-0.2, -0.3, -0.1, null)]).outcome).toBe('trip');
    expect(gate('throughput.rps<-5%', [rps(0, -0.02, 0.02, 'repeats')]).outcome).toBe('hold');
    expect(gate('throughput.rps<-5%', [rps(0, -0.02, 0.02, null)]).outcome).toBe('inconclusive');
  });

  it('LOAD-COMPARE: a run flagged invalid (its client could not keep up) decides no timing gate either way, naming the run and its warning; ratio rows still decide', () => {
    const bad = run(3, 35);
    const starved = { ...bad, validity: { ...bad.validity, valid: false, warnings: ['client event-loop lag p99 254.7 ms exceeds 10 ms: the client was busy, timings include its own delay'] } };
    const ctx = runContext(starved, run(4, 35));
    expect(ctx.invalid).toEqual(['the base run is flagged invalid (client event-loop lag p99 254.7 ms exceeds 10 ms: the client was busy, timings include its own delay)']);
    const [trip, hold, err] = evaluateGates([parseGate('ttft.p95>+10%', new Set(['ttft.p95'])), parseGate('ttft.p95>+10%', new Set(['ttft.p95'])), parseGate('errors.rate>+0.5pp', new Set(['errors.rate']))], [row(0.3, 0.15, 0.45)], null, ctx);
    expect(trip?.inconclusive?.code).toBe('invalid-run');
    expect(trip?.inconclusive?.reason).toContain('the base run is flagged invalid (client event-loop lag p99 254.7 ms');
    expect(evaluateGates([parseGate('ttft.p95>+10%', new Set(['ttft.p95']))], [row(0.02, -0.04, 0.08, { noise: 'paired' })], null, ctx)[0]?.inconclusive?.code).toBe('invalid-run');
    expect(hold?.outcome).toBe('inconclusive');
    const ratio = row(0, 0, 0, { key: 'errors.rate', unit: 'ratio', test: 'proportions', base: 0, new: 0, change: 0, relative: null, low: 0, high: 0 });
    expect(evaluateGates([parseGate('errors.rate>+0.5pp', new Set(['errors.rate']))], [ratio], null, ctx)[0]?.outcome).toBe('hold');
    expect(err?.inconclusive?.code).toBe('missing');
  });

  it('LOAD-COMPARE: in an A/B run whose client lagged, a paired interval wholly beyond the threshold still trips (the delay hit both sides of each pair and only dilutes), one on the safe side is inconclusive, never held', () => {
    const bad = run(3, 35);
    const ctx = runContext({ ...bad, validity: { ...bad.validity, valid: false, warnings: ['block r-a3: client event-loop lag p99 80.0 ms exceeds 10 ms'] } }, run(4, 35));
    const g = parseGate('ttft.p95>+10%', new Set(['ttft.p95']));
    const [trip] = evaluateGates([g], [row(0.2, 0.12, 0.3, { noise: 'paired', test: 'paired' })], null, ctx);
    expect(trip?.outcome).toBe('trip');
    expect(trip?.message).toContain('the client lagged');
    const [safe] = evaluateGates([g], [row(0.02, -0.04, 0.08, { noise: 'paired', test: 'paired' })], null, ctx);
    expect(safe?.outcome).toBe('inconclusive');
    expect(safe?.inconclusive?.code).toBe('invalid-run');
    expect(safe?.inconclusive?.reason).toContain('may trip, not hold');
    expect(evaluateGates([g], [row(0.02, -0.04, 0.08, { noise: 'paired', test: 'paired' })], null, { windowS: 35 })[0]?.outcome).toBe('hold');
  });

  it('LOAD-COMPARE: a latency change within the client\'s timing resolution (its median event-loop delay) does not trip a % gate: a +20% ttfb of 1 ms by 0.2 ms is inconclusive, the same +20% of 100 ms trips', () => {
    const g = parseGate('ttfb.p50>+10%', new Set(['ttfb.p50']));
    const small = row(0.2, 0.12, 0.3, { key: 'ttfb.p50', base: 1000, new: 1200, change: 200, low: 120, high: 300, noise: 'paired', test: 'paired' });
    const [tiny] = evaluateGates([g], [small], null, { windowS: 60, resolutionUs: 1100 });
    expect(tiny?.outcome).toBe('inconclusive');
    expect(tiny?.inconclusive?.code).toBe('resolution');
    expect(tiny?.inconclusive?.reason).toContain("within the client's timing resolution (its median event-loop delay, 1.10 ms)");
    const [large] = evaluateGates([g], [row(0.2, 0.12, 0.3, { key: 'ttfb.p50', noise: 'paired', test: 'paired' })], null, { windowS: 60, resolutionUs: 1100 });
    expect(large?.outcome).toBe('trip');
    expect(evaluateGates([g], [small], null, { windowS: 60 })[0]?.outcome).toBe('trip');
    const bad = run(3, 35);
    expect(runContext(bad, run(4, 35)).resolutionUs).toBe(Math.max(bad.metrics.event_loop_lag?.percentiles.p50 ?? 0, run(4, 35).metrics.event_loop_lag?.percentiles.p50 ?? 0));
  });

  it('LOAD-COMPARE: an A/B percentile without enough usable pairs is inconclusive naming the pairs left out and the block size that would decide it', () => {
    const untested = { kind: 'pairs' as const, need: 6, usable: 4, of: 10, perBlock: 20, per: 'requests' as const, dropped: ['pair 2: A had 12 requests (p95 needs ≥ 20 per block)'] };
    const [g] = evaluateGates([parseGate('ttft.p95>+10%', new Set(['ttft.p95']))], [row(0.2, 0, 0, { test: null, low: null, high: null, relativeLow: null, relativeHigh: null, untested })], null, { windowS: 60 });
    expect(g?.inconclusive?.code).toBe('pairs');
    expect(g?.inconclusive?.reason).toBe('p95 of an A/B run needs ≥ 6 pairs of blocks with ≥ 20 requests in both blocks, this run had 4 of 10 (left out: pair 2: A had 12 requests (p95 needs ≥ 20 per block))');
    expect(g?.inconclusive?.toDecide).toContain('--ab-block-requests 20');
  });

  it('LOAD-COMPARE: a ratio row tested over the requests holds on its own test; a row not on both sides is inconclusive, not "not evaluated"', () => {
    const rows = compareLoad(run(3, 10), run(4, 10));
    const keys = keysOf(rows);
    const [err] = evaluateGates([parseGate('errors.rate>+0.5pp', keys)], rows, null);
    expect(err?.outcome).toBe('hold');
    const without = rows.filter((r) => r.key !== 'ttft.p95');
    const [gone] = evaluateGates([parseGate('ttft.p95>+10%', keys)], without, null);
    expect(gone?.inconclusive?.code).toBe('missing');
  });

  it('LOAD-COMPARE: a calibration of identical runs (iari report noise) lets a gate hold where the change is inside the measured spread, and still trip a +50% p95', () => {
    const cal = calibrate([5, 6, 7, 8, 9].map((s) => run(s, 35)));
    const same = compareLoad(run(3, 35), run(4, 35), 1, 0.05, undefined, cal);
    const p50 = same.find((r) => r.key === 'ttft.p50');
    expect(p50?.noise).toBe('calibration');
    expect(gate('ttft.p50>+10%', same, 35).outcome).toBe('hold');
    const slower = compareLoad(run(3, 35), withSlowerTtft(run(4, 35), 1.5), 1, 0.05, undefined, cal);
    expect(gate('ttft.p95>+10%', slower, 35).outcome).toBe('trip');
  });

  it('LOAD-COMPARE: samples needed per side are 5 beyond the percentile: p50 10, p95 100, p99 500', () => {
    expect([50, 90, 95, 99, 99.9].map(samplesNeeded)).toEqual([10, 50, 100, 500, 5000]);
  });
});

describe('conformance gates', () => {
  const a = tinyConformanceReport('iari_sk_gate_outcome_1');
  const order = (x: string, y: string): number => x.localeCompare(y);
  const keys = new Set<string>();
  // Only the verdicts matter to the comparison; the other fields of a known or skipped result are not read.
  const verdicts = (v: Record<string, string>): typeof a => ({ ...a, results: a.results.map((r) => (v[r.id] === undefined ? r : ({ ...r, verdict: v[r.id] } as unknown as typeof r))) });

  it('a requirement that went from fail to known is not fixed; known counts as failing on both sides', () => {
    const diff = compareConformance(a, verdicts({ 'AUTH-006': 'known' }), order);
    expect(diff.fixed).toEqual([]);
    expect(diff.changed).toEqual([{ id: 'AUTH-006', base: 'fail', new: 'known' }]);
    const back = compareConformance(verdicts({ 'AUTH-006': 'known' }), verdicts({ 'AUTH-006': 'fail' }), order);
    expect(back.newFail).toEqual([]);
    expect(compareConformance(verdicts({ 'AUTH-006': 'known' }), verdicts({ 'AUTH-006': 'pass' }), order).fixed).toEqual(['AUTH-006']);
  });

  it('conformance.new_fail>0 is inconclusive when a requirement that passed was not tested in the new run, naming it; it trips on a new failure and holds otherwise', () => {
    const skipped = compareConformance(a, verdicts({ 'AUTH-001': 'skipped' }), order);
    const [g] = evaluateGates([parseGate('conformance.new_fail>0', keys)], null, skipped);
    expect(g?.outcome).toBe('inconclusive');
    expect(g?.inconclusive?.code).toBe('untested-requirements');
    expect(g?.inconclusive?.toDecide).toBe('run it on both sides (iari test --only AUTH-001)');
    expect(g?.interval).toEqual({ low: 0, high: 1 });
    const failed = compareConformance(a, verdicts({ 'AUTH-001': 'fail', 'CHAT-012': 'skipped' }), order);
    expect(evaluateGates([parseGate('conformance.new_fail>0', keys)], null, failed)[0]?.outcome).toBe('trip');
    expect(evaluateGates([parseGate('conformance.new_fail>0', keys)], null, compareConformance(a, a, order))[0]?.outcome).toBe('hold');
    expect(evaluateGates([parseGate('conformance.new_fail>0', keys)], null, null)[0]?.inconclusive?.code).toBe('no-conformance');
  });
});
