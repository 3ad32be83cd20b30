import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunDir, newRunId, shownPath, writeFileAtomic } from './run-dir.ts';

describe('run-dir', () => {
  it('names a run by its UTC timestamp and a short random suffix', () => {
    expect(newRunId(new Date('2026-11-21T09:30:05.123Z'), () => 'abc123')).toBe('20261121T093005Z-abc123');
    expect(newRunId()).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(newRunId()).not.toBe(newRunId());
  });

  it('creates reports/<run-id>/ under the root, or exactly the --report directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'iari-run-'));
    const run = createRunDir({ root, now: new Date('2026-01-02T03:04:05Z') });
    expect(run.dir.startsWith(join(root, '20260102T030405Z-'))).toBe(true);
    expect(existsSync(run.dir)).toBe(true);
    const chosen = createRunDir({ report: join(root, 'nested', 'mine') });
    expect(chosen.dir).toBe(join(root, 'nested', 'mine'));
    expect(existsSync(chosen.dir)).toBe(true);
  });

  it('writes files atomically, leaving no temp files, and replaces existing content', () => {
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-run-')) });
    run.write('a.json', '{"v":1}');
    const path = run.write('sub/a.json', '{"v":2}');
    run.write('a.json', '{"v":3}');
    expect(readFileSync(run.path('a.json'), 'utf8')).toBe('{"v":3}');
    expect(readFileSync(path, 'utf8')).toBe('{"v":2}');
    expect(readdirSync(run.dir).sort()).toEqual(['a.json', 'sub']);
  });

  it('refuses file names that escape the run directory', () => {
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-run-')) });
    expect(() => run.write('../x', 'no')).toThrow(/outside the run directory/);
    expect(() => run.path('/etc/passwd')).toThrow(/outside the run directory/);
  });

  it('removes its temp file when the write fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'iari-run-'));
    // The target is an existing directory: rename fails after the temp file was written.
    writeFileAtomic(join(dir, 'd', 'x'), 'x');
    expect(() => writeFileAtomic(join(dir, 'd'), 'y')).toThrow();
    expect(readdirSync(dir)).toEqual(['d']);
  });

  it('writes a file given in pieces as they come (the first 64 KiB are on disk before the last piece is made), atomically', () => {
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-run-')) });
    const line = `${'x'.repeat(99)}\n`;
    let onDiskBeforeLast = -1;
    function* lines(): Generator<string> {
      for (let i = 0; i < 2000; i++) {
        if (i === 1999) onDiskBeforeLast = readdirSync(run.dir).filter((f) => f.endsWith('.tmp')).reduce((n, f) => n + statSync(join(run.dir, f)).size, 0);
        yield line;
      }
    }
    const path = run.writePieces('requests.ndjson', lines());
    expect(readFileSync(path, 'utf8')).toBe(line.repeat(2000));
    expect(onDiskBeforeLast).toBeGreaterThanOrEqual(64 * 1024);
    expect(readdirSync(run.dir)).toEqual(['requests.ndjson']);
  });

  it('leaves the previous file and no temp file when the pieces fail midway', () => {
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-run-')) });
    run.write('requests.ndjson', 'before\n');
    function* failing(): Generator<string> {
      yield 'x'.repeat(100_000);
      throw new Error('record could not be written');
    }
    expect(() => run.writePieces('requests.ndjson', failing())).toThrow(/could not be written/);
    expect(readFileSync(run.path('requests.ndjson'), 'utf8')).toBe('before\n');
    expect(readdirSync(run.dir)).toEqual(['requests.ndjson']);
  });

  it('shows a written file under --report as the user typed it, else relative to the working directory', () => {
    expect(shownPath('/tmp/x', '/tmp/x/report.html')).toBe('/tmp/x/report.html');
    expect(shownPath('/tmp/x/', '/tmp/x/report.html')).toBe('/tmp/x/report.html');
    expect(shownPath('out/run', resolve('out/run/load/report.html'))).toBe(join('out/run', 'load', 'report.html'));
    expect(shownPath(undefined, resolve('reports/r1/report.html'))).toBe(join('reports', 'r1', 'report.html'));
  });
});
