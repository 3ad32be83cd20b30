import { describe, expect, it } from 'vitest';
import { ServiceSlots } from './service-slots.ts';

describe('mock service capacity', () => {
  it('MOCK-CAPACITY: N requests start at once; the next waits for the slot that frees first, in arrival order', () => {
    let now = 1000;
    const slots = new ServiceSlots(2, () => now);
    expect(slots.admit(300)).toBe(0);
    expect(slots.admit(100)).toBe(0);
    expect(slots.busy()).toBe(2);
    // Both busy: the third waits for the 100 ms one, the fourth for the 300 ms one.
    expect(slots.admit(500)).toBe(100);
    expect(slots.admit(50)).toBe(300);
    now += 1000;
    expect(slots.admit(10)).toBe(0);
    expect(slots.meanServiceMs()).toBe(192);
  });

  it('MOCK-CANCEL: a released booking frees its slot now (or at its start, if still waiting); a leaked one never frees', () => {
    let now = 0;
    const slots = new ServiceSlots(1, () => now);
    const a = slots.book(1000);
    const b = slots.book(1000);
    expect(b.queuedMs).toBe(1000);
    now = 100;
    // b waits behind a: releasing a moves nothing (b already starts at a's end); releasing b frees the slot at its start.
    a.release();
    b.release();
    expect(slots.admit(10)).toBe(900);
    now = 2000;
    const c = slots.book(100);
    now = 2010;
    c.release();
    expect(slots.busy()).toBe(0);
    slots.book(100).leak();
    now = 1e9;
    expect(slots.busy()).toBe(1);
    expect(slots.book(10).queuedMs).toBe(600_000);
  });

  it('MOCK-CAPACITY: a capacity below 1 or not an integer is refused', () => {
    expect(() => new ServiceSlots(0)).toThrow(RangeError);
    expect(() => new ServiceSlots(1.5)).toThrow(RangeError);
  });
});
