import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/load-command.ts';

describe('iari load progress off a terminal (issue 43)', () => {
  it('LOAD-PROGRESS: with stderr not a terminal (CI logs) a progress line is logged every 10 s, one per line, and none with --json', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
    const dir = mkdtempSync(join(tmpdir(), 'iari-progress-'));
    try {
      expect(process.stderr.isTTY === true).toBe(false);
      // Both runs at once (10 s each at least, so that a line is due in each): lines are told apart by the duration they print.
      const codes = await Promise.all([run(['--duration', '10.6s', '--concurrency', '2', '--report', join(dir, 'a')]), run(['--duration', '10.7s', '--concurrency', '2', '--json', '--report', join(dir, 'b')])]);
      expect(codes).toEqual([0, 0]);
      const progress = lines.filter((l) => /started \d+ {2}done/.test(l));
      expect(progress.length, lines.join('')).toBe(1);
      expect(progress[0]).toMatch(/^\d+\.\ds\/10\.6s {2}started \d+ {2}done \d+/);
      expect(progress[0]).toMatch(/\n$/);
      expect(progress[0]).not.toMatch(/\r|\x1b/);
    } finally {
      spy.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
