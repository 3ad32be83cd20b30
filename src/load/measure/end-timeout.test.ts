import { describe, expect, it } from 'vitest';
import { timedOutAtEnd } from './end-timeout.ts';

const s = (x: number): bigint => BigInt(Math.round(x * 1e9));
// A 10 s measured window after 2 s of warmup, a 120 s request deadline.
const limits = { startNs: s(0), measureStartNs: s(2), stopNs: s(12), deadlineMs: 120_000 };

describe('timedOutAtEnd', () => {
  it('a request in flight at least as long as the whole measured window is a timeout', () => {
    expect(timedOutAtEnd(s(1), s(17), limits)).toMatch(/no answer for at least the whole measured window \(10 s\)/);
    expect(timedOutAtEnd(s(7), s(17), limits)).toMatch(/whole measured window/);
  });

  it('a request that began near the end and was cut by it is aborted at end (null)', () => {
    expect(timedOutAtEnd(s(11), s(17), limits)).toBeNull();
    expect(timedOutAtEnd(s(7.5), s(17), limits)).toBeNull();
  });

  it('a request past --request-timeout is a timeout even when it began near the end', () => {
    expect(timedOutAtEnd(s(11), s(17), { ...limits, deadlineMs: 3_000 })).toMatch(/past the request deadline of 3 s \(--request-timeout\)/);
  });

  it('an interrupted run (Ctrl-C) aborts every request in flight', () => {
    expect(timedOutAtEnd(s(1), s(17), limits, true)).toBeNull();
  });
});
