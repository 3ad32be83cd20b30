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

  it('MOCK-CAPACITY: a capacity below 1 or not an integer is refused', () => {
    expect(() => new ServiceSlots(0)).toThrow(RangeError);
    expect(() => new ServiceSlots(1.5)).toThrow(RangeError);
  });
});
