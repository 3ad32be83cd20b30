import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { slowdown } from './machine-slowdown.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'iari-soak-memory-'));

interface Row {
  records: number;
  heapAfterGcMiB: number;
  arrayBuffersMiB: number;
}

/** scripts/bench-soak-records.ts in a child with --expose-gc: the collector and requests.ndjson as a run drives them, no network. */
async function soak(log: 'file' | 'memory', src?: string): Promise<Row[]> {
  const out = join(dir, `${log}.json`);
  await promisify(execFile)(process.execPath, ['--expose-gc', '--import', './scripts/register-ts.mjs', 'scripts/bench-soak-records.ts', '--records', '50000,200000', '--log', log, '--out', out, ...(src === undefined ? [] : ['--src', src])], { cwd: root, timeout: 60_000 * slowdown() });
  return (JSON.parse(readFileSync(out, 'utf8')) as { rows: Row[] }).rows;
}

const growth = (rows: Row[]): number => {
  const [a, b] = rows;
  if (a === undefined || b === undefined) throw new Error('two checkpoints expected');
  return b.heapAfterGcMiB + b.arrayBuffersMiB - (a.heapAfterGcMiB + a.arrayBuffersMiB);
};

describe('a soak run holds no per-request state', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('LOAD-SOAK: from 50,000 to 200,000 requests (25 more minutes at 100 req/s) the heap after GC and the array buffers grow by under 4 MiB', async () => {
    const rows = await soak('file');
    // The frozen per-second slices (about 350 B each) are all that grows: 1,500 s of them here.
    expect(growth(rows)).toBeLessThan(4);
  }, 120_000 * 6);

  it('LOAD-SOAK: the same run with its records kept in memory grows by over 20 MiB (the measure can tell)', async () => {
    // What a run did before (the records in a list): these records cost about 260 B each, 38 MiB for 150,000.
    expect(growth(await soak('memory'))).toBeGreaterThan(20);
  }, 120_000 * 6);
});
