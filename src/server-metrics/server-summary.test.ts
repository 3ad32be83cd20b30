import { describe, expect, it } from 'vitest';
import { serverBlock } from './server-summary.ts';
import { buildServerSection, type ClientRequest } from './server-section.ts';
import type { ScrapeLog } from './scraper.ts';
import type { ServerReading } from './vocabulary.ts';

const reading = (generated: number): ServerReading => ({ engine: 'llamacpp', gauges: {}, counters: { generatedTokens: generated }, histograms: {}, mapped: new Set() });

function section() {
  const log: ScrapeLog = {
    url: 'http://127.0.0.1:8080/metrics', intervalMs: 500, engine: 'llamacpp', attempts: 2,
    points: [0, 30].map((g, i) => ({ atNs: BigInt(i) * 500_000_000n, ms: 2, reading: reading(g) })),
    failures: [], failureCount: 0, decreases: [], decreaseCount: 0, parseIssues: [], parseIssueCount: 0, raw: [], sentToken: false, beforePriming: null,
  };
  const records: ClientRequest[] = [
    { phase: 'warmup', outputTokens: 10, tokenSource: 'usage', intendedUs: 0, sentUs: 0, ttftUs: 1000, error: null },
    { phase: 'measure', outputTokens: 20, tokenSource: 'usage', intendedUs: 0, sentUs: 0, ttftUs: 1000, error: null },
  ];
  return buildServerSection(log, records, { measureStartNs: 0n, measureStartEpochMs: Date.UTC(2026, 10, 29), maxTokens: 64 });
}

describe('the server block of the terminal summary (issue 43 item 11)', () => {
  it('LOAD-SERVER: with --warmup the block says its window counts the warmup requests, which the summary\'s token lines do not; without warmup nothing is added', () => {
    const s = section();
    const withWarmup = serverBlock(s, 1);
    expect(withWarmup).toContain('window: the whole run, warmup included (1 warmup request(s))');
    // The window's totals hold the warmup request's tokens: 30 generated, 20 of them measured.
    expect(withWarmup).toMatch(/server counted 30 generated tokens; the answers' usage says 30/);
    expect(serverBlock(s)).not.toContain('window:');
  });
});
