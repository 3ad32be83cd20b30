/**
 * A realistic sample `load.json` (LoadResult) for tests and previews: per-request timings drawn
 * from a seeded model (TTFT around 200 ms, 20 ms between tokens, a few slow outliers and
 * errors), recorded into real HDR histograms, with per-second timeslices and optionally a sweep.
 */
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import {
  errorClasses,
  LOAD_RESULT_SCHEMA,
  percentileKeys,
  percentileValues,
  type ErrorClass,
  type HistogramSummary,
  type LoadResult,
  type Percentiles,
  type SweepStep,
  type Timeslice,
} from '../src/load/results/load-result.ts';
import { seededRandom } from '../src/seeded-random.ts';

function histogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3, autoResize: true, bitBucketSize: 32 });
}

function summary(h: Histogram): HistogramSummary {
  const percentiles = {} as Percentiles;
  for (const k of percentileKeys) percentiles[k] = h.totalCount === 0 ? 0 : h.getValueAtPercentile(percentileValues[k]);
  return {
    unit: 'us',
    count: h.totalCount,
    min: h.totalCount === 0 ? 0 : h.getValueAtPercentile(0),
    max: h.maxValue,
    mean: Math.round(h.mean * 1000) / 1000,
    stddev: Math.round(h.stdDeviation * 1000) / 1000,
    percentiles,
    hdr: hdr.encodeIntoCompressedBase64(h),
  };
}

export interface SampleLoadOptions {
  seed?: number;
  durationS?: number;
  rate?: number;
  sweep?: boolean;
  slosBreached?: boolean;
  errors?: boolean;
  /** A 2 s server stall at 60% of the run (default true). */
  stall?: boolean;
}

export function sampleLoadResult(options: SampleLoadOptions = {}): LoadResult {
  const rand = seededRandom(options.seed ?? 3);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const durationS = options.durationS ?? 30;
  const rate = options.rate ?? 20;
  const start = Date.parse('2026-11-21T10:00:00Z');
  const all = { ttft: histogram(), itl: histogram(), e2e: histogram(), ttfb: histogram(), tpot: histogram(), schedule_lag: histogram(), event_loop_lag: histogram() };
  const slices: Timeslice[] = [];
  const byClass = Object.fromEntries(errorClasses.map((c) => [c, 0])) as Record<ErrorClass, number>;
  const byStatus: Record<string, number> = {};
  const examples: LoadResult['errors']['examples'] = [];
  let started = 0;
  let ok = 0;
  let failed = 0;
  let outputTokens = 0;
  let events = 0;
  for (let s = 0; s < durationS; s++) {
    const sl = { ttft: histogram(), e2e: histogram(), itl: histogram() };
    const stall = options.stall !== false && s >= durationS * 0.6 && s < durationS * 0.6 + 2;
    const n = Math.max(1, Math.round(rate + gauss() * Math.sqrt(rate)));
    let sliceOk = 0;
    let sliceFailed = 0;
    let sliceTokens = 0;
    for (let i = 0; i < n; i++) {
      started++;
      const errorRoll = rand();
      if (options.errors !== false && errorRoll < 0.012) {
        failed++;
        sliceFailed++;
        const cls: ErrorClass = errorRoll < 0.006 ? 'http_status' : errorRoll < 0.009 ? 'timeout' : 'stream_nonconforming';
        byClass[cls]++;
        if (cls === 'http_status') byStatus['503'] = (byStatus['503'] ?? 0) + 1;
        if (examples.length < 20) examples.push({ class: cls, detail: cls === 'http_status' ? 'HTTP 503' : cls === 'timeout' ? 'no byte for 10000 ms' : 'data after [DONE] at byte 1834', requestId: `req_${Math.floor(rand() * 1e16).toString(16).padStart(24, '0')}` });
        continue;
      }
      const ttft = Math.max(20_000, 200_000 * Math.exp(0.15 * gauss()) + (stall ? 1_500_000 * rand() : 0) + (options.slosBreached === true ? 700_000 : 0));
      const tokens = 40 + Math.floor(rand() * 120);
      let t = ttft;
      for (let k = 1; k < tokens; k++) {
        const gap = Math.max(500, 20_000 + 3_000 * gauss() + (rand() < 0.01 ? 60_000 : 0));
        all.itl.recordValue(Math.round(gap));
        sl.itl.recordValue(Math.round(gap));
        t += gap;
      }
      all.ttft.recordValue(Math.round(ttft));
      all.ttfb.recordValue(Math.round(ttft * 0.4));
      all.e2e.recordValue(Math.round(t + 2_000));
      all.tpot.recordValue(Math.round((t - ttft) / (tokens - 1)));
      all.schedule_lag.recordValue(Math.round(Math.abs(gauss()) * 300 + 50));
      sl.ttft.recordValue(Math.round(ttft));
      sl.e2e.recordValue(Math.round(t + 2_000));
      ok++;
      sliceOk++;
      sliceTokens += tokens;
      outputTokens += tokens;
      events += tokens + 2;
    }
    for (let k = 0; k < 10; k++) all.event_loop_lag.recordValue(Math.round(1000 + Math.abs(gauss()) * 800));
    const p = (h: Histogram, q: number) => (h.totalCount === 0 ? null : h.getValueAtPercentile(q));
    slices.push({
      epochS: start / 1000 + s,
      tS: s,
      started: n,
      finished: sliceOk + sliceFailed,
      ok: sliceOk,
      failed: sliceFailed,
      outputTokens: sliceTokens,
      inFlight: Math.round(rate * 3.4 + gauss() * 2 + (stall ? rate * 2 : 0)),
      ttftHdr: hdr.encodeIntoCompressedBase64(sl.ttft),
      e2eHdr: hdr.encodeIntoCompressedBase64(sl.e2e),
      itlHdr: hdr.encodeIntoCompressedBase64(sl.itl),
      ttftP50Us: p(sl.ttft, 50),
      ttftP99Us: p(sl.ttft, 99),
      e2eP50Us: p(sl.e2e, 50),
      e2eP99Us: p(sl.e2e, 99),
      itlP99Us: p(sl.itl, 99),
    });
  }
  const metrics: LoadResult['metrics'] = {};
  for (const [name, h] of Object.entries(all)) metrics[name as keyof typeof all] = summary(h);
  const finished = ok + failed;
  const ttftP95 = all.ttft.getValueAtPercentile(95);
  const itlP99 = all.itl.getValueAtPercentile(99);
  const errorRate = finished === 0 ? 0 : failed / finished;
  const slos: LoadResult['slos'] = [
    { expr: 'ttft.p95<800ms', metric: 'ttft', stat: 'p95', op: '<', threshold: 800_000, observed: ttftP95, unit: 'us', passed: ttftP95 < 800_000, perRequest: true },
    { expr: 'itl.p99<50ms', metric: 'itl', stat: 'p99', op: '<', threshold: 50_000, observed: itlP99, unit: 'us', passed: itlP99 < 50_000, perRequest: false },
    { expr: 'errors.rate<0.01', metric: 'errors', stat: 'rate', op: '<', threshold: 0.01, observed: errorRate, unit: 'ratio', passed: errorRate < 0.01, perRequest: false },
  ];
  const sweepSteps: SweepStep[] = [5, 10, 20, 40, 80].map((level, i) => {
    const ttft = 190_000 * (1 + (i >= 3 ? (i - 2) ** 2 * 0.8 : i * 0.05));
    return {
      level,
      achievedRps: level * (i >= 4 ? 0.82 : 0.995),
      outputTokensPerS: level * 95 * (i >= 4 ? 0.8 : 1),
      ttftP95Us: Math.round(ttft * 1.3),
      ttftP99Us: Math.round(ttft * 1.6),
      itlP99Us: 28_000 + i * 6_000,
      e2eP99Us: Math.round(ttft * 1.6 + 3_000_000),
      errorRate: i >= 4 ? 0.03 : 0,
      goodputRps: level * (i >= 3 ? 0.6 : 0.99),
      slosMet: i < 3,
      saturated: i >= 4,
      perUserTokensPerS: [60, 58, 52, 38, 20][i] ?? null,
    };
  });
  const windowS = durationS;
  return {
    meta: {
      schema: LOAD_RESULT_SCHEMA,
      tool: { name: 'iari', version: '0.1.0' },
      runId: '20261121T100000Z-7b1d2e',
      startedAt: '2026-11-21T09:59:55.000Z',
      endedAt: new Date(start + durationS * 1000).toISOString(),
      measureStartEpochMs: start,
      measureEndEpochMs: start + durationS * 1000,
      baseUrl: 'http://127.0.0.1:8787/v1',
      target: 'bundled-mock',
      model: 'iari-small',
      mode: { kind: 'open', engine: 'undici', rate, arrival: 'poisson', seed: options.seed ?? 3 },
      latencyOrigin: 'intended',
      config: { durationS, requests: null, warmupS: 5, maxTokens: 256, stream: true, prompts: 'builtin', seed: options.seed ?? 3, timeoutMs: 10_000, slos: slos.map((x) => x.expr) },
      host: { node: 'v20.20.2', platform: 'linux', cpus: 2 },
    },
    counts: { started, finished, ok, failed, warmupExcluded: rate * 5, abortedAtEnd: 3, outputTokens, promptTokens: ok * 42, tokenSource: 'usage', events },
    throughput: { windowS, rps: finished / windowS, okRps: ok / windowS, outputTokensPerS: outputTokens / windowS, achievedArrivalRate: started / windowS },
    metrics,
    errors: { total: failed, rate: errorRate, byClass, byStatus, byFinding: byClass.stream_nonconforming > 0 ? { DATA_AFTER_DONE: byClass.stream_nonconforming } : {}, examples },
    slos,
    slosPassed: slos.every((x) => x.passed),
    goodput: { slos: ['ttft.p95<800ms'], goodRequests: Math.round(ok * 0.97), goodputRps: (ok * 0.97) / windowS, fraction: finished === 0 ? 0 : (ok * 0.97) / finished },
    timeslices: slices,
    sweep: options.sweep === true ? { kind: 'rate', steps: sweepSteps, best: 20, stopReason: 'slo_breached' } : null,
    shard: null,
    mergedFrom: null,
    validity: { valid: true, eventLoopLagP99Us: all.event_loop_lag.getValueAtPercentile(99), budgetUs: 5_000, scheduleLagP99Us: all.schedule_lag.getValueAtPercentile(99), warnings: [] },
  };
}
