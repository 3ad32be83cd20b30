// Durable append-only JSONL ledger of the mock's receipts (`iari mock --ledger FILE`).
//
// One line per receipt: {"account":...,"mandate":...,"receipt":{...}}\n, in issue order across
// all Mandate chains. `append` returns only after the line is on disk, so a receipt is durable
// before the response it records finishes. Opening the ledger reads every complete line back
// (the issuer rebuilds each chain and its head from them) and cuts a torn last line, with a
// warning that names its byte offset.
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError, HarnessErrorCode } from '../src/errors.ts';

export interface LedgerRecord {
  account: string;
  mandate: string;
  receipt: Record<string, unknown>;
}

export interface LedgerEntry extends LedgerRecord {
  /** Byte offset of the line in the file. */
  offset: number;
}

export interface LedgerRecovery {
  /** Byte offset where the torn line started; the file was truncated to this length. */
  offset: number;
  /** How many bytes were cut. */
  bytes: number;
  reason: 'no-trailing-newline' | 'unparsable';
}

/**
 * How a line reaches the disk before `append` returns. Measured on this machine's ext4
 * (scripts/bench-mock.ts, section "ledger"): both cost about the same (~160 us per append), so the
 * default is `dsync` (the fd is opened with O_DSYNC: one write syscall per receipt, no separate
 * flush); `fdatasync` is the fallback where O_DSYNC does not exist.
 */
export type LedgerSyncMode = 'dsync' | 'fdatasync';

export interface LedgerOptions {
  sync?: LedgerSyncMode;
  /**
   * Receives every complete line as the file is read on open (streamed in 1 MiB reads: a ledger of
   * any length is replayed in bounded memory); without it the lines are collected in `recovered`.
   */
  onEntry?: (entry: LedgerEntry) => void;
  /** Receives the torn-tail warning (and stale-lock notice); defaults to stderr. */
  onWarning?: (message: string) => void;
}

export interface ReceiptLedger {
  readonly path: string;
  readonly sync: LedgerSyncMode;
  /** Every complete line present when the ledger was opened, oldest first (empty when `onEntry` received them). */
  readonly recovered: readonly LedgerEntry[];
  /** How many complete lines the ledger held when it was opened. */
  readonly recoveredCount: number;
  /** Set when a torn last line was cut on open. */
  readonly recovery: LedgerRecovery | null;
  /** Appends one line and returns once it is on disk. */
  append(record: LedgerRecord): void;
  /** The same, with the receipt already serialised as JSON (the issuer keeps that text anyway). */
  appendSerialized(account: string, mandate: string, receiptJson: string): void;
  close(): void;
}

const NEWLINE = 0x0a;

export function openReceiptLedger(file: string, options: LedgerOptions = {}): ReceiptLedger {
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`iari mock: ${message}\n`));
  const sync: LedgerSyncMode = options.sync ?? (fs.constants.O_DSYNC === undefined ? 'fdatasync' : 'dsync');
  const absolute = path.resolve(file);
  const releaseLock = acquireLock(absolute, warn);
  try {
    const existed = fs.existsSync(absolute);
    const entries: LedgerEntry[] = [];
    const { count, recovery } = existed ? scanLedger(absolute, options.onEntry ?? ((e) => entries.push(e))) : { count: 0, recovery: null };
    if (recovery !== null) {
      fs.truncateSync(absolute, recovery.offset);
      warn(
        `ledger ${file}: torn last line at byte offset ${recovery.offset} (${recovery.bytes} bytes, ${recovery.reason}) cut; ` +
          `${count} complete receipts kept`,
      );
    }
    const flags =
      fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (sync === 'dsync' ? (fs.constants.O_DSYNC ?? 0) : 0);
    const fd = fs.openSync(absolute, flags, 0o600);
    fs.fsyncSync(fd);
    if (!existed || recovery !== null) fsyncDirectory(path.dirname(absolute));
    let closed = false;
    return {
      path: absolute,
      sync,
      recovered: entries,
      recoveredCount: count,
      recovery,
      append(record) {
        this.appendSerialized(record.account, record.mandate, JSON.stringify(record.receipt));
      },
      appendSerialized(account, mandate, receiptJson) {
        if (closed) throw new HarnessError(HarnessErrorCode.INTERNAL, `ledger ${file} is closed`);
        const line = `{"account":${JSON.stringify(account)},"mandate":${JSON.stringify(mandate)},"receipt":${receiptJson}}\n`;
        writeAll(fd, Buffer.from(line, 'utf8'));
        if (sync === 'fdatasync') fs.fdatasyncSync(fd);
      },
      close() {
        if (closed) return;
        closed = true;
        fs.closeSync(fd);
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** Reads a ledger without changing it, every line into memory (tests, small ledgers). */
export function readLedger(file: string): { entries: LedgerEntry[]; recovery: LedgerRecovery | null } {
  const entries: LedgerEntry[] = [];
  const { recovery } = scanLedger(file, (e) => entries.push(e));
  return { entries, recovery };
}

const READ_BYTES = 1024 * 1024;

/**
 * Streams a ledger's complete lines to `onEntry` in file order, reading 1 MiB at a time (a
 * ledger of any length is read in bounded memory), without changing it. Returns how many lines
 * were complete and, when the last line is torn, where it starts.
 */
export function scanLedger(file: string, onEntry: (entry: LedgerEntry) => void): { count: number; recovery: LedgerRecovery | null } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (cause) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `ledger ${file} cannot be read`, { cause });
  }
  try {
    const size = fs.fstatSync(fd).size;
    let count = 0;
    let carry = Buffer.alloc(0);
    /** File offset of carry[0]. */
    let base = 0;
    let pos = 0;
    const chunk = Buffer.allocUnsafe(READ_BYTES);
    while (pos < size) {
      const n = fs.readSync(fd, chunk, 0, Math.min(READ_BYTES, size - pos), pos);
      if (n <= 0) break;
      pos += n;
      const buf = carry.length === 0 ? chunk.subarray(0, n) : Buffer.concat([carry, chunk.subarray(0, n)]);
      let start = 0;
      for (let end = buf.indexOf(NEWLINE, start); end !== -1; end = buf.indexOf(NEWLINE, start)) {
        const offset = base + start;
        const record = parseRecord(buf.subarray(start, end));
        if (record === null) {
          if (offset + (end - start) + 1 === size) return { count, recovery: { offset, bytes: size - offset, reason: 'unparsable' } };
          // A bad line with complete lines after it is not a torn append: refuse rather than lose receipts.
          throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `ledger ${file}: line at byte offset ${offset} is not a ledger record and is followed by more lines`, {
            hint: 'the ledger is corrupt in the middle; restore it from a copy or start a new ledger file',
          });
        }
        onEntry({ ...record, offset });
        count++;
        start = end + 1;
      }
      carry = Buffer.from(buf.subarray(start));
      base += start;
    }
    if (carry.length > 0) return { count, recovery: { offset: base, bytes: size - base, reason: 'no-trailing-newline' } };
    return { count, recovery: null };
  } finally {
    fs.closeSync(fd);
  }
}

function parseRecord(line: Buffer): LedgerRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { account, mandate, receipt } = value as Record<string, unknown>;
  if (typeof account !== 'string' || typeof mandate !== 'string') return null;
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return null;
  return { account, mandate, receipt: receipt as Record<string, unknown> };
}

function writeAll(fd: number, buffer: Buffer): void {
  let written = 0;
  while (written < buffer.length) written += fs.writeSync(fd, buffer, written, buffer.length - written);
}

function fsyncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(directory, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Directories cannot be opened for fsync on every platform (Windows); the file itself is synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** One writer per ledger: `FILE.lock` holds the writer's pid; a lock left by a dead process is taken over. */
function acquireLock(file: string, warn: (message: string) => void): () => void {
  const lock = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(lock, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `ledger lock ${lock} cannot be created`, { cause: error });
      }
      const holder = Number.parseInt(readOrEmpty(lock), 10);
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `ledger ${file} is in use by process ${holder}`, {
          hint: 'stop the other mock server or pass a different --ledger file',
        });
      }
      warn(`ledger ${file}: taking over a stale lock left by process ${Number.isNaN(holder) ? 'unknown' : holder}`);
      fs.rmSync(lock, { force: true });
    }
  }
  throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `ledger ${file}: lock ${lock} could not be taken`);
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
