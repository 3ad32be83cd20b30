import { describe, expect, it } from 'vitest';
import { Throttle } from './throttle.ts';

describe('Throttle', () => {
  it('lets requests through up to 90% of the per-minute limit, then waits for the window to slide', async () => {
    let now = 0;
    const waits: number[] = [];
    const t = new Throttle(10, { now: () => now, sleep: async (ms) => { waits.push(ms); now += ms; } });
    for (let i = 0; i < 9; i++) await t.acquire();
    expect(waits).toEqual([]);
    now = 1_000;
    await t.acquire();
    expect(waits).toEqual([59_001]);
    expect(now).toBe(60_001);
  });
});
