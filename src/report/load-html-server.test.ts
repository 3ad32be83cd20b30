import { describe, expect, it } from 'vitest';
import { renderLoadReport } from './load-html.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { buildServerSection, type ClientRequest } from '../server-metrics/server-section.ts';
import type { ScrapeLog } from '../server-metrics/scraper.ts';
import type { ServerReading } from '../server-metrics/vocabulary.ts';

const reading = (running: number, generated: number): ServerReading => ({ engine: 'vllm', gauges: { running, waiting: 1, kvCacheUsage: 0.4 }, counters: { generatedTokens: generated }, histograms: {}, mapped: new Set() });

function section(generated: readonly number[], client: number) {
  const start = Date.UTC(2026, 10, 27, 12, 0, 0);
  const log: ScrapeLog = {
    url: 'http://127.0.0.1:8000/metrics',
    intervalMs: 500,
    engine: 'vllm',
    attempts: generated.length,
    points: generated.map((g, i) => ({ atNs: BigInt(i) * 500_000_000n, ms: 2, reading: reading(i, g) })),
    failures: [],
    failureCount: 0,
    decreases: [],
    decreaseCount: 0,
    parseIssues: [],
    parseIssueCount: 0,
    raw: [],
    sentToken: false,
    beforePriming: null,
  };
  const records: ClientRequest[] = [{ phase: 'measure', outputTokens: client, tokenSource: 'usage', intendedUs: 0, sentUs: 0, ttftUs: 1000, error: null }];
  return { section: buildServerSection(log, records, { measureStartNs: 0n, measureStartEpochMs: start, maxTokens: 64 }), start };
}

describe('report.html server section', () => {
  it('plots running/waiting, KV-cache usage and server vs client tokens/s beside client TTFT p95, and lists each finding with both numbers', () => {
    const { section: server } = section([0, 10, 30, 60, 100], 100);
    expect(server.perSecond.map((p) => [p.tS, p.running, p.generatedPerS])).toEqual([[0, 1, null], [1, 3, 50], [2, 4, 80]]);
    const page = renderLoadReport({ ...sampleLoadResult(), server });
    for (const title of ['Client TTFT p95 of requests finishing each second', 'Server: running and waiting requests', 'Server: KV-cache usage', 'Generated tokens per second: counted by the server, received by the client']) expect(page).toContain(title);
    expect(page).toContain('href="#server"');
    expect(page).toMatch(/generated tokens<\/td><td[^>]*>100<\/td><td[^>]*>100<\/td>/);
  });

  it('a disagreeing counter shows as disagree with both numbers; no server section without --server-metrics', () => {
    const { section: server } = section([0, 90], 100);
    const page = renderLoadReport({ ...sampleLoadResult(), server });
    expect(page).toMatch(/generated tokens<\/td><td[^>]*>90<\/td><td[^>]*>100<\/td>/);
    expect(page).toContain('disagree');
    expect(renderLoadReport(sampleLoadResult())).not.toContain('id="server"');
  });
});
