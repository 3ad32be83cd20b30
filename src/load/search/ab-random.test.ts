import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { startMockServer } from '../../../mock-server/index.ts';
import { run as loadCommand } from '../../cli/load-command.ts';
import { readAbSides } from '../../compare/compare-inputs.ts';
import { buildComparison } from '../../compare/compare-report.ts';
import { evaluateGates, runContext } from '../../compare/gate-outcome.ts';
import { parseGate } from '../../compare/gates.ts';
import { SIDE_HEADER, SideRouter, sideOf } from './ab-random.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-ab-random-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A dispatcher that keeps what it was asked to send. */
function recorder(seen: Dispatcher.DispatchOptions[]): Dispatcher {
  return { dispatch: (o: Dispatcher.DispatchOptions) => (seen.push(o), true), close: async () => undefined, destroy: async () => undefined } as unknown as Dispatcher;
}

describe('iari load --ab --ab-assign random', () => {
  it('LOAD-COMPARE: each request\'s side is a fair coin on the seed and its number: the same on every call, about half each way, another pattern for another seed', () => {
    const sides = Array.from({ length: 10_000 }, (_, seq) => sideOf(1, seq));
    expect(Array.from({ length: 10_000 }, (_, seq) => sideOf(1, seq))).toEqual(sides);
    const b = sides.filter((s) => s === 'b').length;
    expect(b).toBeGreaterThan(4800);
    expect(b).toBeLessThan(5200);
    const other = Array.from({ length: 10_000 }, (_, seq) => sideOf(2, seq));
    expect(other.filter((s, i) => s !== sides[i]).length).toBeGreaterThan(4500);
    // Runs of one side stay short (no alternation, no long streaks).
    let longest = 0;
    let run = 0;
    sides.forEach((s, i) => (longest = Math.max(longest, (run = i > 0 && s === sides[i - 1] ? run + 1 : 1))));
    expect(longest).toBeLessThan(25);
  });

  it("LOAD-COMPARE: the router sends a request marked B to B's origin under B's path with B's token, and takes the mark off; unmarked requests go to A as built", () => {
    const a: Dispatcher.DispatchOptions[] = [];
    const b: Dispatcher.DispatchOptions[] = [];
    const router = new SideRouter(
      { dispatcher: recorder(a), origin: 'http://127.0.0.1:1', rewrite: null },
      { dispatcher: recorder(b), origin: 'http://127.0.0.1:2', rewrite: { path: (p) => `/b${p.slice('/a'.length)}`, authorization: 'Bearer iari_sk_b_0002' } },
    );
    const handler = {} as Dispatcher.DispatchHandler;
    const base = { origin: 'http://127.0.0.1:1', method: 'POST' as const, path: '/a/v1/chat/completions' };
    router.dispatch({ ...base, headers: { authorization: 'Bearer iari_sk_a_0001', [SIDE_HEADER]: 'b' } }, handler);
    router.dispatch({ ...base, headers: { authorization: 'Bearer iari_sk_a_0001', [SIDE_HEADER]: 'a' } }, handler);
    router.dispatch({ ...base, headers: { authorization: 'Bearer iari_sk_a_0001' } }, handler);
    expect(b).toEqual([{ ...base, origin: 'http://127.0.0.1:2', path: '/b/v1/chat/completions', headers: { authorization: 'Bearer iari_sk_b_0002' } }]);
    expect(a).toEqual([
      { ...base, headers: { authorization: 'Bearer iari_sk_a_0001' } },
      { ...base, headers: { authorization: 'Bearer iari_sk_a_0001' } },
    ]);
  });

  it('LOAD-COMPARE: one run against two mocks (TTFT 20 and 80 ms) splits the requests between them, writes both sides and 1 s windows to load.json, and the compare trips ttft.p50>+10%', async () => {
    const fast = await startMockServer({ limits: false, ttftMs: 20, itlMs: 2, jitterMs: 0, receipts: false });
    const slow = await startMockServer({ limits: false, ttftMs: 80, itlMs: 2, jitterMs: 0, receipts: false });
    const saved = { a: process.env['IARI_TOKEN'], b: process.env['IARI_AB_TEST_B'] };
    process.env['IARI_TOKEN'] = fast.tokens.default;
    process.env['IARI_AB_TEST_B'] = slow.tokens.default;
    const dir = join(tmp, 'run');
    try {
      const code = await loadCommand(['--base-url', fast.url, '--ab', slow.url, '--ab-token-env', 'IARI_AB_TEST_B', '--ab-assign', 'random', '--ab-block', '1s', '--duration', '6s', '--concurrency', '4', '--max-tokens', '8', '--quiet', '--report', dir]);
      expect(code).toBe(0);
      const text = readFileSync(join(dir, 'load.json'), 'utf8');
      expect(text).not.toContain(slow.tokens.default);
      const r = JSON.parse(text) as { counts: { finished: number }; errors: { total: number }; metrics: { ttft: { percentiles: { p50: number } } }; scenario: { search: unknown }; meta: { mode: unknown }; ab: { order: string; seed: number; pairs: unknown[]; b: { counts: { finished: number }; errors: { total: number }; metrics: { ttft: { percentiles: { p50: number } } } } } };
      expect(r.ab.order).toBe('random');
      expect(r.ab.pairs).toHaveLength(6);
      expect(r.meta.mode).toMatchObject({ kind: 'closed', engine: 'undici', concurrency: 4 });
      expect(r.scenario.search).toEqual({ kind: 'ab', baseUrl: slow.url, block: '1s', assign: 'random' });
      expect(r.counts.finished).toBeGreaterThan(20);
      expect(r.ab.b.counts.finished).toBeGreaterThan(20);
      expect([r.errors.total, r.ab.b.errors.total]).toEqual([0, 0]);
      expect(r.ab.b.metrics.ttft.percentiles.p50 - r.metrics.ttft.percentiles.p50).toBeGreaterThan(40_000);
      const sides = readAbSides(dir);
      expect(sides).not.toBeNull();
      const rows = buildComparison(sides!.base, sides!.next).report.load?.rows ?? [];
      expect(rows.find((x) => x.key === 'ttft.p50')).toMatchObject({ test: 'paired', noise: 'paired' });
      // Each side's rate is a coin's share of one run: untested, never a gate's evidence.
      expect(rows.find((x) => x.key === 'throughput.rps')).toMatchObject({ test: null, untested: { kind: 'coin' } });
      const [gate] = evaluateGates([parseGate('ttft.p50>+10%', new Set(rows.map((x) => x.key)))], rows, null, runContext(sides!.base.load, sides!.next.load));
      // A busy machine may lag the client: then the paired interval still trips (it only dilutes), as here.
      expect(gate?.outcome).toBe('trip');
    } finally {
      for (const [k, v] of [['IARI_TOKEN', saved.a], ['IARI_AB_TEST_B', saved.b]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await fast.close();
      await slow.close();
    }
  }, 60_000);
});
