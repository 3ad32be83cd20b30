import { describe, expect, it } from 'vitest';
import { Collector } from './collector.ts';
import { decodeHistogram } from './hdr.ts';
import type { RequestTiming } from './request-timing.ts';

const S = 1_000_000_000n;
const timing = (seq: number, at: bigint, e2eMs: number): RequestTiming => ({ seq, intendedNs: at, sentNs: at, headersNs: at + 1_000_000n, endNs: at + BigInt(e2eMs) * 1_000_000n, status: 200, requestId: null, tokenEvents: [{ atNs: at + 2_000_000n, tokens: 1 }], outputTokens: 1, promptTokens: 3, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false });

describe('per-second slices in bounded memory', () => {
  it('LOAD-SOAK: seconds behind the newest are kept encoded; a late request thaws its second and every slice keeps all its samples and counts', () => {
    const c = new Collector({ measureStartNs: 0n, measureStartEpochMs: 1_000_000_000_000, openLoop: true, slos: [], shard: null });
    for (let s = 0; s < 10; s++) {
      for (let k = 0; k < 5; k++) {
        c.onStart(BigInt(s) * S);
        c.onFinish(timing(s * 10 + k, BigInt(s) * S, 100 + k));
      }
    }
    // Second 2 ends long after second 9 began: a late arrival (open loop) and a request that ends in it.
    c.onStart(2n * S + 500_000_000n);
    c.onFinish(timing(999, 2n * S, 300));
    const slices = c.timeslices();
    expect(slices.map((t) => t.tS)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(slices.map((t) => t.finished)).toEqual([5, 5, 6, 5, 5, 5, 5, 5, 5, 5]);
    expect(slices[2]?.started).toBe(6);
    const e2e = decodeHistogram(slices[2]!.e2eHdr);
    expect(e2e.totalCount).toBe(6);
    expect(e2e.maxValue).toBeGreaterThanOrEqual(299_000);
    expect(slices[2]?.e2eP99Us).toBeGreaterThanOrEqual(299_000);
    expect(slices.reduce((n, t) => n + decodeHistogram(t.ttftHdr).totalCount, 0)).toBe(51);
  });
});
