import { responseLimits } from './body-limits.ts';

/**
 * JSON from a server is parsed only after a cheap scan has shown its nesting is bounded
 * (HDR-015). V8's JSON.parse itself survives a million nested arrays, but what comes after it does
 * not: JSON.stringify, schema validation and every recursive walk overflow the stack (or spend
 * gigabytes) on them. One pass over the text, tracking only strings, escapes and brackets.
 */

/** The offset of the bracket that opens level `max + 1`, or -1 when the nesting stays within `max`. */
export function jsonDepthExceeded(text: string, max: number = responseLimits.jsonDepth): number {
  // Each level takes at least one character.
  if (text.length <= max) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

export type BoundedJson = { ok: true; value: unknown } | { ok: false; tooDeep: boolean; error: string };

/** JSON.parse behind the depth scan: never throws, never builds a structure deeper than `max`. */
export function parseJsonBounded(text: string, max: number = responseLimits.jsonDepth): BoundedJson {
  const at = jsonDepthExceeded(text, max);
  if (at >= 0) return { ok: false, tooDeep: true, error: `JSON nested deeper than ${max} levels (at character ${at}); not parsed` };
  return parseJsonPrescanned(text);
}

/**
 * JSON.parse of text whose nesting the caller has already bounded (the load engines bound every
 * event on the main thread, src/load/event-bounds.ts): never throws, and does not scan again.
 */
export function parseJsonPrescanned(text: string): BoundedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, tooDeep: false, error: (error as Error).message };
  }
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * The same scan over an event stream's bytes as they arrive, for readers that parse each event's
 * data themselves (client libraries run as checks): it follows only `data:` lines, keeps string
 * state within a line and depth across the lines of one event, and starts over at each event.
 */
export class SseJsonDepthGuard {
  readonly #max: number;
  #depth = 0;
  #inString = false;
  #escape = false;
  /** Position in the current line: 0 = at its start; then inside a data line, or a line to ignore. */
  #line: 'start' | 'field' | 'data' | 'skip' = 'start';
  #field = '';
  #lineEmpty = true;
  #afterCR = false;
  /** Bytes of a leading byte order mark seen so far; -1 once the stream's first bytes are decided. */
  #bom = 0;

  constructor(max: number = responseLimits.jsonDepth) {
    this.#max = max;
  }

  /** Feeds bytes; true once an event's data nests deeper than the limit. */
  feed(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] as number;
      if (this.#bom >= 0) {
        // WHATWG SSE, UTF-8 decode: a leading BOM is stripped (clients that parse events strip it, so "\uFEFFdata: [[[..." is data to them).
        if (c === BOM[this.#bom]) {
          if (++this.#bom === BOM.length) this.#bom = -1;
          continue;
        }
        // Not a BOM: the bytes taken begin a first line whose field is not "data".
        if (this.#bom > 0) {
          this.#line = 'field';
          this.#field = '\uFEFF';
          this.#lineEmpty = false;
        }
        this.#bom = -1;
      }
      // CRLF is one line terminator (even split across reads).
      const afterCR = this.#afterCR;
      this.#afterCR = c === 0x0d;
      if (c === 0x0a && afterCR) continue;
      if (c === 0x0a || c === 0x0d) {
        // A blank line ends the event: its data starts over.
        if (this.#lineEmpty) this.#depth = 0;
        this.#line = 'start';
        this.#field = '';
        this.#lineEmpty = true;
        this.#inString = false;
        this.#escape = false;
        continue;
      }
      this.#lineEmpty = false;
      if (this.#line === 'start' || this.#line === 'field') {
        if (c === 0x3a) {
          this.#line = this.#field === 'data' ? 'data' : 'skip';
          continue;
        }
        this.#line = 'field';
        if (this.#field.length < 8) this.#field += String.fromCharCode(c);
        continue;
      }
      if (this.#line === 'skip') continue;
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === 0x5c) this.#escape = true;
        else if (c === 0x22) this.#inString = false;
        continue;
      }
      if (c === 0x22) this.#inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.#depth > this.#max) return true;
      } else if (c === 0x5d || c === 0x7d) this.#depth--;
    }
    return false;
  }
}

/**
 * JSON text of `v` cut after about `max` characters, built without serialising the whole value:
 * safe on values of any size or depth (JSON.stringify is neither). Longer output ends with "...".
 */
export function previewJson(v: unknown, max: number): string {
  let out = '';
  const full = (): boolean => out.length > max;
  const walk = (x: unknown, depth: number): void => {
    if (full()) return;
    if (x === null || typeof x === 'number' || typeof x === 'boolean') out += String(x === null ? 'null' : Number.isFinite(x as number) || typeof x === 'boolean' ? x : 'null');
    else if (typeof x === 'string') out += JSON.stringify(x.length > max ? x.slice(0, max + 1) : x);
    else if (typeof x === 'bigint' || typeof x === 'undefined' || typeof x === 'function' || typeof x === 'symbol') out += String(x);
    else if (depth > 16) out += Array.isArray(x) ? '[...]' : '{...}';
    else if (Array.isArray(x)) {
      out += '[';
      for (let i = 0; i < x.length && !full(); i++) {
        if (i > 0) out += ',';
        walk(x[i], depth + 1);
      }
      out += ']';
    } else {
      out += '{';
      let first = true;
      for (const k in x as Record<string, unknown>) {
        if (full()) break;
        if (!first) out += ',';
        first = false;
        out += `${JSON.stringify(k.length > max ? k.slice(0, max) : k)}:`;
        walk((x as Record<string, unknown>)[k], depth + 1);
      }
      out += '}';
    }
  };
  walk(v, 0);
  return out.length > max ? `${out.slice(0, max)}...` : out;
}
