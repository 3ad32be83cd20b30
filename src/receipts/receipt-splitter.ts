// D-RCPT-24: "JSONL (one Receipt per line, blank lines ignored, CRLF allowed) or one JSON array of
// Receipts (detected by the first non-space byte [), streamed"; "A blank line is one that holds nothing
// but JSON whitespace"; "In a JSON array every comma at the top level separates two elements";
// "A Receipt's bytes run from its first to its last byte that is not JSON whitespace": the whitespace
// around a value on its line, or between it and the commas or brackets of the array, is the file's layout.

export type SplitItem = { kind: 'receipt'; bytes: Uint8Array } | { kind: 'oversize'; size: number } | { kind: 'syntax'; detail: string };

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Cuts a byte stream into one item per Receipt without holding more than one Receipt (plus one chunk). */
export class ReceiptSplitter {
  #mode: 'unknown' | 'lines' | 'array' | 'after' = 'unknown';
  #parts: Uint8Array[] = [];
  /** Bytes of the current item so far, leading whitespace not counted. */
  #partBytes = 0;
  /** Bytes of the current item held in #parts (at most maxBytes + 2). */
  #held = 0;
  /** Past the held bytes: where the last byte that is not whitespace ends (0: none seen). */
  #endBeyond = 0;
  /** Lines mode: at the start of a line, whose leading whitespace is not part of its Receipt. */
  #leading = true;
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
    if (this.#leading && this.#mode === 'lines') {
      let k = 0;
      while (k < bytes.length && isWs(bytes[k] as number)) k++;
      if (k === bytes.length) return;
      this.#leading = false;
      bytes = bytes.subarray(k);
    }
    if (bytes.length === 0) return;
    // Memory stays bounded: at most maxBytes + 2 bytes are held; past them only where the last
    // non-whitespace byte ends is kept, so trailing whitespace never makes a Receipt oversize.
    const room = Math.max(0, this.maxBytes + 2 - this.#held);
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
    // A copy, never a view: Buffer#slice (what a file stream's chunks inherit) is a view, and one kept
    // Receipt would keep its whole 1 MiB read chunk alive until the chain is done with it.
    if (kept.length > 0) this.#parts.push(Uint8Array.prototype.slice.call(kept));
    this.#held += kept.length;
    for (let k = bytes.length - 1; k >= kept.length; k--) {
      if (!isWs(bytes[k] as number)) {
        this.#endBeyond = this.#partBytes + k + 1;
        break;
      }
    }
    this.#partBytes += bytes.length;
  }

  /** The current item without its trailing whitespace, or its size when that is beyond what is held. */
  #take(): Uint8Array | { oversize: number } {
    const parts = this.#parts;
    const endBeyond = this.#endBeyond;
    this.#parts = [];
    this.#partBytes = 0;
    this.#held = 0;
    this.#endBeyond = 0;
    this.#leading = true;
    if (endBeyond > 0) return { oversize: endBeyond };
    const all = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
    let end = all.length;
    while (end > 0 && isWs(all[end - 1] as number)) end--;
    return end === all.length ? all : all.subarray(0, end);
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
    // Leading and trailing whitespace (the CR of a CRLF included) are not held: nothing left is a blank line.
    if (taken.length > 0) emit({ kind: 'receipt', bytes: taken });
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
