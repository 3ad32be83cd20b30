import { describe, expect, it } from 'vitest';
import { busyOf, leakOf, releaseOf, type BusyRead } from './cancel-release.ts';

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));
const read = (atMs: number, busy: number | null): BusyRead => ({ atNs: ms(atMs), busy });

describe("the server's release of cut requests and the leak finding", () => {
  it('LOAD-CANCEL: a cut is released at the first read whose count no longer holds it, less the requests the client still has in flight (oldest cut first)', () => {
    // Two requests in flight from 0 ms; the first is cut at 100 ms, the second at 150 ms and the server lets go of them at 120 and 260 ms.
    const spans = [{ sentNs: ms(0), endNs: ms(100) }, { sentNs: ms(0), endNs: ms(150) }, { sentNs: ms(110), endNs: null }];
    const reads = [read(50, 2), read(120, 2), read(200, 2), read(300, 1)];
    const r = releaseOf({ atNs: ms(-10), busy: 0 }, reads, [ms(100), ms(150)], spans, 500, 50);
    // At 120: busy 2, client in flight 2 (the second and the third): nothing held: the cut at 100 is released (20 ms).
    // At 200: busy 2, client in flight 1: one held (the cut at 150). At 300: busy 1, in flight 1: released (150 ms).
    expect(r).toMatchObject({ cuts: 2, released: 2, unreleased: 0, p50Ms: 20, maxMs: 150, resolutionMs: 100 });
    expect(r?.method).toContain('every 50 ms');
  });

  it('LOAD-CANCEL: a read that shows a release the next one takes back (a request the server finished just before the client read its end) releases nothing', () => {
    // One cut at 100 ms the server never lets go of; another request answered at 10 ms ends at 205 ms on the client, but 195 ms on the server.
    const spans = [{ sentNs: ms(0), endNs: ms(100) }, { sentNs: ms(10), endNs: ms(205) }];
    const r = releaseOf({ atNs: ms(-10), busy: 0 }, [read(150, 2), read(200, 1), read(250, 1), read(300, 1)], [ms(100)], spans, 500, 50);
    expect(r).toMatchObject({ cuts: 1, released: 0, unreleased: 1 });
  });

  it('LOAD-CANCEL: a cut the server never lets go of stays unreleased; a pre-run level above 0 is not taken for held work', () => {
    const spans = [{ sentNs: ms(0), endNs: ms(100) }];
    const r = releaseOf({ atNs: ms(-10), busy: 3 }, [read(50, 4), read(200, 4), read(700, 4), read(900, null)], [ms(100)], spans, 500, null);
    expect(r).toMatchObject({ cuts: 1, released: 0, unreleased: 1, p50Ms: null });
    const freed = releaseOf({ atNs: ms(-10), busy: 3 }, [read(50, 4), read(200, 3)], [ms(100)], spans, 500, null);
    expect(freed).toMatchObject({ released: 1, unreleased: 0, maxMs: 100 });
  });

  it('LOAD-CANCEL: the leak finding says leak when the count stays above its pre-run level, released when it came back, and never "no leak" without both reads and a running gauge', () => {
    expect(leakOf(read(0, 0), read(5000, 2), ms(4000), 30)).toMatchObject({ verdict: 'leak', before: 0, after: 2, settleMs: 1000 });
    expect(leakOf(read(0, 0), read(5000, 2), ms(4000), 30).message).toMatch(/^LEAK: the server still holds 2 requests more than before the run/);
    expect(leakOf(read(0, 1), read(5000, 1), ms(4000), 30)).toMatchObject({ verdict: 'released' });
    for (const [before, after] of [[undefined, read(5000, 0)], [read(0, 0), undefined], [read(0, null), read(5000, null)], [read(0, 0), read(5000, null)]] as const) {
      const f = leakOf(before, after, ms(4000), 3);
      expect(f.verdict).toBe('not observed');
      expect(f.message).toContain('not a "no leak"');
    }
    expect(busyOf({ running: 2, waiting: 3 })).toBe(5);
    expect(busyOf({ running: 2 })).toBe(2);
    expect(busyOf({ waiting: 3 })).toBeNull();
  });
});
