// Bounded-memory storage for the streaming verifier: fixed-width byte records in pages, and an
// open-addressing hash index over them (keys are SHA-256 outputs, so their
// first 4 bytes are a good hash).

// Paged, not doubled: one contiguous buffer that doubles holds up to twice what it needs and, while
// it copies, three times (old + new); for a 1,000,000-Receipt chain that was most of the peak RSS
// (issue 13: 1,000,000 Receipts under 256 MiB). Page 0 doubles up to PAGE records (small inputs stay
// small); every later page holds PAGE records and nothing is copied again.
const PAGE_SHIFT = 16;
const PAGE = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE - 1;

export class ByteRecords {
  readonly #pages: Uint8Array[];
  count = 0;
  constructor(
    readonly width: number,
    initial = 1024,
  ) {
    this.#pages = [new Uint8Array(width * Math.min(initial, PAGE))];
  }

  push(bytes: Uint8Array): number {
    const slot = this.count;
    const w = this.width;
    const pageIndex = slot >>> PAGE_SHIFT;
    let page = this.#pages[pageIndex];
    if (page === undefined) {
      page = new Uint8Array(w * PAGE);
      this.#pages.push(page);
    } else if (pageIndex === 0 && (slot + 1) * w > page.length) {
      const next = new Uint8Array(Math.min(page.length * 2, w * PAGE));
      next.set(page);
      page = next;
      this.#pages[0] = page;
    }
    page.set(bytes.subarray(0, w), (slot & PAGE_MASK) * w);
    this.count++;
    return slot;
  }

  equals(slot: number, key: Uint8Array): boolean {
    const b = this.#pages[slot >>> PAGE_SHIFT] as Uint8Array;
    const w = this.width;
    const o = (slot & PAGE_MASK) * w;
    for (let k = 0; k < w; k++) if (b[o + k] !== key[k]) return false;
    return true;
  }

  get(slot: number): Uint8Array {
    const o = (slot & PAGE_MASK) * this.width;
    return (this.#pages[slot >>> PAGE_SHIFT] as Uint8Array).subarray(o, o + this.width);
  }
}

type NumberArray = Int32Array | Float64Array | Uint8Array;

/** An append-only array of numbers in typed-array pages (page 0 doubles up to PAGE entries). */
class GrowableNumbers<A extends NumberArray> {
  readonly #pages: A[];
  length = 0;
  constructor(
    private readonly make: (length: number) => A,
    initial: number,
  ) {
    this.#pages = [make(Math.min(initial, PAGE))];
  }
  push(v: number): number {
    const i = this.length;
    const pageIndex = i >>> PAGE_SHIFT;
    let page = this.#pages[pageIndex];
    if (page === undefined) {
      page = this.make(PAGE);
      this.#pages.push(page);
    } else if (pageIndex === 0 && i === page.length) {
      const next = this.make(Math.min(page.length * 2, PAGE));
      next.set(page);
      page = next;
      this.#pages[0] = page;
    }
    page[i & PAGE_MASK] = v;
    return this.length++;
  }
  get(i: number): number {
    return (this.#pages[i >>> PAGE_SHIFT] as A)[i & PAGE_MASK] as number;
  }
  set(i: number, v: number): void {
    (this.#pages[i >>> PAGE_SHIFT] as A)[i & PAGE_MASK] = v;
  }
}

export class GrowableInt32 extends GrowableNumbers<Int32Array> {
  constructor(initial = 1024) {
    super((n) => new Int32Array(n), initial);
  }
}

export class GrowableFloat64 extends GrowableNumbers<Float64Array> {
  constructor(initial = 1024) {
    super((n) => new Float64Array(n), initial);
  }
}

export class GrowableUint8 extends GrowableNumbers<Uint8Array> {
  constructor(initial = 1024) {
    super((n) => new Uint8Array(n), initial);
  }
}

/** Maps a key stored in `records` (slot = value) to its slot. Keys must be uniformly distributed bytes. */
export class RecordIndex {
  #table = new Int32Array(2048).fill(-1);
  #size = 0;
  constructor(readonly records: ByteRecords) {}

  static #hash(key: Uint8Array, offset = 0): number {
    return ((key[offset] ?? 0) | ((key[offset + 1] ?? 0) << 8) | ((key[offset + 2] ?? 0) << 16) | ((key[offset + 3] ?? 0) << 24)) >>> 0;
  }

  find(key: Uint8Array): number {
    const mask = this.#table.length - 1;
    let h = RecordIndex.#hash(key) & mask;
    for (;;) {
      const slot = this.#table[h] as number;
      if (slot === -1) return -1;
      if (this.records.equals(slot, key)) return slot;
      h = (h + 1) & mask;
    }
  }

  /** Adds `slot` (whose key is already in records) unless an equal key exists; returns the existing slot or -1. */
  add(slot: number): number {
    const key = this.records.get(slot);
    const existing = this.find(key);
    if (existing !== -1) return existing;
    if ((this.#size + 1) * 2 > this.#table.length) this.#grow();
    this.#insert(slot, key);
    this.#size++;
    return -1;
  }

  #insert(slot: number, key: Uint8Array): void {
    const mask = this.#table.length - 1;
    let h = RecordIndex.#hash(key) & mask;
    while (this.#table[h] !== -1) h = (h + 1) & mask;
    this.#table[h] = slot;
  }

  #grow(): void {
    const old = this.#table;
    this.#table = new Int32Array(old.length * 2).fill(-1);
    for (const slot of old) if (slot !== -1) this.#insert(slot, this.records.get(slot));
  }
}
