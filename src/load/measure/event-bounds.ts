import { formatBytes, responseLimits } from '../../client/body-limits.ts';

/**
 * The bounds a load response is held to on the main thread, in one pass over its bytes as they
 * arrive, before any of them is copied to the check worker (docs/load.md, "Large events"): the
 * data of one SSE event (CHAT-STREAM-046) and the nesting of the JSON in it (HDR-015). A whole
 * (not streamed) body is one value: only its nesting is bounded here (its size is HDR-013's).
 * What this refuses is never copied: the request fails and its connection is dropped.
 */
export interface EventRefusal {
  finding: 'json-too-deep' | 'event-too-long';
  detail: string;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
/** "data" as bytes, compared while the field name is read. */
const DATA = [0x64, 0x61, 0x74, 0x61];
/** A UTF-8 byte order mark, which the SSE reader strips before the first line. */
const BOM = [0xef, 0xbb, 0xbf];

const enum Line {
  /** At the start of a line. */
  Start,
  /** Reading the field name. */
  Field,
  /** Just after `data:` (one leading space is not part of the value). */
  ValueStart,
  /** Inside a data value. */
  Data,
  /** Inside a line that is not data (another field, a comment): skipped. */
  Skip,
}

/**
 * Where the whole event starting at `i` ends, when it is one data line closed by a blank line in
 * this read ("data: V" LF LF) and V can break neither bound: no longer than `maxEventBytes`, and
 * holding at most `maxDepth` opening brackets, which bounds its nesting whatever its strings hold.
 * Such an event leaves the scan's state as it found it (the blank line resets it), so it is passed
 * over with one native search for its end and one count of its brackets instead of the byte-by-byte
 * walk (a third of the bounds' CPU per event at the load ceiling, issue 41); -1 otherwise.
 */
function wholeEventEnd(chunk: Uint8Array, i: number, maxDepth: number, maxEventBytes: number): number {
  if (chunk[i] !== DATA[0] || chunk[i + 1] !== DATA[1] || chunk[i + 2] !== DATA[2] || chunk[i + 3] !== DATA[3] || chunk[i + 4] !== COLON) return -1;
  const s = chunk[i + 5] === SPACE ? i + 6 : i + 5;
  const e = chunk.indexOf(LF, s);
  if (e === -1 || chunk[e + 1] !== LF || e - s > maxEventBytes) return -1;
  let opens = 0;
  // '[' (0x5b) and '{' (0x7b) are the only bytes with c | 0x20 === 0x7b.
  for (let k = s; k < e; k++) if (((chunk[k] as number) | 0x20) === OPEN_BRACE) opens++;
  return opens > maxDepth ? -1 : e + 2;
}

export class EventBounds {
  readonly #stream: boolean;
  readonly #maxDepth: number;
  readonly #maxEventBytes: number;
  #line = Line.Start;
  #fieldAt = 0;
  #isData = true;
  #afterCr = false;
  #eventBytes = 0;
  #bodyBytes = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #refused: EventRefusal | null = null;
  /** Bytes of a leading byte order mark seen so far (streams); -1 once the stream's first bytes are decided. */
  #bom = 0;

  constructor(stream: boolean, limits: { jsonDepth?: number; sseEventBytes?: number } = {}) {
    this.#stream = stream;
    this.#maxDepth = limits.jsonDepth ?? responseLimits.jsonDepth;
    this.#maxEventBytes = limits.sseEventBytes ?? responseLimits.sseEventBytes;
    if (!stream) this.#line = Line.Data;
  }

  /**
   * Scans one read; the first refusal (then every later call returns it without scanning). The
   * state lives in locals while the read is scanned (one field write per read, not several per
   * byte): this runs on the thread that stamps, for every byte a load run reads.
   */
  feed(chunk: Uint8Array): EventRefusal | null {
    if (this.#refused !== null) return this.#refused;
    const n = chunk.length;
    const stream = this.#stream;
    const maxDepth = this.#maxDepth;
    const maxEventBytes = this.#maxEventBytes;
    let line = this.#line;
    let fieldAt = this.#fieldAt;
    let isData = this.#isData;
    let afterCr = this.#afterCr;
    let eventBytes = this.#eventBytes;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let refused: EventRefusal | null = null;
    if (!stream) this.#bodyBytes += n;
    let from = 0;
    if (stream && this.#bom >= 0) {
      // WHATWG SSE, UTF-8 decode: a leading BOM is stripped, so the first line after it is read like any
      // other (without this, "\uFEFFdata: [[[..." passed both bounds to the checker, which reads it as data).
      while (from < n && this.#bom < BOM.length && chunk[from] === BOM[this.#bom]) {
        from++;
        this.#bom++;
      }
      if (this.#bom === BOM.length) this.#bom = -1;
      else if (from < n) {
        // Not a BOM: the bytes taken begin a first line whose field is not data.
        if (this.#bom > 0) {
          line = Line.Field;
          isData = false;
        }
        this.#bom = -1;
      }
    }
    // No CR in this read: whole events may be taken at once (wholeEventEnd).
    const lfOnly = stream && chunk.indexOf(CR, from) === -1;
    for (let i = from; i < n; i++) {
      if (lfOnly && line === Line.Start && !afterCr && eventBytes === 0 && depth === 0 && !inString) {
        const end = wholeEventEnd(chunk, i, maxDepth, maxEventBytes);
        if (end !== -1) {
          i = end - 1;
          continue;
        }
      }
      const b = chunk[i] as number;
      if (stream) {
        if (b === LF || b === CR) {
          if (b === LF && afterCr) {
            afterCr = false;
            continue;
          }
          afterCr = b === CR;
          if (line === Line.Start) {
            // A blank line ends the event.
            eventBytes = 0;
            depth = 0;
            inString = false;
            escaped = false;
          } else {
            // Data lines of one event are joined with a newline: it counts towards the event (the count then runs one
            // ahead of the data until the next data line). A line that is just "data" (no colon) is a data line with an
            // empty value (WHATWG SSE: "using the whole line as the field name"): a run of them is bounded too.
            if (line === Line.Data || line === Line.ValueStart || (line === Line.Field && isData && fieldAt === DATA.length)) {
              if (++eventBytes > maxEventBytes + 1) {
                refused = { finding: 'event-too-long', detail: `CHAT-STREAM-046 event data longer than ${formatBytes(maxEventBytes)}; iari stopped reading the stream before copying it to the checker` };
                break;
              }
            }
            line = Line.Start;
          }
          continue;
        }
        afterCr = false;
        if (line === Line.Start) {
          fieldAt = 0;
          isData = true;
          if (b === COLON) {
            line = Line.Skip;
            continue;
          }
          line = Line.Field;
        }
        if (line === Line.Field) {
          if (b === COLON) line = isData && fieldAt === DATA.length ? Line.ValueStart : Line.Skip;
          else {
            if (fieldAt >= DATA.length || DATA[fieldAt] !== b) isData = false;
            fieldAt++;
          }
          continue;
        }
        if (line === Line.Skip) continue;
        if (line === Line.ValueStart) {
          line = Line.Data;
          if (b === SPACE) continue;
        }
        // Inside a data value: the bytes up to the line's end in one tight loop (the bulk of a stream).
        let k = i;
        for (; k < n; k++) {
          const c = chunk[k] as number;
          if (c === LF || c === CR) break;
          if (++eventBytes > maxEventBytes) break;
          if (inString) {
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) inString = false;
          } else if (c === QUOTE) inString = true;
          else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
            if (++depth > maxDepth) break;
          } else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && depth > 0) depth--;
        }
        if (eventBytes > maxEventBytes) {
          refused = { finding: 'event-too-long', detail: `CHAT-STREAM-046 event data longer than ${formatBytes(maxEventBytes)}; iari stopped reading the stream before copying it to the checker` };
          break;
        }
        if (depth > maxDepth) {
          refused = { finding: 'json-too-deep', detail: `HDR-015 JSON nested deeper than ${maxDepth} levels; iari stopped reading the stream before copying it to the checker` };
          break;
        }
        // The line's end (if in this read) is handled by the outer loop.
        i = k - 1;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
        if (++depth > maxDepth) {
          refused = { finding: 'json-too-deep', detail: `HDR-015 JSON nested deeper than ${maxDepth} levels; iari stopped reading the ${stream ? 'stream' : 'body'} before copying it to the checker` };
          break;
        }
      } else if ((b === CLOSE_BRACKET || b === CLOSE_BRACE) && depth > 0) depth--;
    }
    this.#line = line;
    this.#fieldAt = fieldAt;
    this.#isData = isData;
    this.#afterCr = afterCr;
    this.#eventBytes = eventBytes;
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    return (this.#refused = refused);
  }

  /** Bytes of the event still open (streams), or of the body so far: what the checker will hold at once. */
  get openBytes(): number {
    return this.#stream ? this.#eventBytes : this.#bodyBytes;
  }
}
