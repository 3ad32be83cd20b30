/**
 * Where a run writes: `reports/<run-id>/` (run id = UTC timestamp + short random suffix) or the
 * directory given with `--report DIR`. Files are written atomically (temp file, then rename),
 * so a reader never sees half a report.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** `20261121T093000Z-3fa9c1`: sorts by time, unique within a second. */
export function newRunId(now: Date = new Date(), random: () => string = () => randomBytes(3).toString('hex')): string {
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `${stamp}-${random()}`;
}

export interface RunDir {
  id: string;
  /** Absolute path of the run directory. */
  dir: string;
  /** Absolute path of a file inside the run directory (rejects paths that escape it). */
  path(name: string): string;
  /** Writes a file inside the run directory atomically; returns its absolute path. */
  write(name: string, data: string | Uint8Array): string;
  /** The same for a file of many pieces (requests.ndjson), written as they come: never held whole. */
  writePieces(name: string, pieces: Iterable<string>): string;
}

export interface RunDirOptions {
  /** `--report DIR`: write exactly there. */
  report?: string | undefined;
  /** Parent of generated run directories (default `reports`, relative to cwd). */
  root?: string;
  id?: string;
  now?: Date;
}

export function createRunDir(options: RunDirOptions = {}): RunDir {
  const id = options.id ?? newRunId(options.now);
  const dir = resolve(options.report ?? join(options.root ?? 'reports', id));
  mkdirSync(dir, { recursive: true });
  const path = (name: string): string => {
    const full = resolve(dir, name);
    const rel = relative(dir, full);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`report file "${name}" is outside the run directory`);
    return full;
  };
  return {
    id,
    dir,
    path,
    write(name, data) {
      const full = path(name);
      writeFileAtomic(full, data);
      return full;
    },
    writePieces(name, pieces) {
      const full = path(name);
      writePiecesAtomic(full, pieces);
      return full;
    },
  };
}

/**
 * A written file's path as the user should read it: under `--report DIR` as they typed DIR
 * (`--report /tmp/x` shows /tmp/x/report.html, not ../../tmp/x/report.html), else relative to
 * the working directory.
 */
export function shownPath(reportFlag: string | undefined, file: string): string {
  if (reportFlag === undefined) return relative(process.cwd(), file) || '.';
  return join(reportFlag, relative(resolve(reportFlag), file));
}

let counter = 0;

/** Writes to `<file>.<pid>.<n>.tmp` beside the target, then renames over it. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  atomically(file, (tmp) => writeFileSync(tmp, data));
}

/** Pieces are joined up to this many characters before each write. */
const WRITE_CHARS = 64 * 1024;

/**
 * writeFileAtomic for content given in pieces: they are written as they come, in writes of about
 * 64 KiB, so a file of a hundred thousand lines is never one string in memory (issue 42: a load
 * run's requests.ndjson, joined whole, added 40 MiB to the peak of a run against a fast-failing server).
 */
export function writePiecesAtomic(file: string, pieces: Iterable<string>): void {
  atomically(file, (tmp) => {
    const fd = openSync(tmp, 'w');
    try {
      let pending = '';
      for (const piece of pieces) {
        pending += piece;
        if (pending.length >= WRITE_CHARS) {
          writeSync(fd, pending);
          pending = '';
        }
      }
      if (pending !== '') writeSync(fd, pending);
    } finally {
      closeSync(fd);
    }
  });
}

function atomically(file: string, write: (tmp: string) => void): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${counter++}.tmp`;
  try {
    write(tmp);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
