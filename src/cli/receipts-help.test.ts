import { describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { readPayloadsText } from '../receipts/payloads-file.ts';

// Issue 31: the --payloads help said a number "that no IEEE 754 double holds exactly as written" exits 2,
// which contradicts D-RCPT-13 (0.1 is read; 2^60 written in full is refused). The help's examples are
// now lists, and each is held to what the payloads reader does with it.
describe('iari receipts --help on --payloads numbers', () => {
  it('D-RCPT-13: every number the help lists as read is read, and every one it lists as exit 2 is refused', async () => {
    const { stdout, code } = await runCli(['receipts', '--help']);
    expect(code).toBe(0);
    const list = (label: string): string[] => (new RegExp(`^\\s+${label}\\s+(.+)$`, 'm').exec(stdout)?.[1] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    const read = list('read:');
    const refused = list('exit 2:');
    expect(read).toContain('0.1');
    expect(refused.length).toBeGreaterThan(2);
    const accepts = (n: string): boolean => readPayloadsText(`{"rcpt_1":{"input":{"n":${n}}}}`).ok;
    expect(read.filter((n) => !accepts(n))).toEqual([]);
    expect(refused.filter((n) => accepts(n))).toEqual([]);
    // 2^60 is a double exactly, yet refused written in full: JCS writes it 1152921504606847000, another value.
    expect(refused).toContain('1152921504606846976');
    expect(stdout).not.toContain('holds exactly as written');
  });
});
