import { vi } from 'vitest';
import { run } from '../../src/cli/receipts-command.ts';
import { isHarnessError } from '../../src/errors.ts';

/** Runs `iari receipts ARGV` in-process: its exit code (a HarnessError's, when it throws one) and its output. */
export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  try {
    return { code: await run(argv), out, err };
  } catch (error) {
    if (isHarnessError(error)) return { code: error.exitCode, out, err: err + error.message };
    throw error;
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}
