import { randomFillSync } from 'node:crypto';

// Random bytes are drawn from the CSPRNG in blocks (one system call per 256 ids), never reused.
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let next = POOL_IDS;

function hex(b: Buffer, from: number, to: number): string {
  return b.toString('hex', from, to);
}

/** D-RCPT-12: ids are opaque (^[A-Za-z0-9._:-]{1,128}$); iari emits "rcpt_" + a UUIDv7 (RFC 9562). */
export function newReceiptId(nowMs: number = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const b = Buffer.from(pool.subarray(16 * next, 16 * next + 16));
  next++;
  // unix_ts_ms, 48 bits big-endian (exact in a double: ms < 2^53).
  const ms = Math.max(0, Math.floor(nowMs));
  b.writeUIntBE(ms % 2 ** 48, 0, 6);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  return `rcpt_${hex(b, 0, 4)}-${hex(b, 4, 6)}-${hex(b, 6, 8)}-${hex(b, 8, 10)}-${hex(b, 10, 16)}`;
}
