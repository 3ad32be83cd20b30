import { describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../exit-codes.ts';
import { HarnessError } from '../errors.ts';
import { helpText, main, reportError } from './main.ts';

describe('iari CLI dispatch', () => {
  it('prints help listing every exit code and exits 0 on --help', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--help'])).toBe(ExitCode.ok);
    } finally {
      write.mockRestore();
    }
    for (const code of ['0 ', '1 ', '2 ', '3 ', '130 ']) expect(helpText()).toContain(`\n  ${code}`);
  });

  it('rejects an unknown command as a usage error (exit 2)', async () => {
    await expect(main(['frobnicate'])).rejects.toBeInstanceOf(HarnessError);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main(['frobnicate']).catch(reportError);
      expect(code).toBe(ExitCode.usage);
    } finally {
      err.mockRestore();
    }
  });

  it('prints the help of the command named by `iari help test`, not the global help', async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
    try {
      expect(await main(['help', 'test'])).toBe(ExitCode.ok);
      expect(await main(['help', 'load'])).toBe(ExitCode.ok);
    } finally {
      write.mockRestore();
    }
    expect(out[0]).toMatch(/^Usage: iari test /);
    expect(out[1]).toMatch(/^Usage: iari load /);
    await expect(main(['help', 'frobnicate'])).rejects.toMatchObject({ code: 'IARI_UNKNOWN_COMMAND', exitCode: 2 });
  });
});
