import { describe, expect, it } from 'vitest';
import { estimateLeftMs, PROGRESS_EVERY_MS, progressText, testProgress } from './test-progress.ts';

/** A fake clock whose interval fires when time is advanced past it. */
function fakeTimers() {
  let t = 1_000_000;
  const tasks: { fn: () => void; ms: number; next: number }[] = [];
  return {
    now: () => t,
    timers: {
      every: (fn: () => void, ms: number) => {
        const task = { fn, ms, next: t + ms };
        tasks.push(task);
        return task;
      },
      cancel: (task: unknown) => void tasks.splice(tasks.indexOf(task as (typeof tasks)[number]), 1),
    },
    advance(ms: number) {
      const end = t + ms;
      for (;;) {
        const due = tasks.filter((k) => k.next <= end).sort((a, b) => a.next - b.next)[0];
        if (due === undefined) break;
        t = due.next;
        due.next += due.ms;
        due.fn();
      }
      t = end;
    },
  };
}

describe('iari test progress (issue 37 item 3)', () => {
  it('in a CI log (not a TTY): one line at least every 10 s with area, checks done of total, elapsed and an estimate, even while one check runs long', () => {
    const clock = fakeTimers();
    const out: string[] = [];
    const p = testProgress({ write: (s) => out.push(s), tty: false, now: clock.now, timers: clock.timers });
    clock.advance(4_000);
    p.onResult(['CHAT-001'], 10, 100);
    expect(out).toEqual([]);
    clock.advance(6_000);
    expect(out).toEqual(['iari test: 10 s  area CHAT  checks 10/100  about 90 s left\n']);
    // A long check: nothing finishes, the lines keep coming.
    clock.advance(3 * PROGRESS_EVERY_MS);
    expect(out).toHaveLength(4);
    expect(out.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
    p.stop();
    clock.advance(60_000);
    expect(out).toHaveLength(4);
  });

  it('on a terminal: the line is rewritten in place on each check and by the timer, and cleared at the end', () => {
    const clock = fakeTimers();
    const out: string[] = [];
    const p = testProgress({ write: (s) => out.push(s), tty: true, now: clock.now, timers: clock.timers });
    clock.advance(1_000);
    p.onResult(['TOOLS-012'], 1, 4);
    expect(out).toEqual(['\r\x1b[2Kiari test: 1 s  area TOOLS  checks 1/4  about 3 s left']);
    p.stop();
    expect(out.at(-1)).toBe('\r\x1b[2K');
  });

  it('the estimate follows the rate so far and never goes past the run deadline', () => {
    expect(estimateLeftMs(10_000, 0, 100)).toBeUndefined();
    expect(estimateLeftMs(10_000, 10, 100)).toBe(90_000);
    expect(estimateLeftMs(10_000, 10, 100, 30_000)).toBe(30_000);
    expect(progressText(0, undefined, 0, 200, undefined)).toBe('0 ms  area -  checks 0/200  estimating');
  });
});
