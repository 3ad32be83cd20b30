import { describe, expect, it } from 'vitest';
import { Pace, parsePace } from './pace.ts';

function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let t = 1_000_000;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

describe('iari test --pace', () => {
  it('reads R/s, R/min and a bare R as requests per second, and refuses anything else', () => {
    expect(parsePace('5/s')).toBe(5);
    expect(parsePace('2.5/s')).toBe(2.5);
    expect(parsePace('90/min')).toBe(1.5);
    expect(parsePace('120/m')).toBe(2);
    expect(parsePace('7')).toBe(7);
    for (const bad of ['', 'fast', '0/s', '-1/s', '5/h', '5/s/s', '1e3/s']) expect(parsePace(bad), bad).toBeUndefined();
  });

  it('spaces requests 1/R seconds apart, concurrent ones included', async () => {
    const t0 = 1_000_000;
    const wakes: number[] = [];
    const pace = new Pace(4, { now: () => t0, sleep: async (ms) => { wakes.push(ms); } });
    await Promise.all(Array.from({ length: 9 }, () => pace.acquire()));
    // 9 requests at 4/s asked for at the same instant: the first leaves at once, then one every 250 ms.
    expect(wakes).toEqual([250, 500, 750, 1000, 1250, 1500, 1750, 2000]);
  });

  it('does not delay requests that are already slower than the pace', async () => {
    const clock = fakeClock();
    const pace = new Pace(10, clock);
    let waited = 0;
    const sleep = clock.sleep;
    const gate = new Pace(10, { now: clock.now, sleep: async (ms) => { waited += ms; await sleep(ms); } });
    for (let i = 0; i < 5; i++) {
      await gate.acquire();
      await clock.sleep(300); // each answer takes 300 ms, longer than the 100 ms spacing
    }
    expect(waited).toBe(0);
    expect(pace.perSecond).toBe(10);
  });

});
