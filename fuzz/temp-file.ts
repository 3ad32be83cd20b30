import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarnessError } from '../src/errors.ts';
import { holds, show } from './target.ts';

/**
 * The readers of users' files take a path: each input is written to one file of this process's own
 * temporary folder (rewritten per input), named as the format's files are.
 */
const dir = mkdtempSync(join(tmpdir(), 'iari-fuzz-'));

export function asFile(input: Uint8Array, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, input);
  return file;
}

/** A HarnessError of one of `codes`: what a reader of users' files may throw (exit 2). */
export function harnessError(codes: readonly string[]): (error: unknown) => boolean {
  return (error) => error instanceof HarnessError && codes.includes(error.code);
}

/** Its message stays one readable line: a file's content never fills it. */
export function shortMessage(error: unknown): void {
  const message = (error as Error).message;
  holds(message.length <= 1000 && !message.includes('\n'), () => `a ${message.length}-character error message${message.includes('\n') ? ' of several lines' : ''}: ${show(message, 200)}`);
}
