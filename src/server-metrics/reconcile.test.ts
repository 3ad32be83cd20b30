import { describe, expect, it } from 'vitest';
import { reconcile, reconcileHeld, type ClientTotals, type ReconcileInput } from './reconcile.ts';

const client = (over: Partial<ClientTotals> = {}): ClientTotals => ({ requests: 10, ok: 10, notOk: 0, usageReported: 10, completionTokens: 500, promptTokens: 300, promptReported: 10, cachedTokens: 40, cachedReported: 10, unreportedMaxTokens: 0, ttftCount: 10, ttftSumUs: 10 * 50_000, ...over });
const input = (over: Partial<ReconcileInput> = {}): ReconcileInput => ({
  status: 'ok',
  counters: { generatedTokens: { delta: 500 }, promptTokens: { delta: 300 }, cachedTokens: { delta: 40 }, requestsFinished: { delta: 10 } },
  histograms: { ttft: { window: { count: 10, meanUs: 40_000 } } },
  client: client(),
  decreaseCount: 0,
  decreases: [],
  ...over,
});
const byId = (fs: ReturnType<typeof reconcile>) => Object.fromEntries(fs.map((f) => [f.id, f]));

describe('reconciliation', () => {
  it('exact when every answer reported usage: one token off either way disagrees, with both numbers in the message', () => {
    expect(reconcile(input()).every((f) => f.verdict === 'agree')).toBe(true);
    const over = byId(reconcile(input({ counters: { generatedTokens: { delta: 501 } } })));
    expect(over['generated_tokens']).toMatchObject({ verdict: 'disagree', server: 501, client: 500, tolerance: { below: 0, above: 0 } });
    expect(over['generated_tokens']!.message).toBe("server counted 501 generated tokens; the answers' usage says 500");
    expect(byId(reconcile(input({ counters: { generatedTokens: { delta: 499 } } })))['generated_tokens']!.verdict).toBe('disagree');
  });

  it('requests without usage let the server count up to their max_tokens more, never less than the answers said', () => {
    const c = client({ usageReported: 8, notOk: 2, ok: 8, unreportedMaxTokens: 128 });
    expect(byId(reconcile(input({ client: c, counters: { generatedTokens: { delta: 628 } } })))['generated_tokens']!.verdict).toBe('agree');
    expect(byId(reconcile(input({ client: c, counters: { generatedTokens: { delta: 629 } } })))['generated_tokens']!.verdict).toBe('disagree');
    expect(byId(reconcile(input({ client: c, counters: { generatedTokens: { delta: 499 } } })))['generated_tokens']!.verdict).toBe('disagree');
  });

  it('a shard holds only the lower bound: the other shards load the same server', () => {
    const f = byId(reconcile(input({ otherShards: 3, counters: { generatedTokens: { delta: 2000 } } })))['generated_tokens']!;
    expect(f).toMatchObject({ verdict: 'agree', tolerance: { below: 0, above: null } });
    expect(f.tolerance.why).toMatch(/3 other shard\(s\)/);
  });

  it('merged shards that cannot be joined exactly (unbounded): a count at or above the usage is no_data, never a pass; below it still disagrees; server.reconcile then has no pass', () => {
    const why = '1 of the 2 shards recorded no read before their priming request';
    const held = reconcile(input({ unbounded: why, counters: { generatedTokens: { delta: 512 }, promptTokens: { delta: 300 }, cachedTokens: { delta: 40 }, requestsFinished: { delta: 11 } } }));
    expect(byId(held)['generated_tokens']).toMatchObject({ verdict: 'no_data', server: 512, client: 500, tolerance: { below: 0, above: null } });
    expect(byId(held)['generated_tokens']!.tolerance.why).toContain(why);
    expect(held.filter((f) => f.id !== 'counters_monotonic').map((f) => f.verdict)).toEqual(['no_data', 'no_data', 'no_data', 'no_data', 'no_data']);
    expect(reconcileHeld(held)).toBeNull();
    const under = byId(reconcile(input({ unbounded: why, counters: { generatedTokens: { delta: 499 } } })));
    expect(under['generated_tokens']!.verdict).toBe('disagree');
  });

  it('TTFT: the server\'s mean may be lower by any amount, higher by at most 1 ms', () => {
    expect(byId(reconcile(input({ histograms: { ttft: { window: { count: 10, meanUs: 51_000 } } } })))['ttft']!.verdict).toBe('agree');
    expect(byId(reconcile(input({ histograms: { ttft: { window: { count: 10, meanUs: 51_001 } } } })))['ttft']!.verdict).toBe('disagree');
  });

  it('a counter that went down disagrees; unpublished counters have no data; server.reconcile needs data to hold', () => {
    expect(byId(reconcile(input({ decreaseCount: 1, decreases: [{ series: 'x_total', from: 5, to: 2 }] })))['counters_monotonic']).toMatchObject({ verdict: 'disagree', server: 1, message: '1 counter decrease(s), e.g. x_total went from 5 to 2' });
    const none = reconcile(input({ counters: {}, histograms: {} }));
    expect(none.filter((f) => f.verdict === 'no_data').map((f) => f.id)).toEqual(['generated_tokens', 'prompt_tokens', 'cached_tokens', 'requests_finished', 'ttft']);
    expect(reconcileHeld(none)).toBeNull();
    expect(reconcileHeld(reconcile(input()))).toBe(true);
    expect(reconcile(input({ status: 'nothing' }))).toEqual([]);
  });
});
