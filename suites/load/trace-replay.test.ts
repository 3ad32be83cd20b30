import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { readTrace, TRACE_BLOCK_TOKENS, type TraceSpec } from '../../src/load/workloads/trace.ts';
import { seededRandom } from '../../src/seeded-random.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-trace-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * A Mooncake-shaped trace whose entries share hash-id prefixes: every entry's input is its full
 * blocks plus a tail of its own shorter than one mock cache block (16 tokens), so what a prefix
 * cache can serve is exactly 512 tokens per hash id shared with an earlier entry.
 */
function mooncakeTrace(n: number, seed: number): { lines: { timestamp: number; input_length: number; output_length: number; hash_ids: number[] }[]; expectedCached: number[] } {
  const rnd = seededRandom(seed);
  const lines = [];
  let t = 40;
  for (let i = 0; i < n; i++) {
    t += 30 + Math.floor(rnd() * 90);
    const k = 1 + Math.floor(rnd() * 3);
    // Three roots, two children each: plenty of shared prefixes, some new ones.
    const ids = [Math.floor(rnd() * 3)];
    for (let j = 1; j < k; j++) ids.push((ids[j - 1] ?? 0) * 10 + 1 + Math.floor(rnd() * 2) + 100 * j);
    lines.push({ timestamp: t, input_length: TRACE_BLOCK_TOKENS * k + 3 + Math.floor(rnd() * 10), output_length: 2 + Math.floor(rnd() * 4), hash_ids: ids });
  }
  // Independent expectation: the longest hash-id prefix seen in an earlier entry, in 512-token blocks.
  const seen = new Set<string>();
  const expectedCached = lines.map((l) => {
    let j = 0;
    while (j < l.hash_ids.length && seen.has(l.hash_ids.slice(0, j + 1).join(','))) j++;
    for (let m = 1; m <= l.hash_ids.length; m++) seen.add(l.hash_ids.slice(0, m).join(','));
    return j * TRACE_BLOCK_TOKENS;
  });
  return { lines, expectedCached };
}

/**
 * How late each request reached the mock against the trace (ms): the median within 2 ms. A starved
 * client (the shared 2-core host) sends late; the run must then say so instead of passing as honest.
 */
function expectOnTime(late: number[], validity: { valid: boolean; warnings: string[] }): void {
  const sorted = [...late].sort((a, b) => a - b);
  if (validity.valid) expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(2);
  else expect(validity.warnings.join(' ')).toMatch(/event-loop lag|schedule lag/);
}

describe('trace replay against the mock (its request log and prefix cache are the ground truth)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 10, itlMs: 2, completionTokens: 3, tokensPerChunk: 1, prefixCache: { blockTokens: 16, capacityBlocks: 100_000, prefillMsPerToken: 0.001 } });
  });
  afterAll(() => mock.close());

  /** Replays `trace` open loop until its last entry: the run's result, its records as they came, and its start on the monotonic clock. */
  async function replay(trace: TraceSpec): Promise<{ result: LoadResult; records: RequestRecord[]; startNs: bigint }> {
    const records: RequestRecord[] = [];
    let startNs = 0n;
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'open', rate: 0, arrival: 'trace' }, {
        durationS: null,
        workload: { input: { kind: 'prompts' }, output: null, maxTokensField: 'max_tokens', extraBody: null, trace },
        onStart: (ns) => (startNs = ns),
        onRecord: (r) => records.push(r),
      }),
    );
    return { result, records, startNs };
  }

  it('LOAD-TRACE: a Mooncake trace arrives at the mock at its timestamps, each prompt is its input_length, and the cached tokens are 512 per shared hash id, as the mock\'s log says', async () => {
    const { lines, expectedCached } = mooncakeTrace(30, 11);
    const file = join(tmp, 'mooncake.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const trace = await readTrace(file, { speed: 1, window: null });
    const { result, records, startNs } = await replay(trace);
    expect(result.counts.failed).toBe(0);
    expect(records).toHaveLength(30);
    expect(result.meta.mode).toMatchObject({ kind: 'open', arrival: 'trace', trace: { format: 'mooncake', kept: 30 } });
    const first = lines[0]?.timestamp ?? 0;
    const late: number[] = [];
    const cache = mock.core.state.prefixCache!;
    let prompt = 0;
    let cached = 0;
    for (const r of records) {
      const line = lines[r.seq]!;
      const wantMs = line.timestamp - first;
      // iari's intended time is the trace's, to the microsecond.
      expect(Math.abs(r.intendedUs / 1000 - wantMs)).toBeLessThan(0.002);
      // The mock's receipt of the whole request, on the same monotonic clock.
      const got = mock.sendLog.get(r.requestId ?? '');
      expect(got, `send log of ${r.requestId}`).toBeDefined();
      const atMs = Number(got!.receivedNs - startNs) / 1e6;
      late.push(atMs - wantMs);
      // The mock received it after iari sent it, and iari sent it no earlier than the trace says.
      expect(r.sentUs).toBeGreaterThanOrEqual(r.intendedUs);
      expect(atMs).toBeGreaterThanOrEqual(r.sentUs / 1000);
      const truth = cache.record(r.requestId ?? '')!;
      // The prompt is exactly input_length o200k tokens (plus the role id the mock counts for one user message).
      expect(r.requested?.prompt).toBe(line.input_length);
      expect(r.cachedTokens).toBe(truth.cachedTokens);
      expect(truth.cachedTokens, `entry ${r.seq} ${JSON.stringify(line.hash_ids)}`).toBe(expectedCached[r.seq]);
      prompt += truth.promptTokens;
      cached += truth.cachedTokens;
    }
    expectOnTime(late, result.validity);
    expect(cached).toBeGreaterThan(0);
    expect(result.cache?.hitRate).toBeCloseTo(cached / prompt, 5);
    expect(result.cache?.cachedTokens).toBe(cached);
    // Schedule lag is measured from the trace's times.
    expect(result.metrics.schedule_lag?.count).toBe(30);
  }, 60_000);

  it('LOAD-TRACE: --trace-speed and --trace-window replay only the window, its times divided by the speed, on the mock\'s clock', async () => {
    const { lines } = mooncakeTrace(30, 12);
    const file = join(tmp, 'window.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const window = { startS: (lines[5]?.timestamp ?? 0) / 1000, endS: (lines[25]?.timestamp ?? 0) / 1000 };
    const trace = await readTrace(file, { speed: 2, window });
    expect(trace.entries).toHaveLength(20);
    const { result, records, startNs } = await replay(trace);
    expect(records).toHaveLength(20);
    const late = records.map((r) => {
      const line = lines[r.seq + 5]!;
      const wantMs = (line.timestamp - window.startS * 1000) / 2;
      expect(r.requested?.prompt).toBe(line.input_length);
      return Number(mock.sendLog.get(r.requestId ?? '')!.receivedNs - startNs) / 1e6 - wantMs;
    });
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    expectOnTime(late, result.validity);
  }, 60_000);

  it('LOAD-TRACE: a BurstGPT trace replays its Timestamp seconds and token columns, read by name, its failed rows skipped', async () => {
    const file = join(tmp, 'burst.csv');
    const rows = [[0.1, 'ChatGPT', 40, 3], [0.35, 'GPT-4', 25, 0], [0.5, 'ChatGPT', 60, 4], [0.9, 'GPT-4', 12, 2]] as const;
    writeFileSync(file, 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n' + rows.map(([t, m, i, o]) => `${t},${m},${i},${o},${i + o},Conversation log`).join('\n') + '\n');
    const trace = await readTrace(file, { speed: 1, window: null });
    expect(trace.info).toMatchObject({ format: 'burstgpt', read: 4, kept: 3, skipped: 1 });
    const { records, startNs } = await replay(trace);
    const kept = rows.filter((r) => r[3] > 0);
    expect(records.map((r) => r.requested)).toEqual(kept.map(([, , i, o]) => ({ prompt: i, output: o })));
    for (const r of records) {
      const wantMs = ((kept[r.seq]?.[0] ?? 0) - 0.1) * 1000;
      const atMs = Number(mock.sendLog.get(r.requestId ?? '')!.receivedNs - startNs) / 1e6;
      expect(atMs - wantMs).toBeGreaterThanOrEqual(0);
      expect(atMs - wantMs).toBeLessThan(150);
      // The mock counts its chat template (7 tokens for one user message, as OpenAI does) beside the prompt's own tokens.
      expect(r.promptTokens).toBe((kept[r.seq]?.[2] ?? 0) + 7);
    }
  }, 60_000);
});
