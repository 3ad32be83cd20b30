/**
 * Where a run's request records go (issue 43, soak runs): appended to `requests.ndjson` as they
 * finish, so memory holds none of them and a day-long run costs what a minute does. A record list
 * in memory (RecordList) remains for runs without a run directory (the library, A/B, sweeps).
 *
 * The file is written through a bounded queue: lines are joined into writes of about 64 KiB, at
 * most QUEUE_BYTES of them in flight at once; past that the next write waits for the disk on this
 * thread (writeSync), so a slow disk slows the run (its event-loop lag shows in load.json's
 * validity) instead of growing memory. A write error is kept and thrown by close() as one clear
 * error (IARI_REPORT_UNWRITABLE, exit 2), never a crash.
 */
import { closeSync, openSync, readSync, renameSync, rmSync, write, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import type { RequestRecord } from './load-result.ts';

/** The records of one run, in the order they finished; iterable once the run has ended. */
export interface RecordLog extends Iterable<RequestRecord> {
  add(r: RequestRecord): void;
  /** Records added. */
  readonly count: number;
  /** Where they are (null: in memory). */
  readonly path: string | null;
  /** Writes what is queued and closes the file; throws the first write error. */
  close(): Promise<void>;
  /** Aborted at the first write error, so the run stops then rather than at its end (absent: cannot fail). */
  readonly failed?: AbortSignal;
}

/** Pieces are joined up to this many bytes before each write. */
const WRITE_BYTES = 64 * 1024;
/** Writes in flight at most; past this the writer waits for the disk. */
export const QUEUE_BYTES = 4 * 1024 * 1024;

/** The records in memory: every record kept (a run without a run directory). */
export class RecordList implements RecordLog {
  readonly records: RequestRecord[] = [];
  readonly path = null;
  get count(): number {
    return this.records.length;
  }
  add(r: RequestRecord): void {
    this.records.push(r);
  }
  async close(): Promise<void> {}
  [Symbol.iterator](): Iterator<RequestRecord> {
    return this.records[Symbol.iterator]();
  }
}

export interface RecordFileOptions {
  /** Test seam: the positional asynchronous write (default fs.write). */
  write?: (fd: number, buf: Buffer, position: number, done: (err: Error | null) => void) => void;
  queueBytes?: number;
}

/**
 * Opens `<file>.<pid>.tmp` and appends one line per record (`line` gives its JSON, redacted by the
 * caller); close() renames it to `file`, so a reader never sees half of it.
 */
export function openRecordFile(file: string, line: (r: RequestRecord) => string, o: RecordFileOptions = {}): RecordLog & { readonly stalls: number } {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  const writeAsync = o.write ?? ((f, buf, pos, done) => write(f, buf, 0, buf.length, pos, (err) => done(err)));
  const bound = o.queueBytes ?? QUEUE_BYTES;
  let pending: string[] = [];
  let pendingBytes = 0;
  let position = 0;
  let inFlight = 0;
  let count = 0;
  let stalls = 0;
  let error: Error | null = null;
  let closed = false;
  let drained: (() => void) | null = null;
  const failed = new AbortController();
  const fail = (e: Error): void => {
    error ??= e;
    if (!failed.signal.aborted) failed.abort(e);
  };
  const flush = (): void => {
    if (pendingBytes === 0 || error !== null) return;
    const buf = Buffer.from(pending.join(''));
    pending = [];
    pendingBytes = 0;
    const at = position;
    position += buf.length;
    if (inFlight + buf.length > bound) {
      // Backpressure: the queue is full, so this write waits for the disk here.
      stalls++;
      try {
        writeSync(fd, buf, 0, buf.length, at);
      } catch (e) {
        fail(e as Error);
      }
      return;
    }
    inFlight += buf.length;
    writeAsync(fd, buf, at, (err) => {
      inFlight -= buf.length;
      if (err !== null) fail(err);
      if (inFlight === 0) drained?.();
    });
  };
  return {
    path: file,
    failed: failed.signal,
    get count() {
      return count;
    },
    get stalls() {
      return stalls;
    },
    add(r) {
      if (closed || error !== null) return;
      const s = `${line(r)}\n`;
      pending.push(s);
      pendingBytes += s.length;
      count++;
      if (pendingBytes >= WRITE_BYTES) flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      flush();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      closeSync(fd);
      if (error !== null) {
        rmSync(tmp, { force: true });
        throw new HarnessError(HarnessErrorCode.REPORT_UNWRITABLE, `requests.ndjson could not be written (${file}): ${error.message}`);
      }
      renameSync(tmp, file);
    },
    [Symbol.iterator]() {
      if (!closed) throw new Error('the records are read once the run has ended');
      return readRecordFile(file)[Symbol.iterator]();
    },
  };
}

/** A requests.ndjson read line by line in 1 MiB chunks: never whole in memory. A line that is not JSON is thrown with its number. */
export function* readRecordFile(file: string): Generator<RequestRecord> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1024 * 1024);
    // A chunk may end inside a character: the decoder keeps its bytes for the next.
    const text = new StringDecoder('utf8');
    let rest = '';
    let lineNo = 0;
    const parse = (s: string): RequestRecord => {
      try {
        return JSON.parse(s) as RequestRecord;
      } catch {
        throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${file} line ${lineNo} is not JSON`);
      }
    };
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const lines = (rest + text.write(buf.subarray(0, n))).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) {
        lineNo++;
        if (l.trim() !== '') yield parse(l);
      }
    }
    rest += text.end();
    lineNo++;
    if (rest.trim() !== '') yield parse(rest);
  } finally {
    closeSync(fd);
  }
}
