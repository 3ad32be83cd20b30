import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reduce } from './reduce.ts';
import { holds, utf8, type FuzzTarget } from './target.ts';

const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');
// Two planted bugs: "{]" breaks one invariant, "[}" another; their messages carry the input's length.
const twoBugs: FuzzTarget = {
  name: 'two-bugs',
  sources: [],
  invariants: [],
  maxLen: 4096,
  timeBoundMs: 50,
  valid: fc.constant(new Uint8Array()),
  run: (input) => {
    const s = latin1(input);
    holds(!s.includes('{]'), () => `brace then bracket in ${input.length} bytes`);
    holds(!s.includes('[}'), () => `bracket then brace in ${input.length} bytes`);
  },
};

describe('a finding reduced to the bytes it needs', () => {
  it('erases every byte the failure does not need, whatever the numbers in its message', async () => {
    expect(latin1(await reduce(twoBugs, utf8('xx{\n{x]{]yy\n'.repeat(50)), { ms: 10_000 }))).toBe('{]');
  });

  it('keeps the same invariant: an input breaking the first never becomes one breaking only the second', async () => {
    expect(latin1(await reduce(twoBugs, utf8('[}..{]..[}'), { ms: 10_000 }))).toBe('{]');
  });

  it('gives back an input that breaks nothing as it is', async () => {
    const clean = utf8('{}[]');
    expect(await reduce(twoBugs, clean, { ms: 10_000 })).toBe(clean);
  });
});
