import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { binsFromHdr, cdfFromHdr, formatUs, hdrValueCounts, loadHtml, renderLoadReport } from './load-html.ts';
import { createRedactor } from './redact.ts';
import { escapeHtml } from './html-shell.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import type { HistogramSummary } from '../load/results/load-result.ts';

function summaryOf(values: number[]): HistogramSummary {
  const h = hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3, autoResize: true, bitBucketSize: 32 });
  for (const v of values) h.recordValue(v);
  return {
    unit: 'us',
    count: h.totalCount,
    min: h.getValueAtPercentile(0),
    max: h.maxValue,
    mean: h.mean,
    stddev: h.stdDeviation,
    percentiles: { p50: h.getValueAtPercentile(50), p90: h.getValueAtPercentile(90), p95: h.getValueAtPercentile(95), p99: h.getValueAtPercentile(99), 'p99.9': h.getValueAtPercentile(99.9) },
    hdr: hdr.encodeIntoCompressedBase64(h),
  };
}

describe('load-html', () => {
  it('formats microseconds as readable durations', () => {
    expect(formatUs(812)).toBe('0.81 ms');
    expect(formatUs(12_345)).toBe('12.3 ms');
    expect(formatUs(812_000)).toBe('812 ms');
    expect(formatUs(12_300_000)).toBe('12.3 s');
    expect(formatUs(null)).toBe('–');
  });

  it('reads back every recorded value and count from an encoded HDR histogram', () => {
    const s = summaryOf([1000, 1000, 2000, 5000, 5000, 5000]);
    const pairs = hdrValueCounts(s.hdr);
    expect(pairs.map((p) => p.count)).toEqual([2, 1, 3]);
    expect(pairs.map((p) => Math.round(p.value / 10) * 10)).toEqual([1000, 2000, 5000]);
    expect(hdrValueCounts('')).toEqual([]);
    expect(hdrValueCounts('not base64 at all')).toEqual([]);
  });

  it('bins a histogram in ms without losing samples and builds a CDF ending at 1', () => {
    const values = Array.from({ length: 500 }, (_, i) => 100_000 + ((i * 7919) % 1000) * 100);
    const s = summaryOf([...values, 5_000_000]);
    const bins = binsFromHdr(s, 20);
    expect(bins).toHaveLength(20);
    expect(bins.reduce((a, b) => a + b.count, 0)).toBe(501);
    expect(bins[0]?.lo).toBeCloseTo(s.min / 1000);
    const cdf = cdfFromHdr(s);
    expect(cdf.at(-1)?.fraction).toBe(1);
    expect(cdf.every((p, i) => i === 0 || p.fraction >= (cdf[i - 1]?.fraction ?? 0))).toBe(true);
  });

  it('renders summary, SLO rows, distributions, time series and errors of a run', () => {
    const r = sampleLoadResult({ durationS: 12 });
    const page = renderLoadReport(r);
    for (const s of r.slos) expect(page).toContain(`<code>${escapeHtml(s.expr)}</code>`);
    expect(page).toContain(r.slosPassed ? 'SLOs MET' : 'SLOs BREACHED');
    expect(page.match(/data-chart="histogram"/g)).toHaveLength(2);
    expect(page.match(/data-chart="cdf"/g)).toHaveLength(2);
    expect(page.match(/data-chart="line"/g)).toHaveLength(4);
    expect(page).not.toContain('data-chart="sweep"');
    expect(page).toContain(`Errors (${r.errors.total}`);
    for (const e of r.errors.examples) if (e.requestId !== null) expect(page).toContain(e.requestId);
  });

  it('draws the sweep curve with one point per step and the best level', () => {
    const r = sampleLoadResult({ durationS: 5, sweep: true });
    const page = renderLoadReport(r);
    expect(page).toContain('data-chart="sweep"');
    // Three charts plot every step: TTFT p95 by level, the Pareto view, TTFT p95 by aggregate tokens/s.
    expect(page.match(/class="step dot-/g)).toHaveLength(3 * (r.sweep?.steps.length ?? -1));
    expect(page).toContain(`best ${r.sweep?.best}`);
  });

  it('reports SLOs met, and no errors, when the run had none', () => {
    const page = renderLoadReport(sampleLoadResult({ durationS: 5, errors: false, stall: false }));
    expect(page).toContain('SLOs MET');
    expect(page).toContain('No request failed.');
  });

  it('a coordinated run says who stopped it and why, with its shards and start skew', () => {
    const base = sampleLoadResult({ durationS: 5, errors: false, stall: false });
    const page = renderLoadReport({
      ...base,
      interrupted: true,
      coordination: { role: 'coordinator', t0Ms: 1, shards: [{ shard: 0, host: 'a', offsetStartMs: null, offsetEndMs: null, driftPpm: null, startMs: null }], startSkewMs: { estimate: 0, low: 0, high: 0.96 }, window: { startMs: 0, endMs: 5000, seconds: 5 }, stop: { shard: 2, cause: 'died', detail: 'shard 2/4 (pod-2) sent no heartbeat for 1523 ms (timeout 1500 ms)', atMs: 3000 } },
    });
    expect(page).toContain('STOPPED: the coordinated run was stopped (died by shard 2): shard 2/4 (pod-2) sent no heartbeat for 1523 ms');
    expect(page).not.toContain('INTERRUPTED (Ctrl-C)');
    expect(page).toContain('coordinated run: 1/1 shards, start skew 0 ms [0, 0.96]');
    expect(renderLoadReport(base)).not.toContain('coordinated run');
  });

  it('scrubs the secret from the page', () => {
    const secret = 'sk-iari-canary-feedface1234';
    const r = sampleLoadResult({ durationS: 3 });
    r.errors.examples.push({ class: 'other', detail: `echo ${secret}`, requestId: null });
    r.errors.total += 1;
    expect(renderLoadReport(r)).toContain(secret);
    expect(loadHtml(r, createRedactor([secret]))).not.toContain(secret);
  });

  it('an embeddings run shows inputs/s, prompt tokens/s and the batch, and says TTFT and ITL are not applicable instead of a value', () => {
    const r = sampleLoadResult({ durationS: 5 });
    const chat = renderLoadReport(r);
    expect(chat).not.toContain('not applicable');
    delete r.metrics.ttft;
    delete r.metrics.itl;
    r.embeddings = { batch: 16, requests: 100, inputs: 1600, inputsPerS: 320, promptTokens: 204_800, promptTokensPerS: 40_960, requestsWithoutUsage: 0, inputsPerRequest: { mean: 16, min: 16, max: 16 }, dimensions: [64], notApplicable: ['ttft', 'itl', 'tpot', 'output_tps'] };
    const page = renderLoadReport(r);
    expect(page).toContain('inputs/s');
    expect(page).toContain('320');
    expect(page).toContain('prompt tokens/s');
    expect(page).toContain('<div class="stat-value">not applicable</div><div class="stat-label">TTFT p50 / p99</div>');
    expect(page).toContain('<div class="stat-value">not applicable</div><div class="stat-label">ITL p50 / p99</div>');
    expect(page).toContain('ttft, itl, tpot, output_tps not applicable');
    expect(page).not.toContain('<div class="stat-label">output tokens/s</div>');
  });
});
