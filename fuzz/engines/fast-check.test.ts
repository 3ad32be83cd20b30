import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { execute } from '../execute.ts';
import { holds, InvariantBroken, type FuzzTarget } from '../target.ts';
import { runFastCheck } from './fast-check.ts';

// A parser with a planted bug: it breaks its invariant on any input holding "{]".
const planted: FuzzTarget = {
  name: 'planted',
  sources: [],
  invariants: ['no "{]" in the input'],
  maxLen: 4096,
  timeBoundMs: 50,
  valid: fc.string({ unit: fc.constantFrom('{', '[', ']', '}', 'x') }).map((s) => new TextEncoder().encode(s)),
  run: (input) => holds(!Buffer.from(input).toString('latin1').includes('{]'), () => 'planted: "{]" found'),
};

describe('the fuzz engines find what breaks an invariant', () => {
  it('fast-check finds the planted bug, shrinks and reduces it to "{]" and gives a seed that replays it', async () => {
    const r = await runFastCheck(planted, [], { seconds: 20 });
    expect(r.finding?.error).toMatch(/planted: "\{\]" found/);
    expect(Buffer.from(r.finding?.input ?? []).toString('latin1')).toBe('{]');
    const again = await runFastCheck(planted, [], { seconds: 20, seed: r.finding?.seed ?? 0, path: r.finding?.path ?? '' });
    expect(again.finding?.error).toMatch(/planted/);
  });

  it('a clean parser runs until the time box and reports its executions', async () => {
    const clean: FuzzTarget = { ...planted, run: () => undefined };
    const r = await runFastCheck(clean, [new Uint8Array([1, 2, 3])], { seconds: 1 });
    expect(r.finding).toBeNull();
    expect(r.executions).toBeGreaterThan(100);
  });

  it('an input over the time bound is a finding only when it stays over it on the fastest of three runs', () => {
    let calls = 0;
    const slowOnce: FuzzTarget = {
      ...planted,
      run: () => {
        calls++;
        if (calls === 1) for (const end = performance.now() + 80; performance.now() < end; );
      },
    };
    expect(() => execute(slowOnce, new Uint8Array(1))).not.toThrow();
    expect(calls).toBe(2);
    const slow: FuzzTarget = { ...planted, run: () => void (() => { for (const end = performance.now() + 80; performance.now() < end; ); })() };
    expect(() => execute(slow, new Uint8Array(1))).toThrow(InvariantBroken);
  });
});
