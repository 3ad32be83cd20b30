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

  it('D-RCPT-24: a Receipt\'s bytes run from its first to its last non-whitespace byte, on the first line and on later ones alike', () => {
    const items = split([Buffer.from(' \t{"a":1} \r\n \t{"b":2}\t \n[ {"c":3} ]  \n')]);
    expect(items.map((i) => (i.kind === 'receipt' ? Buffer.from(i.bytes).toString() : i.kind))).toEqual(['{"a":1}', '{"b":2}', '[ {"c":3} ]']);
    const array = split([Buffer.from('[\n  {"a":1} ,\n\t{"b":2}\n]\n')]);
    expect(array.map((i) => (i.kind === 'receipt' ? Buffer.from(i.bytes).toString() : i.kind))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('D-RCPT-26: whitespace after a Receipt never makes it oversize, and is not held (3 MiB of spaces after a small Receipt, 64 KiB limit)', () => {
    const s = new ReceiptSplitter(65_536);
    const out: SplitItem[] = [];
    s.feed(Buffer.from('{"a":1}'), (i) => out.push(i));
    for (let k = 0; k < 48; k++) s.feed(Buffer.alloc(65_536, 0x20), (i) => out.push(i));
    s.feed(Buffer.from('\n' + '{"b":"' + 'x'.repeat(70_000) + '"}   \n'), (i) => out.push(i));
    s.end((i) => out.push(i));
    expect(out.map((i) => (i.kind === 'receipt' ? Buffer.from(i.bytes).toString() : i))).toEqual(['{"a":1}', { kind: 'oversize', size: 70_008 }]);
  });
});
