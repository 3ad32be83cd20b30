import { describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';

describe('ByteBudget', () => {
  it('holds readers past its limit and resumes them only once back under half of it', async () => {
    const b = new ByteBudget(100);
    b.add(100);
    expect(b.wait()).toBeNull();
    b.add(1);
    const wait = b.wait();
    expect(wait).not.toBeNull();
    let resumed = false;
    void wait?.then(() => (resumed = true));
    b.release(40);
    await Promise.resolve();
    expect(resumed, 'at 61 of 100: still held').toBe(false);
    b.release(11);
    await Promise.resolve();
    expect(resumed, 'at 50 of 100').toBe(true);
    expect(b.held).toBe(50);
  });

  it('counts what every holder added: two workers at 60 each are past a limit of 100', () => {
    const b = new ByteBudget(100);
    b.add(60);
    b.add(60);
    expect(b.wait()).not.toBeNull();
  });
});
