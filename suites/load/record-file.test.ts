import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { HarnessError } from '../../src/errors.ts';
import { openRecordFile, readRecordFile } from '../../src/load/results/record-log.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';
import { slowdown } from './machine-slowdown.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-record-file-'));
let mock: MockServer;
beforeAll(async () => {
  mock = await startLoadMock();
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a run streams its records to a file', () => {
  it('LOAD-SOAK: every record reaches requests.ndjson during the run and none is held in memory', async () => {
    const file = join(dir, 'requests.ndjson');
    const run = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 40, arrival: 'constant' }, { durationS: 1.5, records: () => openRecordFile(file, (r) => JSON.stringify(r)) }));
    expect(run.records).toEqual([]);
    expect(run.recordsFile).toBe(file);
    const lines = [...readRecordFile(file)];
    const measured = lines.filter((r) => r.phase === 'measure');
    expect(measured.length).toBe(run.result.counts.finished);
    expect(measured.length).toBeGreaterThan(30);
  });

  it('LOAD-SOAK: a disk that fails stops a 120 s run at once (not at its end) with IARI_REPORT_UNWRITABLE, exit 2, and no half file', async () => {
    const file = join(dir, 'full', 'requests.ndjson');
    const full = join(dir, 'full');
    rmSync(full, { recursive: true, force: true });
    (await import('node:fs')).mkdirSync(full);
    const started = performance.now();
    const failing = openRecordFile(file, (r) => JSON.stringify(`${JSON.stringify(r)}${'x'.repeat(2000)}`), { write: (_fd, _buf, _pos, done) => setImmediate(() => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))) });
    const error = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 200, arrival: 'constant' }, { durationS: 120, endGraceMs: 200, records: () => failing })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('IARI_REPORT_UNWRITABLE');
    expect((error as HarnessError).exitCode).toBe(2);
    // The first 64 KiB write fails within a second or so of a 120 s run.
    expect(performance.now() - started).toBeLessThan(10_000 * slowdown());
    expect(readdirSync(full)).toEqual([]);
  }, 60_000 * 6);
});
