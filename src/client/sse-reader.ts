import { Buffer, isUtf8 } from 'node:buffer';
import { responseLimits } from './body-limits.ts';

/**
 * An incremental, strict-but-standard server-sent-events framing parser.
 *
 * It follows the WHATWG HTML "event stream interpretation" rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
 * and works on bytes: byte offsets are exact, UTF-8 characters split across reads are never
 * decoded early (a line is decoded only once all its bytes have arrived), and nothing is lost
 * between reads. It never throws on server input: what the standard forbids or discards is
 * reported as a finding with its byte offset.
 */

export interface SseEvent {
  /** `message`: the block had at least one `data` field. `meta`: only id/retry/event/unknown fields (the standard dispatches nothing). */
  kind: 'message' | 'meta';
  /** The data buffer with the trailing LF removed: several data lines joined by `\n`. */
  data: string;
  dataLines: number;
  /** The `event` field of this block, when present. */
  event: string | undefined;
  /** The `id` field of this block, when present (and free of NUL, else the standard ignores it). */
  id: string | undefined;
  /** The `retry` field of this block, when present and all ASCII digits. */
  retry: number | undefined;
  /** Byte offset of the block's first field line (BOM bytes counted). */
  startOffset: number;
  /** Byte offset where the empty line that dispatched the block starts: [startOffset, endOffset) holds its field lines. */
  endOffset: number;
  /** Arrival time (the caller's clock) of the read that completed the block. */
  arrivedAt: bigint;
  /** Index (0-based) of the read (`feed` call) that completed the block. */
  chunkIndex: number;
  /** Index (0-based) of this block among all dispatched blocks, `meta` ones included. */
  index: number;
  /** How the block's last field line ended. */
  eol: LineEnding;
}

export type LineEnding = 'lf' | 'crlf' | 'cr';

export const sseFindingCodes = [
  'invalid-utf8',
  'ended-mid-event',
  'ended-mid-line',
  'line-too-long',
  'event-too-long',
  'unknown-field',
  'invalid-retry',
  'id-contains-nul',
] as const;
export type SseFindingCode = (typeof sseFindingCodes)[number];

export interface SseFinding {
  code: SseFindingCode;
  offset: number;
  chunkIndex: number;
  detail: string;
}

export interface SseReaderStats {
  bytes: number;
  reads: number;
  events: number;
  bom: boolean;
  comments: number;
  firstCommentOffset: number;
  /** Blocks whose bytes arrived in more than one read. */
  splitEvents: number;
  /** `data:` lines with no space after the colon. */
  dataNoSpace: number;
  lineEndings: { lf: number; crlf: number; cr: number };
}

export interface SseEndState {
  findings: SseFinding[];
  /** The block being built when the stream ended (the standard discards it). */
  partialEvent: { data: string; dataLines: number; startOffset: number } | undefined;
  /** The bytes after the last line terminator, decoded (the standard discards them). */
  unterminatedLine: { text: string; offset: number } | undefined;
}

export interface SseReaderOptions {
  /** A line longer than this is reported and discarded (default responseLimits.sseLineBytes, 8 MiB). */
  maxLineBytes?: number;
  /** An event whose data lines together exceed this is reported and discarded (default responseLimits.sseEventBytes, 8 MiB). */
  maxEventBytes?: number;
}

/** Findings kept per code (the rest are counted in `suppressedFindings`): a flood of bad lines cannot grow the list without bound. */
const MAX_FINDINGS_PER_CODE = 50;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const NO_EVENTS: readonly SseEvent[] = Object.freeze([]);

export class SseReader {
  readonly findings: SseFinding[] = [];
  readonly stats: SseReaderStats = {
    bytes: 0,
    reads: 0,
    events: 0,
    bom: false,
    comments: 0,
    firstCommentOffset: -1,
    splitEvents: 0,
    dataNoSpace: 0,
    lineEndings: { lf: 0, crlf: 0, cr: 0 },
  };

  /** Findings beyond MAX_FINDINGS_PER_CODE of one code, not kept. */
  suppressedFindings = 0;
  readonly #maxLineBytes: number;
  readonly #maxEventBytes: number;
  /** The current event's data grew past maxEventBytes: it is discarded at its dispatch. */
  #eventTooLong = false;
  readonly #perCode = new Map<SseFindingCode, number>();
  /** Bytes of an incomplete line carried over from earlier reads. */
  #tail: Buffer | undefined;
  /** Later pieces of the same open line, and the open line's length in all. */
  #tailMore: Buffer[] = [];
  #tailLen = 0;
  /** Absolute offset of the next byte `feed` will see. */
  #offset = 0;
  #bomDecided = false;
  #afterCR = false;
  #discarding = false;
  #ended = false;

  #evStart = -1;
  #data = '';
  #dataLines = 0;
  #event: string | undefined;
  #id: string | undefined;
  #retry: number | undefined;
  #evEol: LineEnding = 'lf';
  #lastLineWasField = false;

  #out: SseEvent[] | undefined;
  #arrivedAt = 0n;
  #chunkIndex = -1;
  #readStart = 0;
  /** The buffer being scanned is valid UTF-8 as a whole (one native pass per read): its lines are not checked one by one. */
  #wholeUtf8 = false;

  constructor(options: SseReaderOptions = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? responseLimits.sseLineBytes;
    this.#maxEventBytes = options.maxEventBytes ?? responseLimits.sseEventBytes;
  }

  /** Feed the next read. Returns the blocks it completed, in order (a shared empty array when none). */
  feed(chunk: Uint8Array, arrivedAt: bigint): readonly SseEvent[] {
    if (this.#ended) throw new Error('SseReader.feed called after end()');
    this.#chunkIndex++;
    this.stats.reads++;
    this.stats.bytes += chunk.byteLength;
    this.#arrivedAt = arrivedAt;
    this.#out = undefined;
    let work = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let base = this.#offset;
    this.#readStart = base;
    this.#offset += work.length;
    if (this.#tail !== undefined) {
      // A line still open: while no terminator arrives its pieces are only collected and joined once,
      // when it ends (joining on every read would copy a long line over and over).
      if (this.#bomDecided && work.indexOf(LF) === -1 && work.indexOf(CR) === -1) {
        this.#tailMore.push(Buffer.from(work));
        this.#tailLen += work.length;
        if (this.#tailLen > this.#maxLineBytes) {
          this.#finding('line-too-long', this.#offset - this.#tailLen, `line longer than ${this.#maxLineBytes} bytes; discarded up to its terminator`);
          this.#discarding = true;
          this.#tail = undefined;
          this.#tailMore = [];
          this.#tailLen = 0;
        }
        return NO_EVENTS;
      }
      base -= this.#tailLen;
      work = Buffer.concat([this.#tail, ...this.#tailMore, work]);
      this.#tail = undefined;
      this.#tailMore = [];
      this.#tailLen = 0;
    }
    if (!this.#bomDecided) {
      // Spec, UTF-8 decode: a leading byte order mark is stripped.
      if (work.length < 3 && isBomPrefix(work)) {
        this.#tail = Buffer.from(work);
        this.#tailLen = work.length;
        return NO_EVENTS;
      }
      this.#bomDecided = true;
      if (work.length >= 3 && work[0] === 0xef && work[1] === 0xbb && work[2] === 0xbf) {
        this.stats.bom = true;
        work = work.subarray(3);
        base += 3;
      }
    }
    this.#wholeUtf8 = isUtf8(work);
    this.#scan(work, base);
    const out = this.#out;
    this.#out = undefined;
    return out ?? NO_EVENTS;
  }

  /** The stream is over: report what the standard discards (an unterminated line, an undispatched block). */
  end(): SseEndState {
    if (this.#ended) throw new Error('SseReader.end called twice');
    this.#ended = true;
    let unterminatedLine: SseEndState['unterminatedLine'];
    const tail = this.#tail === undefined ? undefined : Buffer.concat([this.#tail, ...this.#tailMore]);
    this.#tailMore = [];
    this.#tailLen = 0;
    if (tail !== undefined && tail.length > 0) {
      const offset = this.#offset - tail.length;
      unterminatedLine = { text: tail.toString('utf8'), offset };
      this.#finding('ended-mid-line', offset, `stream ended inside a line (${tail.length} bytes without a line terminator are discarded)`);
      this.#tail = undefined;
    }
    let partialEvent: SseEndState['partialEvent'];
    const danglingField = unterminatedLine !== undefined && !unterminatedLine.text.startsWith(':');
    const start = this.#evStart >= 0 ? this.#evStart : danglingField ? unterminatedLine?.offset : undefined;
    if (start !== undefined) {
      partialEvent = { data: this.#data, dataLines: this.#dataLines, startOffset: start };
      this.#finding('ended-mid-event', start, 'stream ended before the empty line that dispatches this event; the event is discarded');
    }
    return { findings: this.findings, partialEvent, unterminatedLine };
  }

  #scan(b: Buffer, base: number): void {
    const len = b.length;
    if (len === 0) return;
    let pos = 0;
    if (this.#afterCR) {
      this.#afterCR = false;
      // Spec: lines end with CRLF, a lone LF or a lone CR; a CRLF split across reads is one terminator.
      if (len > 0 && b[0] === LF) {
        pos = 1;
        this.stats.lineEndings.cr--;
        this.stats.lineEndings.crlf++;
        if (this.#lastLineWasField) this.#evEol = 'crlf';
      }
    }
    let nextLF = -2;
    let nextCR = -2;
    while (pos < len) {
      if (nextLF !== -1 && nextLF < pos) nextLF = b.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = b.indexOf(CR, pos);
      let eol: number;
      if (nextLF === -1) eol = nextCR;
      else if (nextCR === -1) eol = nextLF;
      else eol = nextLF < nextCR ? nextLF : nextCR;
      if (eol === -1) break;
      let next = eol + 1;
      let kind: LineEnding = 'lf';
      if (b[eol] === CR) {
        kind = 'cr';
        if (next < len) {
          if (b[next] === LF) {
            next++;
            kind = 'crlf';
            this.stats.lineEndings.crlf++;
          } else this.stats.lineEndings.cr++;
        } else {
          this.stats.lineEndings.cr++;
          this.#afterCR = true;
        }
      } else this.stats.lineEndings.lf++;
      if (this.#discarding) {
        this.#discarding = false;
        // A discarded line is no field line: a CRLF split after it must not change the block's line ending.
        this.#lastLineWasField = false;
      } else if (eol - pos > this.#maxLineBytes) {
        // Whole in this read or not, a line over the bound is discarded: the verdict never depends on where reads split.
        this.#finding('line-too-long', base + pos, `line longer than ${this.#maxLineBytes} bytes; discarded up to its terminator`);
        this.#lastLineWasField = false;
      } else this.#line(b, pos, eol, base, kind);
      pos = next;
    }
    if (pos < len) {
      if (this.#discarding) return;
      if (len - pos > this.#maxLineBytes) {
        this.#finding('line-too-long', base + pos, `line longer than ${this.#maxLineBytes} bytes; discarded up to its terminator`);
        this.#discarding = true;
        return;
      }
      this.#tail = Buffer.from(b.subarray(pos));
      this.#tailLen = this.#tail.length;
    }
  }

  #line(b: Buffer, start: number, end: number, base: number, kind: LineEnding): void {
    this.#lastLineWasField = false;
    if (start === end) {
      this.#dispatch(base + start);
      return;
    }
    const first = b[start];
    if (first === COLON) {
      // Spec: "If the line starts with a U+003A COLON character (:), ignore the line."
      if (this.stats.comments === 0) this.stats.firstCommentOffset = base + start;
      this.stats.comments++;
      return;
    }
    if (this.#evStart < 0) this.#evStart = base + start;
    this.#lastLineWasField = true;
    this.#evEol = kind;
    let colon = start;
    while (colon < end && b[colon] !== COLON) colon++;
    let valueStart = colon + 1;
    // Spec: "If value starts with a U+0020 SPACE character, remove it from value."
    if (valueStart < end && b[valueStart] === SPACE) valueStart++;
    if (valueStart > end) valueStart = end;
    const nameLen = colon - start;
    if (nameLen === 4 && b[start] === 0x64 && b[start + 1] === 0x61 && b[start + 2] === 0x74 && b[start + 3] === 0x61) {
      if (colon + 1 < end && b[colon + 1] !== SPACE) this.stats.dataNoSpace++;
      this.#dataLines++;
      if (this.#eventTooLong) return;
      // Registry CHAT-STREAM-046: the data of one event is bounded; past the bound it is dropped, not buffered.
      if (this.#data.length + (end - valueStart) + 1 > this.#maxEventBytes) {
        this.#finding('event-too-long', base + start, `event data longer than ${this.#maxEventBytes} bytes; the event is discarded`);
        this.#eventTooLong = true;
        this.#data = '';
        return;
      }
      const value = this.#decode(b, valueStart, end, base);
      this.#data = this.#dataLines === 1 ? value : this.#data + '\n' + value;
      return;
    }
    const name = this.#decode(b, start, colon, base);
    const value = this.#decode(b, valueStart, end, base);
    switch (name) {
      case 'event':
        this.#event = value;
        return;
      case 'id':
        // Spec: "If the field value does not contain U+0000 NULL, then set the last event ID buffer to the field value."
        if (value.includes('\u0000')) this.#finding('id-contains-nul', base + start, 'id field contains NUL; the standard ignores it');
        else this.#id = value;
        return;
      case 'retry':
        // Spec: "If the field value consists of only ASCII digits, then interpret ... as an integer"; otherwise ignore.
        if (/^[0-9]+$/.test(value)) this.#retry = Number(value);
        else this.#finding('invalid-retry', base + start, `retry field ${JSON.stringify(value)} is not all ASCII digits; ignored`);
        return;
      default:
        this.#finding('unknown-field', base + start, `unknown field ${JSON.stringify(name)} is ignored`);
    }
  }

  #decode(b: Buffer, start: number, end: number, base: number): string {
    if (start === end) return '';
    if (!this.#wholeUtf8 && !isUtf8(b.subarray(start, end))) {
      const bad = firstInvalidUtf8(b, start, end);
      this.#finding('invalid-utf8', base + bad, 'invalid UTF-8; decoded with U+FFFD replacement');
    }
    return b.toString('utf8', start, end);
  }

  #resetEvent(): void {
    this.#evStart = -1;
    this.#data = '';
    this.#dataLines = 0;
    this.#event = undefined;
    this.#id = undefined;
    this.#retry = undefined;
  }

  #dispatch(blankAt: number): void {
    if (this.#evStart < 0) return;
    if (this.#evStart < this.#readStart) this.stats.splitEvents++;
    if (this.#eventTooLong) {
      this.#eventTooLong = false;
      this.#resetEvent();
      return;
    }
    const ev: SseEvent = {
      kind: this.#dataLines > 0 ? 'message' : 'meta',
      data: this.#data,
      dataLines: this.#dataLines,
      event: this.#event,
      id: this.#id,
      retry: this.#retry,
      startOffset: this.#evStart,
      endOffset: blankAt,
      arrivedAt: this.#arrivedAt,
      chunkIndex: this.#chunkIndex,
      index: this.stats.events++,
      eol: this.#evEol,
    };
    this.#resetEvent();
    if (this.#out === undefined) this.#out = [ev];
    else this.#out.push(ev);
  }

  #finding(code: SseFindingCode, offset: number, detail: string): void {
    const n = (this.#perCode.get(code) ?? 0) + 1;
    this.#perCode.set(code, n);
    if (n > MAX_FINDINGS_PER_CODE) {
      this.suppressedFindings++;
      return;
    }
    this.findings.push({ code, offset, chunkIndex: this.#chunkIndex, detail });
  }
}

function isBomPrefix(b: Buffer): boolean {
  return (b.length < 1 || b[0] === 0xef) && (b.length < 2 || b[1] === 0xbb);
}

/** Offset of the first byte that starts an invalid UTF-8 sequence in [start, end). */
export function firstInvalidUtf8(b: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const c = b[i] ?? 0;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    if (i + need >= end) return i;
    let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k] ?? 0;
      if ((cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return end;
}

/** Read a whole byte sequence in one go (tests, fixtures, non-streaming callers). */
export function readAllSse(bytes: Uint8Array, arrivedAt = 0n): { events: SseEvent[]; end: SseEndState; stats: SseReaderStats } {
  const reader = new SseReader();
  const events = [...reader.feed(bytes, arrivedAt)];
  const end = reader.end();
  return { events, end, stats: reader.stats };
}
