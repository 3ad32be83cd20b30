import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { withSlowerTtft } from '../../../test-support/sample-compare.ts';
import { compareLoad } from '../../compare/load-compare.ts';
import { evaluateGates } from '../../compare/gate-outcome.ts';
import { parseGate } from '../../compare/gates.ts';
import { firstSide, joinBlocks, runAb } from './ab-blocks.ts';
import type { LoadConfig } from '../run-load.ts';
import type { LoadResult } from '../results/load-result.ts';

const config = { runId: 'run1', baseUrl: 'http://127.0.0.1:1/v1', token: 'iari_sk_a_token_0001', durationS: 24, warmupS: 0, requests: null } as unknown as LoadConfig;

/** A fake runLoadConfig: a 3 s sample run per call, B's TTFT `factor` times A's; records every call. */
function fakeRun(factor: number, calls: LoadConfig[]): (c: LoadConfig) => Promise<{ result: LoadResult; records: [] }> {
  return async (c) => {
    calls.push(c);
    const seed = calls.length;
    const r = sampleLoadResult({ seed, durationS: c.durationS ?? 3, rate: 20, stall: false, errors: false });
    const at = Date.parse('2026-11-27T10:00:00Z') + calls.length * 4000;
    const moved = { ...r, meta: { ...r.meta, runId: c.runId, measureStartEpochMs: at, measureEndEpochMs: at + (c.durationS ?? 3) * 1000 } };
    return { result: c.baseUrl === config.baseUrl ? moved : withSlowerTtft(moved, factor), records: [] };
  };
}

describe('iari load --ab: blocks', () => {
  it('LOAD-COMPARE: alternates A B, B A, A B, B A with each side its own URL and token, warms up the first block of each side only, and keeps whole pairs', async () => {
    const calls: LoadConfig[] = [];
    const { result } = await runAb({ config, baseUrlB: 'http://127.0.0.1:2/v1', tokenB: 'iari_sk_b_token_0002', blockS: 3, run: fakeRun(1, calls) });
    expect(calls.map((c) => (c.baseUrl === config.baseUrl ? 'A' : 'B')).join('')).toBe('ABBAABBA');
    expect(calls.every((c) => c.token === (c.baseUrl === config.baseUrl ? 'iari_sk_a_token_0001' : 'iari_sk_b_token_0002'))).toBe(true);
    expect(calls.map((c) => c.warmupS)).toEqual([3, 3, 0, 0, 0, 0, 0, 0]);
    expect(calls.every((c) => c.durationS === 3 && c.requests === null)).toBe(true);
    expect(result.ab.pairs).toHaveLength(4);
    expect([0, 1, 2, 3].map(firstSide)).toEqual(['a', 'b', 'a', 'b']);
  });

  it('LOAD-COMPARE: with --ab-block-requests N each block ends after N requests, bounded by ten blocks\' time, so a starved client still fills it', async () => {
    const calls: LoadConfig[] = [];
    await runAb({ config, baseUrlB: 'http://127.0.0.1:2/v1', tokenB: 'iari_sk_b_token_0002', blockS: 3, blockRequests: 40, run: fakeRun(1, calls) });
    expect(calls).toHaveLength(8);
    expect(calls.every((c) => c.durationS === null && c.requests === 40 && c.maxDurationS === 30)).toBe(true);
  });

  it('LOAD-COMPARE: a side is its blocks end to end: counts add, and rates are over the sum of the block windows, not the whole run', () => {
    const blocks = [1, 2, 3].map((seed, i) => {
      const r = sampleLoadResult({ seed, durationS: 3, rate: 20, stall: false, errors: false });
      const at = Date.parse('2026-11-27T10:00:00Z') + i * 10_000;
      // A block's window runs a few ms over its length (the first here): the next block still follows at 3 s.
      return { result: { ...r, meta: { ...r.meta, measureStartEpochMs: at, measureEndEpochMs: at + 3000 + (i === 0 ? 4 : 0) } }, records: [] };
    });
    const { result } = joinBlocks(blocks, 'side-a');
    const finished = blocks.reduce((n, b) => n + b.result.counts.finished, 0);
    expect(result.counts.finished).toBe(finished);
    expect(result.throughput.windowS).toBeCloseTo(9, 6);
    expect(result.throughput.rps).toBeCloseTo(finished / 9, 2);
    expect(result.validity.warnings.filter((w) => w.includes('shard'))).toEqual([]);
  });

  it('LOAD-COMPARE: compare over the paired blocks finds B 50% slower at p95 (the gate trips) and holds a gate between identical sides (the pairs carry their own noise)', async () => {
    const slower = await runAb({ config: { ...config, durationS: 60 }, baseUrlB: 'http://127.0.0.1:2/v1', tokenB: 't', blockS: 3, run: fakeRun(1.5, []) });
    const rows = compareLoad(slower.result, slower.result.ab.b, 1, 0.05, undefined, null, slower.result.ab.pairs);
    const p95 = rows.find((r) => r.key === 'ttft.p95');
    expect(p95).toMatchObject({ test: 'paired', noise: 'paired' });
    const keys = new Set(rows.map((r) => r.key));
    expect(evaluateGates([parseGate('ttft.p95>+10%', keys)], rows, null)[0]?.outcome).toBe('trip');
    const same = await runAb({ config: { ...config, durationS: 60 }, baseUrlB: 'http://127.0.0.1:2/v1', tokenB: 't', blockS: 3, run: fakeRun(1, []) });
    const rowsSame = compareLoad(same.result, same.result.ab.b, 1, 0.05, undefined, null, same.result.ab.pairs);
    expect(evaluateGates([parseGate('ttft.p50>+10%', keys)], rowsSame, null)[0]?.outcome).toBe('hold');
    expect(rowsSame.find((r) => r.key === 'throughput.rps')).toMatchObject({ test: 'paired', noise: 'paired' });
  });
});
