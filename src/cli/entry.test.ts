import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the CLI with its stdout read for one chunk and then closed, as `| head -1` does. */
function closedEarly(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', `${root}scripts/register-ts.mjs`, `${root}src/cli/entry.ts`, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('iari on a closed pipe', () => {
  it('exits quietly on EPIPE (iari mock --list-faults | head): no stack, exit 0', async () => {
    const r = await closedEarly(['mock', '--list-faults']);
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.code).toBe(0);
  }, 60_000);
});
