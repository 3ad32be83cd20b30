import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { Collector } from './collector.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { buildResult } from './result-builder.ts';
import { loadRunPassed, runFailure } from './run-verdict.ts';
import { parseSlos } from './slo.ts';
import { summaryTable } from './summary.ts';

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));

function timing(seq: number, over: Partial<RequestTiming>): RequestTiming {
  return { seq, intendedNs: ms(seq), sentNs: ms(seq), headersNs: ms(seq + 1), endNs: ms(seq + 2), status: 200, requestId: null, tokenEvents: [{ atNs: ms(seq + 1), tokens: 3 }], outputTokens: 3, promptTokens: 5, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false, ...over };
}

/** A 2 s window with the given requests (all measured). */
function run(requests: Partial<RequestTiming>[], aborted = 0, slos: string[] = []): ReturnType<typeof buildResult> {
  const parsed = parseSlos(slos);
  const c = new Collector({ measureStartNs: 0n, measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: parsed, shard: null });
  requests.forEach((r, i) => {
    c.onStart(ms(i));
    c.onFinish(timing(i, r));
  });
  for (let i = 0; i < aborted; i++) {
    c.onStart(ms(i));
    c.onAborted(timing(i, { abortedAtEnd: true }));
  }
  const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
  return buildResult({ meta, collector: c, slos: parsed, shard: null });
}

const http500 = { status: 500, error: { class: 'http_status' as const, detail: 'HTTP 500' }, tokenEvents: [], outputTokens: 0 };

describe('load run verdict', () => {
  it('a run in which every request answered 500 fails without any --slo: throughput counts no request, errors are broken down by class and status', () => {
    const r = run(Array.from({ length: 8 }, () => http500));
    // The default error gate (errors.rate<=5%) is breached too; the summary's first line gives the root: nothing succeeded.
    expect(r.slos.map((s) => [s.expr, s.isDefault, s.passed])).toEqual([['errors.rate<=5%', true, false]]);
    expect(loadRunPassed(r)).toBe(false);
    expect(r.throughput.rps).toBe(0);
    const text = summaryTable(r);
    expect(text.split('\n')[0]).toBe('iari load: FAILED: no request succeeded: all 8 finished requests failed (http_status=8 (500 x8))');
    expect(text).toMatch(/^errors: 8 \(100\.00%\) by class and status: http_status=8 \(500 x8\)$/m);
    expect(text).toMatch(/^throughput: 0 successful req\/s/m);
  });

  it('throughput counts successful requests only', () => {
    const r = run([{}, {}, {}, http500], 0, ['errors.rate<=50%']);
    expect(r.throughput.rps).toBe(1.5);
    expect(loadRunPassed(r)).toBe(true);
  });

  it('a run with 25% errors and no errors SLO fails the default gate, first line and exit; with the user\'s own errors SLO it passes', () => {
    const r = run([{}, {}, {}, http500]);
    expect(runFailure(r)).toBeNull();
    expect(loadRunPassed(r)).toBe(false);
    expect(summaryTable(r).split('\n')[0]).toBe("iari load: FAILED: 25.00% of the finished requests failed (http_status=1 (500 x1)), over the default gate errors.rate<=5%; give your own with --slo 'errors.rate<X%' (docs/load.md, \"Failed runs\")");
    expect(loadRunPassed(run([{}, {}, {}, http500], 0, ['errors.count<=1']))).toBe(true);
  });

  it('an SLO with no sample in the window is not met and says "no data" with the reason; a run where no request finished is failed on its first line', () => {
    const r = run([], 4, ['errors.rate<0.01', 'ttft.p95<1s']);
    expect(r.slos.map((s) => [s.passed, s.observed, s.noData])).toEqual([
      [false, null, 'no request finished in the measured window'],
      [false, null, 'no request finished in the measured window'],
    ]);
    expect(r.slosPassed).toBe(false);
    expect(runFailure(r)).toBe('no request finished in the measured window (4 started, 4 aborted at end)');
    const text = summaryTable(r);
    expect(text.split('\n')[0]).toMatch(/^iari load: FAILED: no request finished/);
    expect(text).toMatch(/SLO BREACHED errors\.rate<0\.01 \(observed no data: no request finished in the measured window\)/);
  });

  it('a duration SLO with no sample (no request succeeded) is "no data", not met', () => {
    const r = run([http500], 0, ['ttft.p95<1s']);
    expect(r.slos[0]).toMatchObject({ passed: false, observed: null, noData: 'no successful request gave a ttft sample in the measured window' });
  });

  it('goodput without a per-request SLO says plainly that it counts every successful request; with one it names the SLO', () => {
    const none = summaryTable(run([{}, {}, http500, {}]));
    const line = none.split('\n').find((l) => l.startsWith('goodput:'));
    expect(line).toBe("goodput: 1.5 req/s, every successful request (75.0% of requests): no per-request SLO was given (e.g. --slo 'ttft.p95<800ms')");
    expect(none).not.toContain('met no per-request SLO');
    const withSlo = summaryTable(run([{}, {}, http500, {}], 0, ['ttft.p95<800ms'])).split('\n').find((l) => l.startsWith('goodput:'));
    expect(withSlo).toBe('goodput: 1.5 req/s (75.0% of requests met ttft.p95<800ms)');
  });
});
