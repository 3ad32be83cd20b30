import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { ReceiptSplitter, type SplitItem } from '../../src/receipts/receipt-splitter.ts';
import { jsonText, parsed } from '../json-shape.ts';
import { chainFiles, vectorInputs } from '../receipt-inputs.ts';
import { bytewise, cutsOf, holds, neverThrows, show, split, utf8, type FuzzTarget } from '../target.ts';

// Small, so that inputs of a few KiB have oversize Receipts.
const MAX = 512;
const isWs = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function items(reads: readonly Uint8Array[]): SplitItem[] {
  const splitter = new ReceiptSplitter(MAX);
  const out: SplitItem[] = [];
  // A copy of each Receipt's bytes, as a plain Uint8Array (the splitter hands out views and Buffers).
  const keep = (item: SplitItem): void => void out.push(item.kind === 'receipt' ? { kind: 'receipt', bytes: Uint8Array.from(item.bytes) } : item);
  neverThrows(() => {
    for (const r of reads) splitter.feed(r, keep);
    splitter.end(keep);
  }, 'ReceiptSplitter');
  return out;
}

const trim = (b: Uint8Array): Uint8Array => {
  let s = 0;
  let e = b.length;
  while (s < e && isWs(b[s] as number)) s++;
  while (e > s && isWs(b[e - 1] as number)) e--;
  return b.subarray(s, e);
};

/** D-RCPT-24, JSONL: one Receipt per line, a line's JSON whitespace around it is layout, blank lines are ignored. */
function lines(input: Uint8Array): SplitItem[] {
  const out: SplitItem[] = [];
  let from = 0;
  for (let i = 0; i <= input.length; i++) {
    if (i < input.length && input[i] !== 0x0a) continue;
    const line = trim(input.subarray(from, i));
    if (line.length > MAX + 2) out.push({ kind: 'oversize', size: line.length });
    else if (line.length > 0) out.push({ kind: 'receipt', bytes: Uint8Array.from(line) });
    from = i + 1;
  }
  return out;
}

function run(input: Uint8Array): void {
  const whole = items([input]);
  const cuts = cutsOf(input);
  holds(isDeepStrictEqual(items(split(input, cuts)), whole), () => `the items depend on where the reads split (cuts ${show(cuts)})`);
  if (input.length <= 4096) holds(isDeepStrictEqual(items(bytewise(input)), whole), () => 'the items differ one byte per read');
  for (const item of whole) {
    // It holds at most the bound + 2 bytes of one Receipt: one of bound + 1 or + 2 bytes is handed on, and the strict reader refuses it (JSON_LIMITS, as an oversize one).
    if (item.kind === 'receipt') holds(item.bytes.length <= MAX + 2 && (item.bytes.length === 0 || (!isWs(item.bytes[0] as number) && !isWs(item.bytes.at(-1) as number))), () => `a Receipt of ${item.bytes.length} bytes (bound ${MAX}) or with whitespace around it`);
    if (item.kind === 'oversize') holds(item.size > MAX, () => `oversize of ${item.size} bytes within the bound`);
  }
  const first = trim(input)[0];
  if (first !== 0x5b) {
    holds(isDeepStrictEqual(whole, lines(input)), () => `JSONL: split as ${show(whole.map(shown))}, the lines are ${show(lines(input).map(shown))}`);
    return;
  }
  // A JSON array JSON.parse reads: one item per element, each the element's own text.
  const array = parsed(Buffer.from(input).toString('utf8'));
  if (array === undefined || !Array.isArray(array.value)) return;
  const elements = array.value as unknown[];
  holds(whole.length === elements.length, () => `a JSON array of ${elements.length} elements split into ${whole.length} items: ${show(whole.map(shown))}`);
  whole.forEach((item, i) => {
    if (item.kind === 'oversize') return;
    holds(item.kind === 'receipt' && isDeepStrictEqual(parsed(Buffer.from(item.bytes).toString('utf8'))?.value, elements[i]), () => `element ${i}: the item ${show(shown(item))} is not ${show(elements[i])}`);
  });
}

const shown = (item: SplitItem): unknown => (item.kind === 'receipt' ? Buffer.from(item.bytes).toString('utf8') : item);

export const receiptSplitter: FuzzTarget = {
  name: 'receipt-splitter',
  sources: ['src/receipts/receipt-splitter.ts'],
  invariants: [
    'feed and end never throw; the items are the same however the bytes are split into reads',
    'no Receipt item is larger than the bound (+2 bytes, which the strict reader then refuses as JSON_LIMITS) or has JSON whitespace around it; an oversize item is over the bound',
    'JSONL: the items are the non-blank lines, trimmed (D-RCPT-24); a JSON array JSON.parse reads: one item per element, holding that element',
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'JSON.parse of the array; the line split of D-RCPT-24',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: fc.oneof(chainFiles, fc.array(jsonText, { maxLength: 6 }).map((es) => utf8(`[${es.join(',')}]`)), fc.array(jsonText, { maxLength: 6 }).map((es) => utf8(es.join('\n')))),
  seeds: vectorInputs,
  run,
};
