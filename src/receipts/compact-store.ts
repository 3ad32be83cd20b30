// Bounded-memory storage for the streaming verifier: fixed-width byte records in one growable
// buffer, and an open-addressing hash index over them (keys are SHA-256 outputs, so their
// first 4 bytes are a good hash).

export class ByteRecords {
  buf: Uint8Array;
  count = 0;
  constructor(
    readonly width: number,
    initial = 1024,
  ) {
    this.buf = new Uint8Array(width * initial);
  }

  push(bytes: Uint8Array): number {
    if ((this.count + 1) * this.width > this.buf.length) this.buf = doubled(this.buf, (n) => new Uint8Array(n));
    this.buf.set(bytes.subarray(0, this.width), this.count * this.width);
    return this.count++;
  }

  equals(slot: number, key: Uint8Array): boolean {
    const o = slot * this.width;
    const b = this.buf;
    for (let k = 0; k < this.width; k++) if (b[o + k] !== key[k]) return false;
    return true;
  }

  get(slot: number): Uint8Array {
    return this.buf.subarray(slot * this.width, (slot + 1) * this.width);
  }
}

type NumberArray = Int32Array | Float64Array | Uint8Array;

/** A copy of `a` twice as long, for appending past its end. */
function doubled<A extends NumberArray>(a: A, make: (length: number) => A): A {
  const next = make(a.length * 2);
  next.set(a);
  return next;
}

/** An append-only typed array that doubles when full. */
class GrowableNumbers<A extends NumberArray> {
  a: A;
  length = 0;
  constructor(
    private readonly make: (length: number) => A,
    initial: number,
  ) {
    this.a = make(initial);
  }
  push(v: number): number {
    if (this.length === this.a.length) this.a = doubled(this.a, this.make);
    this.a[this.length] = v;
    return this.length++;
  }
  get(i: number): number {
    return this.a[i] as number;
  }
  set(i: number, v: number): void {
    this.a[i] = v;
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
