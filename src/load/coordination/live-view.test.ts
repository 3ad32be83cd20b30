import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, record } from '../results/hdr.ts';
import type { Timeslice } from '../results/load-result.ts';
import { liveFigures, liveLine } from './live-view.ts';

function slice(epochS: number, ttftUs: number[], failed = 0): Timeslice {
  const h = newHistogram();
  for (const v of ttftUs) record(h, v);
  const empty = encodeHistogram(newHistogram());
  return { epochS, tS: 0, started: ttftUs.length + failed, finished: ttftUs.length + failed, ok: ttftUs.length, failed, outputTokens: 0, inFlight: 0, ttftHdr: encodeHistogram(h), e2eHdr: empty, itlHdr: empty, ttftP50Us: null, ttftP99Us: null, e2eP50Us: null, e2eP99Us: null, itlP99Us: null };
}
const shard = (slices: Timeslice[], totals: [number, number], dead = false) => ({ started: totals[0], finished: totals[0], failed: totals[1], dead, slices: new Map(slices.map((s) => [s.epochS, s])) });

describe('the coordinator\'s live view', () => {
  it('merges one second over every shard from their histograms: p50 and p95 of all samples, never an average of percentiles', () => {
    // Shard A: 19 fast answers; shard B: 1 slow one. Averaging the shards' p95s would give about 505 ms.
    const a = shard([slice(100, Array.from({ length: 19 }, () => 10_000))], [19, 0]);
    const b = shard([slice(100, [1_000_000], 2), slice(101, [50_000])], [4, 2]);
    const f = liveFigures([a, b], 100);
    expect(f.finished).toBe(22);
    expect(f.failed).toBe(2);
    expect(f.ttftP50Us! / 1000).toBeCloseTo(10, 0);
    expect(f.ttftP95Us! / 1000).toBeCloseTo(10, 0);
    expect(f.totalFinished).toBe(23);
    expect(liveFigures([a, b], 101).finished).toBe(1);
    expect(liveFigures([a, b], 99).ttftP50Us).toBeNull();
  });

  it('one line in the style of iari load\'s progress: elapsed, live shards, totals and the second\'s figures', () => {
    const line = liveLine([shard([slice(100, [20_000, 30_000])], [10, 1]), shard([], [5, 0], true)], 100, 99_000, 2);
    expect(line).toMatch(/^2\.0s  shards 1\/2  done 15 \(\+2\/s\)  errors 1 \(\+0\/s\)  ttft p50 20\.0\dms p95 30\.0\dms\n$/);
  });
});
