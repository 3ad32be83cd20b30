// `iari load --ab URL_B`: the same workload against the target (A) and a second server (B) in one
// run (random assignment per request: ab-random.ts), alternating in short blocks (A B, B A, A B, ...: the ABBA order cancels a linear drift within
// each two pairs), so the machine's and the network's drift hits both alike. Each block is an
// ordinary short run (run-load.ts); the blocks of a side are laid end to end and merged exactly
// (merge.ts), and load.json keeps every block's histograms so `iari report compare RUN` compares
// A and B over the paired blocks (compare/paired-differences.ts).
import { setMaxListeners } from 'node:events';
import type { LoadResult, MetricName, RequestRecord } from '../results/load-result.ts';
import { metricNames } from '../results/load-result.ts';
import { mergeResults } from '../results/merge.ts';
import type { LoadConfig } from '../run-load.ts';

export const AB_SCHEMA = 'iari.ab/1' as const;

/** Pairs of blocks in a run of `durationS` measured seconds (both sides together; random: windows of blockS, each a pair). */
export function abPairs(durationS: number, blockS: number, assign: 'blocks' | 'random' = 'blocks'): number {
  return Math.floor(durationS / (assign === 'random' ? blockS : 2 * blockS));
}

export interface AbBlock {
  runId: string;
  measureStartEpochMs: number;
  windowS: number;
  finished: number;
  ok: number;
  failed: number;
  outputTokens: number;
  goodRequests: number;
  /** Each metric's HDR histogram of the block (base64, as load.json's metrics). */
  hdr: Partial<Record<MetricName, string>>;
}

export interface AbSection {
  schema: typeof AB_SCHEMA;
  /** The second server, as given (credentials are never part of it: the token is a header). */
  baseUrlB: string;
  blockS: number;
  /** ABBA: blocks one side at a time (A B, B A, ...); random: every request to a side at random, pairs are windows of blockS (ab-random.ts). */
  order: 'ABBA' | 'random';
  /** random: the seed of the assignment (with each request's number). */
  seed?: number;
  /** Block i of a and of b ran back to back. */
  pairs: { a: AbBlock; b: AbBlock }[];
  /** Side B merged as side A is (load.json itself is side A). */
  b: LoadResult;
}

/** Which side runs first in pair k: A B, B A, A B, B A ... */
export function firstSide(k: number): 'a' | 'b' {
  return k % 2 === 0 ? 'a' : 'b';
}

function block(r: LoadResult): AbBlock {
  const hdr: AbBlock['hdr'] = {};
  for (const m of metricNames) {
    const h = r.metrics[m]?.hdr;
    if (h !== undefined) hdr[m] = h;
  }
  return {
    runId: r.meta.runId,
    measureStartEpochMs: r.meta.measureStartEpochMs,
    windowS: r.throughput.windowS,
    finished: r.counts.finished,
    ok: r.counts.ok,
    failed: r.counts.failed,
    outputTokens: r.counts.outputTokens,
    goodRequests: r.goodput.goodRequests,
    hdr,
  };
}

/**
 * The blocks of one side as one run: each block is moved in time to follow the one before (whole
 * seconds, so the timeslices stay aligned), then merged exactly; rates are over the blocks' windows.
 */
export function joinBlocks(blocks: readonly { result: LoadResult; records: RequestRecord[] }[], runId: string): { result: LoadResult; records: RequestRecord[] } {
  const first = blocks[0]?.result;
  if (first === undefined) throw new Error('joinBlocks: no blocks');
  let at = first.meta.measureStartEpochMs;
  const moved: LoadResult[] = [];
  const records: RequestRecord[] = [];
  for (const { result: r, records: rs } of blocks) {
    const shiftMs = at - r.meta.measureStartEpochMs;
    const shiftS = Math.round(shiftMs / 1000);
    const windowMs = r.meta.measureEndEpochMs - r.meta.measureStartEpochMs;
    moved.push({
      ...r,
      meta: { ...r.meta, measureStartEpochMs: r.meta.measureStartEpochMs + shiftS * 1000, measureEndEpochMs: r.meta.measureStartEpochMs + shiftS * 1000 + windowMs },
      timeslices: r.timeslices.map((s) => ({ ...s, epochS: s.epochS + shiftS })),
      shard: null,
    });
    const offsetUs = (r.meta.measureStartEpochMs + shiftS * 1000 - first.meta.measureStartEpochMs) * 1000;
    for (const x of rs) records.push({ ...x, sentUs: x.sentUs + offsetUs });
    at = r.meta.measureStartEpochMs + shiftS * 1000 + Math.max(1, Math.round(windowMs / 1000)) * 1000;
  }
  const merged = mergeResults(moved, runId);
  // The blocks are not shards of one load: the level is one block's, and merge's shard warnings do not apply.
  const warnings = moved.flatMap((r) => r.validity.warnings.map((w) => `block ${r.meta.runId}: ${w}`));
  return {
    result: { ...merged, meta: { ...merged.meta, mode: first.meta.mode }, mergedFrom: null, validity: { ...merged.validity, valid: moved.every((r) => r.validity.valid), warnings } },
    records,
  };
}

export interface AbRunOptions {
  /** Side A's configuration (its durationS is the whole measured time of the run, both sides). */
  config: LoadConfig;
  baseUrlB: string;
  /** The bearer token for B (A's is never sent to another origin unless given for B too). */
  tokenB: string;
  blockS: number;
  /** Each block ends after this many measured requests (at most 10 blocks' time); null: after blockS. */
  blockRequests?: number | null;
  run: (config: LoadConfig) => Promise<{ result: LoadResult; records: RequestRecord[] }>;
  onBlock?: (side: 'a' | 'b', pair: number, pairs: number) => void;
}

export async function runAb(o: AbRunOptions): Promise<{ result: LoadResult & { ab: AbSection }; records: RequestRecord[] }> {
  const pairs = abPairs(o.config.durationS ?? 0, o.blockS);
  // Every block listens on the run's abort signal while it runs: more than the default 10 over a run.
  if (o.config.signal !== undefined) setMaxListeners(Math.max(10, 2 * pairs + 10), o.config.signal);
  const sides = { a: [] as { result: LoadResult; records: RequestRecord[] }[], b: [] as { result: LoadResult; records: RequestRecord[] }[] };
  for (let k = 0; k < pairs && o.config.signal?.aborted !== true; k++) {
    const order = firstSide(k) === 'a' ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      o.onBlock?.(side, k + 1, pairs);
      // The first block of each side warms up (--warmup, at least one block long): the client's
      // first requests pay for compiling and connecting, which would fall on A alone.
      // A block of --ab-block-requests lasts as long as the machine needs for them (a starved
      // client still gets its count), up to ten blocks' time.
      const length = (o.blockRequests ?? null) === null ? { durationS: o.blockS, requests: null } : { durationS: null, requests: o.blockRequests as number, maxDurationS: 10 * o.blockS };
      sides[side].push(await o.run({ ...o.config, runId: `${o.config.runId}-${side}${k + 1}`, baseUrl: side === 'a' ? o.config.baseUrl : o.baseUrlB, token: side === 'a' ? o.config.token : o.tokenB, ...length, warmupS: k === 0 ? Math.max(o.config.warmupS, o.blockS) : 0 }));
    }
  }
  // An interrupt can leave the last pair with one side: only whole pairs are compared.
  const n = Math.min(sides.a.length, sides.b.length);
  if (n === 0) throw new Error('iari load --ab: interrupted before a pair of blocks ran');
  const a = joinBlocks(sides.a.slice(0, n), o.config.runId);
  const b = joinBlocks(sides.b.slice(0, n), `${o.config.runId}-b`);
  const ab: AbSection = {
    schema: AB_SCHEMA,
    baseUrlB: o.baseUrlB,
    blockS: o.blockS,
    order: 'ABBA',
    pairs: sides.a.slice(0, n).map((x, i) => ({ a: block(x.result), b: block((sides.b[i] as { result: LoadResult }).result) })),
    b: b.result,
  };
  return { result: { ...a.result, ab }, records: a.records };
}
