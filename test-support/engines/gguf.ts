// GGUF version 3, the file format llama.cpp loads models from (ggml's docs/gguf.md in the source
// tree): "GGUF" magic, version, tensor count, key-value count, the key-values, the tensor infos,
// then the tensor data, each tensor at an offset aligned to general.alignment (32 by default).
// Only what the tiny model needs: reading a vocab-only file's key-values, and writing F32 and F16
// tensors.

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'u64'; value: bigint }
  | { type: 'array'; itemType: number; items: unknown[] }
  /** Any other scalar, kept as the bytes read so a copy writes it back unchanged. */
  | { type: 'raw'; code: number; bytes: Buffer };

const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const ALIGNMENT = 32;

export class GgufFormatError extends Error {}

/** The key-values of a GGUF file (its tensors are not read). */
export function readGgufMetadata(file: Buffer): Map<string, GgufValue> {
  let at = 0;
  const need = (n: number): void => {
    if (at + n > file.length) throw new GgufFormatError(`GGUF: truncated at byte ${at}`);
  };
  const u32 = (): number => (need(4), (at += 4), file.readUInt32LE(at - 4));
  const u64 = (): bigint => (need(8), (at += 8), file.readBigUInt64LE(at - 8));
  const str = (): string => {
    const n = Number(u64());
    need(n);
    at += n;
    return file.toString('utf8', at - n, at);
  };
  const scalar = (code: number): unknown => {
    if (code === T.string) return str();
    const size = SCALAR_BYTES[code];
    if (size === undefined) throw new GgufFormatError(`GGUF: unknown value type ${code}`);
    need(size);
    at += size;
    switch (code) {
      case T.u32: return file.readUInt32LE(at - 4);
      case T.i32: return file.readInt32LE(at - 4);
      case T.f32: return file.readFloatLE(at - 4);
      case T.bool: return file[at - 1] !== 0;
      case T.u64: return file.readBigUInt64LE(at - 8);
      default: return Buffer.from(file.subarray(at - size, at));
    }
  };
  if (file.length < 4 || file.toString('latin1', 0, 4) !== 'GGUF') throw new GgufFormatError('GGUF: no GGUF magic');
  at = 4;
  const version = u32();
  if (version !== 3) throw new GgufFormatError(`GGUF: version ${version}, only 3 is read`);
  u64(); // tensor count
  const kvCount = Number(u64());
  const out = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const code = u32();
    if (code === T.array) {
      const itemType = u32();
      const n = Number(u64());
      const items: unknown[] = new Array(n);
      for (let j = 0; j < n; j++) items[j] = scalar(itemType);
      out.set(key, { type: 'array', itemType, items });
    } else {
      const v = scalar(code);
      if (code === T.u32) out.set(key, { type: 'u32', value: v as number });
      else if (code === T.i32) out.set(key, { type: 'i32', value: v as number });
      else if (code === T.f32) out.set(key, { type: 'f32', value: v as number });
      else if (code === T.bool) out.set(key, { type: 'bool', value: v as boolean });
      else if (code === T.string) out.set(key, { type: 'string', value: v as string });
      else if (code === T.u64) out.set(key, { type: 'u64', value: v as bigint });
      else out.set(key, { type: 'raw', code, bytes: v as Buffer });
    }
  }
  return out;
}

export interface GgufTensor {
  name: string;
  /** ggml order: ne[0] first (the contiguous dimension: a matrix [n_in, n_out] holds n_out rows of n_in). */
  shape: number[];
  dtype: 'f32' | 'f16';
  data: Float32Array;
}

class Writer {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  u64(v: number | bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  scalar(code: number, v: unknown): void {
    const b = Buffer.alloc(SCALAR_BYTES[code] ?? 0);
    switch (code) {
      case T.string: return this.str(v as string);
      case T.u32: b.writeUInt32LE(v as number); break;
      case T.i32: b.writeInt32LE(v as number); break;
      case T.f32: b.writeFloatLE(v as number); break;
      case T.bool: b[0] = v ? 1 : 0; break;
      case T.u64: b.writeBigUInt64LE(v as bigint); break;
      default: return this.push(v as Buffer);
    }
    this.push(b);
  }
  concat(): Buffer {
    return Buffer.concat(this.parts, this.length);
  }
}

const CODE: Record<Exclude<GgufValue['type'], 'raw' | 'array'>, number> = { u32: T.u32, i32: T.i32, f32: T.f32, bool: T.bool, string: T.string, u64: T.u64 };

/** A whole GGUF v3 file: the key-values in the order given, then the tensors, each aligned. */
export function writeGguf(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const w = new Writer();
  w.push(Buffer.from('GGUF', 'latin1'));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(metadata.size);
  for (const [key, v] of metadata) {
    w.str(key);
    if (v.type === 'array') {
      w.u32(T.array);
      w.u32(v.itemType);
      w.u64(v.items.length);
      for (const item of v.items) w.scalar(v.itemType, item);
    } else if (v.type === 'raw') {
      w.u32(v.code);
      w.scalar(v.code, v.bytes);
    } else {
      w.u32(CODE[v.type]);
      w.scalar(CODE[v.type], v.value);
    }
  }
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new GgufFormatError(`GGUF: tensor ${t.name} has ${t.data.length} values for shape [${t.shape.join(', ')}]`);
    w.str(t.name);
    w.u32(t.shape.length);
    for (const d of t.shape) w.u64(d);
    w.u32(t.dtype === 'f32' ? 0 : 1);
    w.u64(offset);
    const blob = t.dtype === 'f32' ? Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength) : toF16(t.data);
    blobs.push(blob);
    offset += blob.length;
    const pad = (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
    if (pad > 0) blobs.push(Buffer.alloc(pad));
    offset += pad;
  }
  const pad = (ALIGNMENT - (w.length % ALIGNMENT)) % ALIGNMENT;
  if (pad > 0) w.push(Buffer.alloc(pad));
  for (const b of blobs) w.push(b);
  return w.concat();
}

/** IEEE 754 half precision, round to nearest even (values here are small and finite). */
export function toF16(values: Float32Array): Buffer {
  const out = Buffer.alloc(values.length * 2);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let i = 0; i < values.length; i++) {
    f[0] = values[i] ?? 0;
    const x = u[0] ?? 0;
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff;
    let mant = x & 0x7fffff;
    let h: number;
    if (exp === 0xff) h = sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
    else {
      const e = exp - 127 + 15;
      if (e >= 0x1f) h = sign | 0x7c00;
      else if (e <= 0) {
        if (e < -10) h = sign;
        else {
          mant |= 0x800000;
          const shift = 14 - e;
          let half = mant >>> shift;
          const rest = mant & ((1 << shift) - 1);
          const mid = 1 << (shift - 1);
          if (rest > mid || (rest === mid && (half & 1) === 1)) half++;
          h = sign | half;
        }
      } else {
        h = sign | (e << 10) | (mant >>> 13);
        const rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++;
      }
    }
    out.writeUInt16LE(h, i * 2);
  }
  return out;
}
