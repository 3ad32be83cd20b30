import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ByteRecords, GrowableFloat64, GrowableInt32, GrowableUint8, RecordIndex } from './compact-store.ts';

describe('compact store', () => {
  it('keeps every pushed number, in order, as the arrays grow past their initial size', () => {
    const cases = [
      { store: new GrowableInt32(2), values: Array.from({ length: 37 }, (_, i) => (i % 2 === 0 ? -i - 1 : i * 1000)) },
      { store: new GrowableFloat64(2), values: Array.from({ length: 37 }, (_, i) => i / 7) },
      { store: new GrowableUint8(2), values: Array.from({ length: 37 }, (_, i) => (i * 13) % 256) },
    ];
    for (const { store, values } of cases) {
      expect(values.map((v) => store.push(v))).toEqual(values.map((_, i) => i));
      expect(store.length).toBe(values.length);
      expect(values.map((_, i) => store.get(i))).toEqual(values);
    }
  });

  it('keeps numbers and records across page boundaries (pages of 65,536), set included', () => {
    const n = 65_536 * 2 + 17;
    const ints = new GrowableInt32(4);
    const recs = new ByteRecords(8, 4);
    const index = new RecordIndex(recs);
    const key = (i: number) => createHash('sha256').update(String(i)).digest().subarray(0, 8);
    for (let i = 0; i < n; i++) {
      ints.push(i * 3 - 5);
      expect(index.add(recs.push(key(i)))).toBe(-1);
    }
    ints.set(65_536, 42);
    for (const i of [0, 65_535, 65_537, 131_071, 131_072, n - 1]) {
      expect(ints.get(i)).toBe(i * 3 - 5);
      expect(Buffer.from(recs.get(i)).equals(key(i))).toBe(true);
      expect(index.find(key(i))).toBe(i);
    }
    expect(ints.get(65_536)).toBe(42);
    expect(recs.count).toBe(n);
  });

  it('overwrites one slot with set and leaves the others', () => {
    const store = new GrowableInt32(1);
    for (const v of [1, 2, 3]) store.push(v);
    store.set(1, 20);
    expect([store.get(0), store.get(1), store.get(2)]).toEqual([1, 20, 3]);
  });

  it('stores fixed-width records past the initial capacity and finds each by its bytes', () => {
    const records = new ByteRecords(8, 2);
    const index = new RecordIndex(records);
    // 3000 keys with 500 repeats (i and i + 2500 share a key), so duplicates are found too.
    const keys = Array.from({ length: 3000 }, (_, i) => new Uint8Array(createHash('sha256').update(String(i % 2500)).digest().subarray(0, 8)));
    const slots = keys.map((k) => records.push(k));
    const duplicates = slots.map((slot) => index.add(slot));
    const firstSlot = new Map<string, number>();
    keys.forEach((k, i) => {
      const hex = Buffer.from(k).toString('hex');
      if (!firstSlot.has(hex)) firstSlot.set(hex, i);
    });
    keys.forEach((k, i) => {
      const first = firstSlot.get(Buffer.from(k).toString('hex'));
      expect(duplicates[i]).toBe(first === i ? -1 : first);
      expect(index.find(k)).toBe(first);
      expect(Buffer.from(records.get(i)).equals(Buffer.from(k))).toBe(true);
    });
    expect(duplicates.filter((d) => d !== -1)).toHaveLength(500);
    expect(index.find(new Uint8Array(8).fill(0xab))).toBe(-1);
  });
});
