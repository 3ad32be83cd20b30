import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { evaluateSlos, parseSlos } from '../load/results/slo.ts';
import { summaryTable } from '../load/results/summary.ts';
import { buildServerSection, type ClientRequest } from './server-section.ts';
import type { ScrapeLog } from './scraper.ts';
import type { ServerReading } from './vocabulary.ts';

// llama.cpp's names: a generated-token counter, no waiting gauge and no preemption counter.
const reading = (generated: number): ServerReading => ({ engine: 'llamacpp', gauges: { running: 1 }, counters: { generatedTokens: generated }, histograms: {}, mapped: new Set() });

function section() {
  const log: ScrapeLog = {
    url: 'http://127.0.0.1:8080/metrics', intervalMs: 500, engine: 'llamacpp', attempts: 2,
    points: [0, 20].map((g, i) => ({ atNs: BigInt(i) * 500_000_000n, ms: 2, reading: reading(g) })),
    failures: [], failureCount: 0, decreases: [], decreaseCount: 0, parseIssues: [], parseIssueCount: 0, raw: [], sentToken: false, beforePriming: null,
  };
  const records: ClientRequest[] = [{ phase: 'measure', outputTokens: 20, tokenSource: 'usage', intendedUs: 0, sentUs: 0, ttftUs: 1000, error: null }];
  return buildServerSection(log, records, { measureStartNs: 0n, measureStartEpochMs: Date.UTC(2026, 10, 29), maxTokens: 64 });
}

describe('server as a result section (server-result-section.ts)', () => {
  it('LOAD-SERVER: server.* SLOs parse in their own grammar and are judged even when no measured request finished, each stat with its own no-data reason', () => {
    const slos = parseSlos(['server.reconcile', 'server.waiting.max<8', 'server.preemptions==0', 'server.running.max<=1']);
    expect(slos.map((s) => [s.metric, s.stat, s.op, s.threshold])).toEqual([['server', 'reconcile', '==', 1], ['server', 'waiting.max', '<', 8], ['server', 'preemptions', '==', 0], ['server', 'running.max', '<=', 1]]);
    expect(() => parseSlos(['server.queue.max<3'])).toThrow(/unknown server signal "queue"/);
    const judged = evaluateSlos(slos, { ...sampleLoadResult(), server: section() } as never, 0).map((s) => [s.expr, s.observed, s.passed, s.noData]);
    expect(judged).toEqual([
      ['server.reconcile', 1, true, undefined],
      ['server.waiting.max<8', null, false, 'the server publishes no waiting signal'],
      ['server.preemptions==0', null, false, 'the server publishes no preemption counter'],
      ['server.running.max<=1', 1, true, undefined],
    ]);
    expect(evaluateSlos(slos.slice(0, 1), sampleLoadResult(), 3)[0]).toMatchObject({ observed: null, passed: false, noData: 'the run read no server metrics (give --server-metrics)' });
  });

  it("LOAD-SERVER: the summary ends with the server block after a blank line, and the run's warmup count reaches it", () => {
    const r = sampleLoadResult();
    const text = summaryTable({ ...r, counts: { ...r.counts, warmupExcluded: 2 }, server: section() });
    expect(text).toMatch(/\n\nserver metrics \(http:\/\/127\.0\.0\.1:8080\/metrics, llamacpp names\): 2 of 2 reads ok, 2 ms each\n {2}window: the whole run, warmup included \(2 warmup request\(s\)\)/);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/counters monotonic/);
    expect(summaryTable(r)).not.toContain('server metrics');
  });
});
