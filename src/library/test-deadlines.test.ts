import { describe, expect, it } from 'vitest';
import { paceNote, runDeadlineNotes, testTimeouts } from './test-deadlines.ts';
import { runTimeLeft } from '../checks/kernel/check-deadline.ts';

const none = { request: undefined, check: undefined, run: undefined };

describe('testTimeouts', () => {
  it('HDR-012: bounds the run at 5 min; against a real server the time actually spent waiting out 429s moves it back, up to the wait budget', () => {
    expect(testTimeouts(none, 'bundled-mock', 1000).runDeadline).toEqual({ at: 1000 + 300_000, ms: 300_000 });
    const real = testTimeouts(none, 'external', 0).runDeadline;
    expect(real).toEqual({ at: 300_000, ms: 300_000, waitCreditMs: 10 * 60_000 });
    expect(runTimeLeft(real, 300_000), 'no 429 waited: the deadline is 5 min').toBe(0);
    expect(runTimeLeft(real, 300_000, 90_000), '90 s waited out: 90 s more').toBe(90_000);
    expect(runTimeLeft(real, 300_000, 3_600_000), 'never more than the wait budget').toBe(600_000);
    expect(testTimeouts(none, 'external', 0, 0).runDeadline, '--max-rate-limit-wait 0: nothing is waited').toEqual({ at: 300_000, ms: 300_000 });
  });

  it('HDR-012: a flag wins over every default', () => {
    const t = testTimeouts({ request: 1500, check: 4000, run: 20_000 }, 'external', 5, 600_000);
    expect(t).toEqual({ requestTimeoutMs: 1500, checkTimeoutMs: 4000, runDeadline: { at: 20_005, ms: 20_000 } });
    expect(testTimeouts(none, 'bundled-mock', 0)).toMatchObject({ requestTimeoutMs: 10_000, checkTimeoutMs: 20_000 });
    expect(testTimeouts(none, 'external', 0)).toMatchObject({ requestTimeoutMs: 60_000, checkTimeoutMs: 180_000 });
  });
});

describe('paceNote and runDeadlineNotes with --pace', () => {
  const base = { root: 'http://127.0.0.1:1', token: 't', seed: 1, target: 'external' as const, includeLimits: false };
  it('says which pace applies and why', () => {
    expect(paceNote({ ...base, pacePerSecond: 10 }, false)).toMatch(/\/v1\/me reports no requests_per_minute: pacing requests at 10\/s/);
    expect(paceNote({ ...base, pacePerSecond: 0.5 }, true)).toMatch(/pacing requests at 0.5\/s \(--pace\)/);
    expect(paceNote({ ...base, requestsPerMinute: 120 }, false)).toMatch(/throttled to the 120 requests\/min \/v1\/me reports/);
  });
  it('warns before the run when the pace cannot fit a full run in --run-timeout, and not when it can', () => {
    const runDeadline = { at: 60_000, ms: 60_000 };
    expect(runDeadlineNotes('before', { ...base, pacePerSecond: 1, runDeadline }).join('\n')).toMatch(/paced at 1\/s, a full run needs about/);
    expect(runDeadlineNotes('before', { ...base, pacePerSecond: 10, runDeadline })).toEqual([]);
  });
});
