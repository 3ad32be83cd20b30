import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

const TTFT_MS = 20;
const PREFILL_MS_PER_TOKEN = 0.1;

/**
 * Shared prefixes against the mock's prefix cache (mock-server/core/prefix-cache.ts), whose log
 * holds, per request id, the cached tokens it reported and the prefill it added to TTFT: the hit
 * rate iari reports is the mock's, request by request, and the TTFT drop between hits and misses
 * is the prefill the cache saved.
 */
describe('shared prefixes against the mock prefix cache', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: TTFT_MS, itlMs: 2, completionTokens: 4, prefixCache: { blockTokens: 16, capacityBlocks: 200, prefillMsPerToken: PREFILL_MS_PER_TOKEN } });
  });
  afterAll(() => mock.close());

  it('LOAD-PREFIX: the reported cached_tokens, hit rate and TTFT hit/miss split equal the mock\'s log, and the TTFT drop is the prefill it saved', async () => {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'undici' }, {
        durationS: 2,
        // Past the cold start (the tokenizers' first load on both sides, JIT): its first misses would be slower for that reason alone.
        warmupS: 0.5,
        workload: { input: { kind: 'synthetic', length: { mean: 40, stdev: 0 } }, output: null, maxTokensField: 'max_tokens', extraBody: null, prefix: { tokens: 1000, groups: 6 } },
        onRecord: (r) => records.push(r),
      }),
    );
    expect(result.counts.failed).toBe(0);
    const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
    expect(ok.length).toBeGreaterThanOrEqual(12);
    const cache = mock.core.state.prefixCache!;
    let prompt = 0;
    let cached = 0;
    const residual: { hit: number[]; miss: number[] } = { hit: [], miss: [] };
    const ttft: { hit: number[]; miss: number[] } = { hit: [], miss: [] };
    for (const r of ok) {
      const truth = cache.record(r.requestId ?? '');
      expect(truth, `mock log for ${r.requestId}`).toBeDefined();
      expect(r.cachedTokens).toBe(truth!.cachedTokens);
      expect(r.promptTokens).toBe(truth!.promptTokens);
      prompt += truth!.promptTokens;
      cached += truth!.cachedTokens;
      const kind = truth!.cachedTokens > 0 ? 'hit' : 'miss';
      ttft[kind].push((r.ttftUs ?? 0) / 1000);
      // What the client measured beyond the mock's intended TTFT: transport and client time, the same for both kinds.
      residual[kind].push((r.ttftUs ?? 0) / 1000 - TTFT_MS - truth!.prefillMs);
    }
    const c = result.cache!;
    expect(c.requestsReporting).toBe(ok.length);
    expect(c.promptTokens).toBe(prompt);
    expect(c.cachedTokens).toBe(cached);
    expect(c.hitRate).toBeCloseTo(cached / prompt, 5);
    expect(c.hitRequests).toBe(ttft.hit.length);
    expect(c.ttftHit?.count).toBe(ttft.hit.length);
    expect(c.ttftMiss?.count ?? 0).toBe(ttft.miss.length);
    // Six groups of a 1,000-token prefix (63 blocks each) in a cache of 200 blocks: about three fit,
    // so the LRU keeps evicting and both kinds occur all through the run.
    expect(ttft.hit.length).toBeGreaterThan(2);
    expect(ttft.miss.length).toBeGreaterThan(2);
    // The drop: a miss pays ~105 ms of prefill, a hit ~5 ms. The measured difference of the medians
    // equals the mock's modelled difference within the transport residual's spread (a few ms here).
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    expect(median(ttft.miss) - median(ttft.hit)).toBeGreaterThan(80);
    expect(Math.abs(median(residual.miss) - median(residual.hit))).toBeLessThan(10);
    for (const r of residual.hit) expect(r).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
