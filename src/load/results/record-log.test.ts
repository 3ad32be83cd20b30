import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../../errors.ts';
import type { RequestRecord } from './load-result.ts';
import { openRecordFile, readRecordFile, RecordList } from './record-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-record-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rec = (seq: number, detail = ''): RequestRecord => ({ seq, shard: null, phase: 'measure', requestId: `r${seq}`, status: 200, intendedUs: seq, sentUs: seq, ttfbUs: 1, ttftUs: 2, e2eUs: 3, outputTokens: 4, tokenSource: 'usage', events: 5, itlMeanUs: null, itlMaxUs: null, tpotUs: null, error: detail === '' ? null : { class: 'other', detail }, good: true });

describe('record-log', () => {
  it('LOAD-SOAK: records are appended as they come, the file appears whole on close and reads back in order', async () => {
    const file = join(dir, 'a.ndjson');
    const log = openRecordFile(file, (r) => JSON.stringify(r));
    for (let i = 0; i < 5000; i++) log.add(rec(i));
    expect(existsSync(file)).toBe(false);
    expect(() => [...log]).toThrow(/once the run has ended/);
    await log.close();
    expect(log.count).toBe(5000);
    expect([...log].map((r) => r.seq)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('LOAD-SOAK: a full queue makes the next write wait for the disk (bounded memory, nothing lost, in order)', async () => {
    const file = join(dir, 'slow.ndjson');
    const parked: (() => void)[] = [];
    // A disk that never answers an asynchronous write until the end: only the bound lets the run go on.
    const log = openRecordFile(file, (r) => JSON.stringify(r), {
      queueBytes: 256 * 1024,
      write: (fd, buf, pos, done) =>
        parked.push(() => {
          writeSync(fd, buf, 0, buf.length, pos);
          done(null);
        }),
    });
    for (let i = 0; i < 20_000; i++) log.add(rec(i, 'x'.repeat(40)));
    // At most the bound is held by writes in flight: 256 KiB of 64 KiB writes; the rest waited for the disk.
    expect(parked.length).toBeLessThanOrEqual(4);
    expect(log.stalls).toBeGreaterThan(0);
    const closing = log.close();
    for (const p of parked) p();
    await closing;
    expect([...readRecordFile(file)].map((r) => r.seq)).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
  });

  it('LOAD-SOAK: a write error fails the run with one clear error (exit 2), and no half file is left', async () => {
    const file = join(dir, 'broken.ndjson');
    const log = openRecordFile(file, (r) => JSON.stringify(r), { write: (_fd, _buf, _pos, done) => setImmediate(() => done(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))) });
    for (let i = 0; i < 3000; i++) log.add(rec(i));
    const e = await log.close().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HarnessError);
    expect((e as HarnessError).code).toBe('IARI_REPORT_UNWRITABLE');
    expect((e as HarnessError).exitCode).toBe(2);
    expect((e as Error).message).toMatch(/requests\.ndjson could not be written .*ENOSPC/);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('broken'))).toEqual([]);
  });

  it('LOAD-SOAK: reading back splits lines across 1 MiB chunks, characters of several bytes included, and names a bad line', () => {
    const file = join(dir, 'utf8.ndjson');
    const long = 'é'.repeat(700_000);
    writeFileSync(file, `${JSON.stringify(rec(1, long))}\n${JSON.stringify(rec(2, '日本'))}\n`);
    const back = [...readRecordFile(file)];
    expect(back.map((r) => r.error?.detail.length)).toEqual([700_000, 2]);
    expect(back[0]?.error?.detail).toBe(long);
    writeFileSync(file, `${JSON.stringify(rec(1))}\n{not json\n`);
    expect(() => [...readRecordFile(file)]).toThrow(/line 2 is not JSON/);
  });

  it('LOAD-SOAK: without a file the records stay in memory (the library, searches, A/B)', async () => {
    const list = new RecordList();
    list.add(rec(1));
    list.add(rec(2));
    await list.close();
    expect([...list].map((r) => r.seq)).toEqual([1, 2]);
    expect(list.path).toBeNull();
  });
});
