// D-RCPT-01 / anchors §3 Wire: "a strict parser that rejects: duplicate keys, lone surrogates
// (escaped or raw), invalid UTF-8 or a BOM, trailing data, depth over 32 or size over 64 KiB,
// any number lexeme other than 0|[1-9][0-9]* up to 2^53−1".

import { clip } from '../clip.ts';

export type StrictJsonCode = 'JSON_SYNTAX' | 'JSON_DUPLICATE_KEY' | 'JSON_LONE_SURROGATE' | 'JSON_INVALID_UTF8' | 'JSON_NUMBER_FORM' | 'JSON_LIMITS';

export interface StrictJsonError {
  code: StrictJsonCode;
  /** Offset in UTF-16 code units of the decoded text (bytes for UTF-8 errors). */
  offset: number;
  detail: string;
  /** JSON Pointer of the member or element being read when the error was found; member names in it clipped to 60 characters. */
  pointer: string;
}

export type StrictJsonResult = { ok: true; value: unknown } | { ok: false; error: StrictJsonError };

export interface StrictJsonLimits {
  maxBytes: number;
  maxDepth: number;
  /** Accept any RFC 8259 number (payload files: request bodies have fractions); Receipts never do. */
  anyNumber?: boolean;
}

export const DEFAULT_LIMITS: StrictJsonLimits = { maxBytes: 65_536, maxDepth: 32 };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class Fail extends Error {
  constructor(readonly info: StrictJsonError) {
    super(info.detail);
  }
}

// A member name may be 64 KiB long: the pointer quotes each clipped, so it stays at most maxDepth short tokens.
const escape = (token: string) => clip(token, 60).replace(/~/g, '~0').replace(/\//g, '~1');

class Parser {
  i = 0;
  readonly path: string[] = [];
  /** False once the text is seen not to be its own JCS form (whitespace, an escape, members out of order). */
  canonical = true;
  /** The members of the top-level object: name and [start, end) of `"name":value` in the text. */
  readonly top: { key: string; start: number; end: number }[] = [];
  constructor(
    readonly s: string,
    readonly maxDepth: number,
    readonly anyNumber = false,
  ) {}

  fail(code: StrictJsonCode, detail: string, at = this.i): never {
    throw new Fail({ code, offset: at, detail, pointer: this.path.map((t) => `/${escape(t)}`).join('') });
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    if (i !== this.i) this.canonical = false;
    this.i = i;
  }

  value(depth: number): unknown {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) return this.array(depth + 1);
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (this.s.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (this.s.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    if (this.s.startsWith('null', this.i)) {
      this.i += 4;
      return null;
    }
    if (Number.isNaN(c)) this.fail('JSON_SYNTAX', 'unexpected end of input');
    return this.fail('JSON_SYNTAX', `unexpected character ${JSON.stringify(this.s[this.i])}`);
  }

  object(depth: number): Record<string, unknown> {
    if (depth > this.maxDepth) this.fail('JSON_LIMITS', `nesting deeper than ${this.maxDepth}`);
    this.i++;
    const out: Record<string, unknown> = {};
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return out;
    }
    let previous: string | undefined;
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x22) this.fail('JSON_SYNTAX', 'expected a member name');
      const keyAt = this.i;
      const key = this.string();
      // D-RCPT-26: "a duplicate member name is found when its name has been read (at its closing quote), before its : and value".
      // RFC 8785 §3.2.3: members sorted by their names' UTF-16 code units (what < compares).
      if (previous !== undefined && !(previous < key)) this.canonical = false;
      previous = key;
      if (Object.hasOwn(out, key)) {
        this.path.push(key);
        this.fail('JSON_DUPLICATE_KEY', `duplicate member name ${JSON.stringify(clip(key, 40))}`, keyAt);
      }
      this.ws();
      if (this.s.charCodeAt(this.i) !== 0x3a) this.fail('JSON_SYNTAX', 'expected ":"');
      this.i++;
      this.path.push(key);
      const v = this.value(depth);
      this.path.pop();
      if (depth === 1) this.top.push({ key, start: keyAt, end: this.i });
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        continue;
      }
      if (c === 0x7d) {
        this.i++;
        return out;
      }
      this.fail('JSON_SYNTAX', 'expected "," or "}"');
    }
  }

  array(depth: number): unknown[] {
    if (depth > this.maxDepth) this.fail('JSON_LIMITS', `nesting deeper than ${this.maxDepth}`);
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return out;
    }
    for (;;) {
      this.path.push(String(out.length));
      out.push(this.value(depth));
      this.path.pop();
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        continue;
      }
      if (c === 0x5d) {
        this.i++;
        return out;
      }
      this.fail('JSON_SYNTAX', 'expected "," or "]"');
    }
  }

  number(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) i++;
      else break;
    }
    const lexeme = s.slice(start, i);
    this.i = i;
    if (this.anyNumber) return this.anyNumberValue(lexeme, start);
    if (!/^(0|[1-9][0-9]*)$/.test(lexeme)) {
      if (!/^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(lexeme)) this.fail('JSON_SYNTAX', `malformed number ${clip(lexeme, 40)}`, start);
      this.fail('JSON_NUMBER_FORM', `number ${clip(lexeme, 40)} is not a non-negative integer without fraction or exponent`, start);
    }
    const n = Number(lexeme);
    if (n > Number.MAX_SAFE_INTEGER) this.fail('JSON_NUMBER_FORM', `number ${clip(lexeme, 40)} is above 2^53-1`, start);
    return n;
  }

  /**
   * D-RCPT-13: a payload number is any RFC 8259 number whose value the nearest IEEE 754 double
   * keeps, i.e. JCS (RFC 8785 §3.2.2.3) writes it back as the same decimal value: `1e20`, `-0`
   * (written 0) and `1E-7` are read; `9007199254740993`, `1e400` and `1e-400` are not.
   */
  anyNumberValue(lexeme: string, start: number): number {
    if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(lexeme)) this.fail('JSON_SYNTAX', `malformed number ${clip(lexeme, 40)}`, start);
    const n = Number(lexeme);
    if (!Number.isFinite(n)) this.fail('JSON_NUMBER_FORM', `number ${clip(lexeme, 40)} is outside the IEEE 754 double range`, start);
    if (!sameDecimalValue(lexeme, String(n))) this.fail('JSON_NUMBER_FORM', `number ${clip(lexeme, 40)} is not exactly an IEEE 754 double: JCS would write it as ${String(n)}`, start);
    // RFC 8785 §3.2.2.3: JCS writes a number as ECMAScript's Number::toString does (`1.0`, `1e2` and `-0` are not their JCS form).
    if (lexeme !== String(n)) this.canonical = false;
    return n;
  }

  string(): string {
    const s = this.s;
    let i = this.i + 1;
    let out = '';
    let runStart = i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        out += s.slice(runStart, i);
        this.i = i + 1;
        return out;
      }
      if (Number.isNaN(c)) this.fail('JSON_SYNTAX', 'unterminated string', i);
      if (c < 0x20) this.fail('JSON_SYNTAX', 'control character in string', i);
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = s.charCodeAt(i + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          i += 2;
          continue;
        }
        this.fail('JSON_LONE_SURROGATE', 'raw lone surrogate in string', i);
      }
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += s.slice(runStart, i);
      this.canonical = false;
      const e = s.charCodeAt(i + 1);
      switch (e) {
        case 0x22: out += '"'; i += 2; break;
        case 0x5c: out += '\\'; i += 2; break;
        case 0x2f: out += '/'; i += 2; break;
        case 0x62: out += '\b'; i += 2; break;
        case 0x66: out += '\f'; i += 2; break;
        case 0x6e: out += '\n'; i += 2; break;
        case 0x72: out += '\r'; i += 2; break;
        case 0x74: out += '\t'; i += 2; break;
        case 0x75: {
          const u = this.hex4(i + 2);
          if (u >= 0xd800 && u <= 0xdbff) {
            if (s.charCodeAt(i + 6) === 0x5c && s.charCodeAt(i + 7) === 0x75) {
              const lo = this.hex4(i + 8);
              if (lo >= 0xdc00 && lo <= 0xdfff) {
                out += String.fromCharCode(u, lo);
                i += 12;
                break;
              }
            }
            this.fail('JSON_LONE_SURROGATE', `escaped lone surrogate \\u${u.toString(16)}`, i);
          }
          if (u >= 0xdc00 && u <= 0xdfff) this.fail('JSON_LONE_SURROGATE', `escaped lone surrogate \\u${u.toString(16)}`, i);
          out += String.fromCharCode(u);
          i += 6;
          break;
        }
        default:
          this.fail('JSON_SYNTAX', 'invalid escape', i);
      }
      runStart = i;
    }
  }

  hex4(at: number): number {
    const h = this.s.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('JSON_SYNTAX', 'invalid \\u escape', at - 2);
    return parseInt(h, 16);
  }
}

/** A decimal number as sign, digits without leading or trailing zeros, and the power of ten of the last digit; zero is "0". */
function decimalKey(text: string): string {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (m === null) return text;
  const fraction = m[3] ?? '';
  let digits = `${m[2] ?? ''}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = Number(m[4] ?? '0') - fraction.length;
  // A loop, not /0+$/: the pattern retried every zero of a long run that a nonzero digit ends (quadratic).
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30) end--;
  exponent += digits.length - end;
  digits = digits.slice(0, end);
  return `${m[1]}${digits}e${exponent}`;
}

/** True when two JSON number texts denote the same decimal value (-0 and 0 included). */
export function sameDecimalValue(a: string, b: string): boolean {
  return decimalKey(a) === decimalKey(b);
}

/** A strict read with what the reader saw of the text's form. */
export type StrictJsonReading =
  | {
      ok: true;
      value: unknown;
      text: string;
      /** True when the text is surely the JCS form of the value (no whitespace, no escapes, sorted members); false says nothing. */
      canonical: boolean;
      /** For a top-level object: each member's name and the [start, end) of `"name":value` in `text`. */
      members: readonly { key: string; start: number; end: number }[];
    }
  | { ok: false; error: StrictJsonError };

/** Parses already-decoded text strictly (raw lone surrogates in the text are rejected too). */
export function readStrictText(text: string, limits: StrictJsonLimits = DEFAULT_LIMITS): StrictJsonReading {
  const p = new Parser(text, limits.maxDepth, limits.anyNumber === true);
  try {
    const value = p.value(0);
    const end = p.i;
    p.ws();
    if (p.i !== text.length) p.fail('JSON_SYNTAX', 'trailing data after the JSON value');
    if (end !== text.length) p.canonical = false;
    return { ok: true, value, text, canonical: p.canonical, members: p.top };
  } catch (error) {
    if (error instanceof Fail) return { ok: false, error: error.info };
    throw error;
  }
}

/** Parses already-decoded text strictly (raw lone surrogates in the text are rejected too). */
export function parseStrictText(text: string, limits: StrictJsonLimits = DEFAULT_LIMITS): StrictJsonResult {
  const r = readStrictText(text, limits);
  return r.ok ? { ok: true, value: r.value } : r;
}

/** Parses UTF-8 bytes strictly: no BOM, valid UTF-8, size limit, then `parseStrictText`. */
export function parseStrictJson(input: Uint8Array | string, limits: StrictJsonLimits = DEFAULT_LIMITS): StrictJsonResult {
  const r = readStrictJson(input, limits);
  return r.ok ? { ok: true, value: r.value } : r;
}

/** `parseStrictJson` with what the reader saw of the text's form (see `readStrictText`). */
export function readStrictJson(input: Uint8Array | string, limits: StrictJsonLimits = DEFAULT_LIMITS): StrictJsonReading {
  if (typeof input === 'string') {
    if (Buffer.byteLength(input, 'utf8') > limits.maxBytes) return { ok: false, error: { code: 'JSON_LIMITS', offset: 0, detail: `larger than ${limits.maxBytes} bytes`, pointer: '' } };
    if (input.charCodeAt(0) === 0xfeff) return { ok: false, error: { code: 'JSON_INVALID_UTF8', offset: 0, detail: 'byte order mark', pointer: '' } };
    return readStrictText(input, limits);
  }
  if (input.length > limits.maxBytes) return { ok: false, error: { code: 'JSON_LIMITS', offset: 0, detail: `larger than ${limits.maxBytes} bytes`, pointer: '' } };
  if (input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) return { ok: false, error: { code: 'JSON_INVALID_UTF8', offset: 0, detail: 'byte order mark', pointer: '' } };
  let text: string;
  try {
    text = decoder.decode(input);
  } catch {
    return { ok: false, error: { code: 'JSON_INVALID_UTF8', offset: firstInvalidUtf8(input), detail: 'invalid UTF-8', pointer: '' } };
  }
  return readStrictText(text, limits);
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] ?? 0;
    let n = 0;
    let min = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}
