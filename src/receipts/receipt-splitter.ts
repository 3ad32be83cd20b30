// D-RCPT-24: "JSONL (one Receipt per line, blank lines ignored, CRLF allowed) or one JSON array of
// Receipts (detected by the first non-space byte [), streamed"; "A blank line is one that holds nothing
// but JSON whitespace"; "In a JSON array every comma at the top level separates two elements".

export type SplitItem = { kind: 'receipt'; bytes: Uint8Array } | { kind: 'oversize'; size: number } | { kind: 'syntax'; detail: string };

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Cuts a byte stream into one item per Receipt without holding more than one Receipt (plus one chunk). */
export class ReceiptSplitter {
  #mode: 'unknown' | 'lines' | 'array' | 'after' = 'unknown';
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  #skipping = false;
  // array mode state
  #depth = 0;
  #inString = false;
  #escape = false;
  #inElement = false;
  #closed = false;
  #trailingReported = false;

  constructor(readonly maxBytes: number) {}

  feed(chunk: Uint8Array, emit: (item: SplitItem) => void): void {
    let start = 0;
    if (this.#mode === 'unknown') {
      while (start < chunk.length && isWs(chunk[start] as number)) start++;
      if (start === chunk.length) return;
      if (chunk[start] === 0x5b) {
        this.#mode = 'array';
        this.#depth = 1;
        start++;
      } else this.#mode = 'lines';
    }
    if (this.#mode === 'lines') this.#feedLines(chunk.subarray(start), emit);
    else this.#feedArray(chunk.subarray(start), emit);
  }

  end(emit: (item: SplitItem) => void): void {
    if (this.#mode === 'lines') this.#flushLine(emit);
    else if (this.#mode === 'array' && !this.#closed) {
      // D-RCPT-24: "every comma at the top level separates two elements ... an unfinished last one alike
      // (which then gets its own JSON_SYNTAX)": `[a,b,` then the end has an empty third element.
      if (this.#inElement) this.#flushElement(emit);
      else if (this.#sawComma) emit({ kind: 'receipt', bytes: new Uint8Array(0) });
      emit({ kind: 'syntax', detail: 'the JSON array is not closed' });
    }
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#skipping) {
      this.#partBytes += bytes.length;
      return;
    }
    this.#partBytes += bytes.length;
    if (this.#partBytes > this.maxBytes + 2) {
      this.#skipping = true;
      this.#parts = [];
      return;
    }
    // A copy, never a view: Buffer#slice (what a file stream's chunks inherit) is a view, and one kept
    // Receipt would keep its whole 1 MiB read chunk alive until the chain is done with it.
    this.#parts.push(Uint8Array.prototype.slice.call(bytes));
  }

  #take(): Uint8Array | { oversize: number } {
    const size = this.#partBytes;
    const skipping = this.#skipping;
    const parts = this.#parts;
    this.#parts = [];
    this.#partBytes = 0;
    this.#skipping = false;
    if (skipping) return { oversize: size };
    if (parts.length === 1) return parts[0] as Uint8Array;
    return Buffer.concat(parts);
  }

  #feedLines(chunk: Uint8Array, emit: (item: SplitItem) => void): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl === -1) {
        this.#append(chunk.subarray(from));
        return;
      }
      this.#append(chunk.subarray(from, nl));
      this.#flushLine(emit);
      from = nl + 1;
    }
  }

  #flushLine(emit: (item: SplitItem) => void): void {
    const taken = this.#take();
    if (!(taken instanceof Uint8Array)) {
      emit({ kind: 'oversize', size: taken.oversize });
      return;
    }
    let end = taken.length;
    if (end > 0 && taken[end - 1] === 0x0d) end--;
    let blank = true;
    for (let k = 0; k < end; k++) {
      if (!isWs(taken[k] as number)) {
        blank = false;
        break;
      }
    }
    if (!blank) emit({ kind: 'receipt', bytes: taken.subarray(0, end) });
  }

  #flushElement(emit: (item: SplitItem) => void): void {
    this.#inElement = false;
    const taken = this.#take();
    if (taken instanceof Uint8Array) emit({ kind: 'receipt', bytes: taken });
    else emit({ kind: 'oversize', size: taken.oversize });
  }

  #feedArray(chunk: Uint8Array, emit: (item: SplitItem) => void): void {
    let elemStart = this.#inElement ? 0 : -1;
    for (let k = 0; k < chunk.length; k++) {
      const b = chunk[k] as number;
      if (this.#closed) {
        if (!isWs(b) && !this.#trailingReported) {
          this.#trailingReported = true;
          emit({ kind: 'syntax', detail: 'data after the closing ] of the JSON array' });
        }
        continue;
      }
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (b === 0x5c) this.#escape = true;
        else if (b === 0x22) this.#inString = false;
        continue;
      }
      if (this.#depth === 1 && (b === 0x2c || b === 0x5d)) {
        if (this.#inElement) {
          this.#append(chunk.subarray(elemStart, k));
          this.#flushElement(emit);
        } else if (b === 0x2c || this.#sawComma) {
          emit({ kind: 'receipt', bytes: new Uint8Array(0) });
        }
        this.#sawComma = b === 0x2c;
        elemStart = -1;
        if (b === 0x5d) {
          this.#closed = true;
          this.#depth = 0;
        }
        continue;
      }
      if (!this.#inElement) {
        if (isWs(b)) continue;
        this.#inElement = true;
        elemStart = k;
      }
      if (b === 0x22) this.#inString = true;
      else if (b === 0x7b || b === 0x5b) this.#depth++;
      else if (b === 0x7d || b === 0x5d) this.#depth--;
    }
    if (this.#inElement && elemStart !== -1) this.#append(chunk.subarray(elemStart));
  }

  #sawComma = false;
}
