import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { loadHtml } from '../../report/load-html.ts';
import { createRedactor } from '../../report/redact.ts';
import { Collector } from './collector.ts';
import type { RequestRecord } from './load-result.ts';
import { mergeResults } from './merge.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { buildResult } from './result-builder.ts';
import { cancellationLines } from './cancel-report.ts';
import { loadSections } from './load-sections.ts';
import { parseSlos } from './slo.ts';
import { summaryTable } from './summary.ts';

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));

function timing(seq: number, over: Partial<RequestTiming> = {}): RequestTiming {
  return { seq, intendedNs: ms(100 + seq), sentNs: ms(100 + seq), headersNs: ms(105 + seq), endNs: ms(140 + seq), status: 200, requestId: null, tokenEvents: [{ atNs: ms(120 + seq), tokens: 3 }], outputTokens: 3, promptTokens: 5, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false, ...over };
}

/** A cut request as the engine hands it over: the checker failed it at the cut, the cut is on its timing. */
const cut = (seq: number, afterMs: number, tokens: number): RequestTiming =>
  timing(seq, { cancelPlanned: true, cancelled: { atNs: ms(100 + seq + afterMs), tokens }, endNs: ms(100 + seq + afterMs), tokenEvents: tokens === 0 ? [] : [{ atNs: ms(101 + seq), tokens: 0 }], outputTokens: 0, tokenSource: 'none', error: { class: 'other', detail: 'cancelled by the client (--cancel-rate)' } });

function run(timings: RequestTiming[], slos: string[] = []): { result: ReturnType<typeof buildResult>; records: RequestRecord[] } {
  const records: RequestRecord[] = [];
  const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: parseSlos(slos), shard: null, sections: loadSections({ cancellation: { plan: { rate: 0.5, text: 'decode' } } }), onRecord: (r) => records.push(r) });
  for (const t of timings) {
    c.onStart(t.intendedNs);
    if (t.cancelled !== undefined) c.onCancelled(t);
    else c.onFinish(t);
  }
  const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
  return { result: buildResult({ meta, collector: c, slos: parseSlos(slos), shard: null }), records };
}

describe('cancelled requests in the result (load.json cancellation, requests.ndjson phase cancelled)', () => {
  it('LOAD-CANCEL: a cut request is never an error nor a latency sample; goodput and the error rate are over the requests not cut', () => {
    // Two answered (one fast, one slow), one failed, two cut; one chosen request ended before its point.
    const slow = timing(1, { endNs: ms(2000), tokenEvents: [{ atNs: ms(1500), tokens: 3 }] });
    const { result, records } = run([timing(0), slow, timing(2, { error: { class: 'http_status', detail: 'HTTP 500' }, status: 500 }), cut(3, 10, 0), cut(4, 30, 4), timing(5, { cancelPlanned: true })], ['e2e.p99<1s']);
    expect(result.counts).toMatchObject({ started: 6, finished: 4, ok: 3, failed: 1 });
    expect(result.errors.total).toBe(1);
    expect(result.errors.rate).toBe(0.25);
    expect(result.metrics.ttft?.count).toBe(3);
    expect(result.metrics.e2e?.count).toBe(3);
    // Goodput over the 4 requests not cut: the fast and the sixth met e2e < 1 s.
    expect(result.goodput).toMatchObject({ goodRequests: 2, fraction: 0.5 });
    expect(result.cancellation).toMatchObject({ chosen: 3, cancelled: 2, endedFirst: 1, abortedAtEnd: 0, phase: { prefill: 1, decode: 1 } });
    expect(result.cancellation?.cutMs).toMatchObject({ p50: 10, max: 30 });
    expect(result.cancellation?.cutTokens).toMatchObject({ p50: 0, max: 4, mean: 2 });
    expect(records.filter((r) => r.phase === 'cancelled').map((r) => [r.seq, r.error, r.cancelled, r.ttftUs])).toEqual([[3, null, { atUs: 13_000, tokens: 0 }, null], [4, null, { atUs: 34_000, tokens: 4 }, 1000]]);
  });

  it('LOAD-CANCEL: the summary and report.html say what was cut and that the leak check was not observed without --server-metrics; shards add their counts', () => {
    const { result } = run([timing(0), cut(1, 10, 0), cut(2, 20, 2)]);
    const text = summaryTable(result);
    expect(text).toContain('requests: 1 finished (1 ok, 0 failed), 2 cancelled by the client,');
    expect(text).toContain('cancelled: 2 requests cut by the client (--cancel-rate 0.5 --cancel-after decode; 2 chosen)');
    expect(text).toContain('server leak check: not observed');
    expect(text).not.toMatch(/no leak/i);
    const html = loadHtml(result, createRedactor([]));
    expect(html).toContain('Cancelled: 2 requests cut by the client');
    expect(html).toContain('Server leak check: not observed');
    const leak = { verdict: 'leak' as const, before: 0, after: 2, settleMs: 3000, message: 'LEAK: the server still holds 2 requests more than before the run' };
    const leaking = { ...result, cancellation: { ...result.cancellation!, leak } };
    expect(cancellationLines(leaking)).toContain('server leak check: LEAK: the server still holds 2 requests more than before the run');
    expect(loadHtml(leaking, createRedactor([]))).toContain('status status-bad">Server leak check: LEAK');
    const merged = mergeResults([{ ...result, shard: { index: 0, count: 2 } }, { ...leaking, shard: { index: 1, count: 2 } }], 'merged');
    expect(merged.cancellation).toMatchObject({ chosen: 4, cancelled: 4, phase: { prefill: 2, decode: 2 }, leak: { verdict: 'leak' } });
  });
});
