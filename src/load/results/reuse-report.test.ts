import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { loadHtml } from '../../report/load-html.ts';
import { createRedactor } from '../../report/redact.ts';
import { Collector } from './collector.ts';
import type { RequestRecord } from './load-result.ts';
import { mergeResults } from './merge.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { buildResult } from './result-builder.ts';
import { mergeReuseReports, reuseLine } from './reuse-report.ts';
import { summaryTable } from './summary.ts';
import { loadSections } from './load-sections.ts';

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));

function timing(seq: number, over: Partial<RequestTiming>): RequestTiming {
  return { seq, intendedNs: ms(100 + seq), sentNs: ms(100 + seq), headersNs: ms(105 + seq), endNs: ms(110 + seq), status: 200, requestId: null, tokenEvents: [{ atNs: ms(106 + seq), tokens: 3 }], outputTokens: 3, promptTokens: 5, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false, ...over };
}

/** A run of `timings` measured from t = 100 ms (the warmup before it), with its records. */
function run(timings: { t: RequestTiming; aborted?: boolean }[], policy: 'reuse' | 'never' = 'reuse'): { result: ReturnType<typeof buildResult>; records: RequestRecord[] } {
  const records: RequestRecord[] = [];
  const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: [], shard: null, sections: loadSections({ connectionReuse: policy }), onRecord: (r) => records.push(r) });
  for (const { t, aborted } of timings) {
    c.onStart(t.intendedNs);
    if (aborted === true) c.onAborted({ ...t, abortedAtEnd: true });
    else c.onFinish(t);
  }
  const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
  return { result: buildResult({ meta, collector: c, slos: [], shard: null }), records };
}

const raced = (seq: number, over: Partial<RequestTiming> = {}): RequestTiming => timing(seq, { reuseRace: { retriedNs: ms(101 + seq) }, ...over });
const reset = { status: null, headersNs: null, tokenEvents: [], outputTokens: 0, error: { class: 'reset' as const, detail: 'other side closed' } };

describe('connection reuse races in the result (load.json connectionReuse, requests.ndjson retriedUs)', () => {
  it('a raced request counts once among the requests and once among the races, by how its retry ended; a failed retry is an error of its class; warmup races are not counted', () => {
    const { result, records } = run([
      { t: timing(0, {}) },
      { t: raced(1) },
      { t: raced(2) },
      { t: raced(3, reset) },
      { t: raced(4), aborted: true },
      { t: raced(-50, { intendedNs: ms(10), sentNs: ms(10) }) },
    ]);
    expect(result.counts).toMatchObject({ started: 5, finished: 4, ok: 3, failed: 1, abortedAtEnd: 1, warmupExcluded: 1 });
    expect(result.errors.byClass.reset).toBe(1);
    expect(result.connectionReuse).toEqual({ policy: 'reuse', races: 4, retried: { ok: 2, failed: 1, abortedAtEnd: 1 } });
    // Each raced request's line says when it was sent again (µs since the measured window began); the others say nothing.
    expect(records.filter((r) => r.phase === 'measure').map((r) => [r.seq, r.retriedUs])).toEqual([[0, undefined], [1, 2000], [2, 3000], [3, 4000]]);
    expect(records.find((r) => r.phase === 'aborted')?.retriedUs).toBe(5000);
  });

  it('a raced request is timed from its first send: the race is inside its TTFT and e2e', () => {
    const { records } = run([{ t: raced(1, { headersNs: ms(140), tokenEvents: [{ atNs: ms(141), tokens: 3 }], endNs: ms(150) }) }]);
    expect(records[0]).toMatchObject({ intendedUs: 1000, sentUs: 1000, retriedUs: 2000, ttftUs: 40_000, e2eUs: 49_000 });
  });

  it('the summary says the races on their own line, apart from the errors; no line when connections were reused without a race; never says so', () => {
    const { result } = run([{ t: raced(1) }, { t: raced(2, reset) }, { t: timing(3, {}) }]);
    const text = summaryTable(result);
    expect(text).toMatch(/^errors: 1 \(33\.33%\) by class and status: reset=1$/m);
    expect(text).toMatch(/^connections: kept-alive connections reused; 2 reuse races \(.*\): each sent once more on a fresh connection, 1 answered, 1 failed \(counted in errors\); .*$/m);
    expect(reuseLine(run([{ t: timing(0, {}) }]).result)).toBeNull();
    expect(reuseLine(run([{ t: timing(0, {}) }], 'never').result)).toBe('connections: a new connection per request (--connection-reuse never)');
    expect(reuseLine({})).toBeNull();
  });

  it('report.html shows the races in its summary, and the connection policy', () => {
    const { result } = run([{ t: raced(1) }, { t: timing(2, {}) }]);
    const page = loadHtml(result, createRedactor([]));
    expect(page).toContain('Connection reuse races: 1 reuse race (');
    expect(page).toContain('kept-alive connections reused; 1 reuse races');
    expect(loadHtml(run([{ t: timing(2, {}) }]).result, createRedactor([]))).not.toContain('Connection reuse races');
  });

  it('merged shards add their races; files written before the field existed merge without it', () => {
    const a = run([{ t: raced(1) }, { t: raced(2, reset) }]).result;
    const b = run([{ t: raced(1) }]).result;
    expect(mergeResults([{ ...a, shard: { index: 0, count: 2 } }, { ...b, shard: { index: 1, count: 2 } }], 'merged').connectionReuse).toEqual({ policy: 'reuse', races: 3, retried: { ok: 2, failed: 1, abortedAtEnd: 0 } });
    const { connectionReuse: _, ...old } = a;
    expect(mergeReuseReports([undefined, undefined])).toBeUndefined();
    expect(mergeResults([old], 'merged').connectionReuse).toBeUndefined();
  });
});
