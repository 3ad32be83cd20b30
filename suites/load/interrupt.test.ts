import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/load/results/load-result.ts';
import { slowdown } from './machine-slowdown.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'iari-load-sigint-'));

/** Linux: whether the process has a SIGINT handler (bit 2 of SigCgt); elsewhere assume it does. */
function catchesSigint(pid: number | undefined): boolean {
  try {
    const m = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] === undefined || (BigInt(`0x${m[1]}`) & 2n) !== 0n;
  } catch {
    return true;
  }
}

describe('iari load interrupted by Ctrl-C', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops a 20 s run within seconds of SIGINT, writes the partial reports marked interrupted and exits 130', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'load', '--duration', '20s', '--concurrency', '4', '--report', dir, '--quiet'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.resume();
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
    // Startup (tsx, the mock, the check worker, the priming request) takes about 2 s on a quiet box;
    // a SIGINT before the run starts ends it without a measured window, so wait longer when the cores are shared.
    const slow = slowdown();
    await new Promise((r) => setTimeout(r, 5000 * slow));
    // On a busy machine the child may still be loading: wait (at most 3 s more) until it catches SIGINT.
    for (let i = 0; i < 30 && !catchesSigint(child.pid); i++) await new Promise((r) => setTimeout(r, 100));
    const sentAt = Date.now();
    child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 6000 * slow);
    const { code, at } = await exited;
    clearTimeout(killer);
    expect(code, stderr).toBe(130);
    expect(at - sentAt).toBeLessThan(5000 * slow);
    const result = JSON.parse(readFileSync(join(dir, 'load.json'), 'utf8')) as LoadResult;
    expect(result.interrupted).toBe(true);
    expect(result.counts.finished).toBeGreaterThan(0);
    expect(result.throughput.windowS).toBeLessThan(20);
    expect(readFileSync(join(dir, 'requests.ndjson'), 'utf8').trim().length).toBeGreaterThan(0);
    for (const f of ['junit.xml', 'report.html']) expect(existsSync(join(dir, f)), f).toBe(true);
  }, 12_000 * 6);
});
