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

  it('prints a command\'s own error once with its prefix, never "iari: iari load:", and others after "iari: "', async () => {
    const lines: string[] = [];
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    try {
      expect(await main(['load', '--rate', '-1']).catch(reportError)).toBe(ExitCode.usage);
      expect(await main(['frobnicate']).catch(reportError)).toBe(ExitCode.usage);
    } finally {
      err.mockRestore();
    }
    expect(lines[0]).toMatch(/^iari load: --rate must be a number from 0\.01 to 100000, got "-1"/);
    expect(lines.join('')).not.toContain('iari: iari');
    expect(lines.find((l) => l.includes('frobnicate'))).toMatch(/^iari: unknown command "frobnicate"/);
  });
});
