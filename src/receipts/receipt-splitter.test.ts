import { describe, expect, it } from 'vitest';
import { ReceiptSplitter, type SplitItem } from './receipt-splitter.ts';

function split(chunks: Uint8Array[]): SplitItem[] {
  const s = new ReceiptSplitter(1 << 20);
  const out: SplitItem[] = [];
  for (const c of chunks) s.feed(c, (i) => out.push(i));
  s.end((i) => out.push(i));
  return out;
}

describe('receipt splitter', () => {
  it('D-RCPT-24: a Receipt read from a file chunk is a copy that holds none of the chunk (a kept Receipt must not keep its 1 MiB read buffer alive)', () => {
    for (const text of ['{"a":1}\n{"b":2}\n', '[{"a":1},{"b":2}]']) {
      const chunk = Buffer.from(text);
      const items = split([chunk]);
      const receipts = items.filter((i): i is Extract<SplitItem, { kind: 'receipt' }> => i.kind === 'receipt');
      expect(receipts.map((r) => Buffer.from(r.bytes).toString())).toEqual(['{"a":1}', '{"b":2}']);
      for (const r of receipts) expect(r.bytes.buffer).not.toBe(chunk.buffer);
      chunk.fill(0x20);
      expect(receipts.map((r) => Buffer.from(r.bytes).toString())).toEqual(['{"a":1}', '{"b":2}']);
    }
  });

  it('D-RCPT-24: a Receipt cut across chunks is joined whole, CRLF and blank lines dropped', () => {
    const items = split([Buffer.from('{"a":'), Buffer.from('1}\r\n\n{"b"'), Buffer.from(':2}')]);
    expect(items.map((i) => (i.kind === 'receipt' ? Buffer.from(i.bytes).toString() : i.kind))).toEqual(['{"a":1}', '{"b":2}']);
  });
});
