import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../exit-codes.ts';
import { HarnessError } from '../errors.ts';
import { run } from './start-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('iari start (npm start)', () => {
  it('runs conformance, a short load run and receipt verification on the bundled mock, and says where the reports are', async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = await run(['--seed', '3', '--report', dir]);
    } finally {
      write.mockRestore();
    }
    const text = out.join('');
    expect(code).toBe(ExitCode.ok);

    const conformance = JSON.parse(readFileSync(join(dir, 'conformance', 'conformance.json'), 'utf8')) as {
      summary: { fail: number; pass: number; total: number };
    };
    expect(conformance.summary.fail).toBe(0);
    expect(conformance.summary.pass).toBeGreaterThan(conformance.summary.total / 2);
    expect(existsSync(join(dir, 'conformance', 'report.html'))).toBe(true);

    const load = JSON.parse(readFileSync(join(dir, 'load', 'load.json'), 'utf8')) as { counts?: { ok?: number }; meta: { runId: string } };
    expect(load.counts?.ok ?? 0).toBeGreaterThan(0);
    // One start, one run id (issue 31: it had three), and the files where the README says they are.
    const runId = (JSON.parse(readFileSync(join(dir, 'conformance', 'conformance.json'), 'utf8')) as { run: { id: string } }).run.id;
    expect(load.meta.runId).toBe(runId);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const file of ['conformance/report.html', 'conformance/conformance.json', 'conformance/junit.xml', 'load/report.html', 'load/load.json', 'receipts/chain.jsonl']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
      const [folder, name] = file.split('/');
      expect(readme, `README names ${file}`).toMatch(new RegExp(`reports/<run-id>/${folder}/[^]{0,80}${name?.replace('.', '\\.')}`));
    }
    // And the next step: the same against the user's own server.
    expect(text).toContain('Next: point iari at your own server');
    expect(text).toContain('npx iari test --base-url https://your-server.example/v1');

    // One gate and one outcome per completion the conformance run made: a real chain, verified.
    const chain = readFileSync(join(dir, 'receipts', 'chain.jsonl'), 'utf8').trim().split('\n');
    expect(chain.length).toBeGreaterThan(10);
    expect(text).toMatch(/VALID\s+\d+ receipts/);
    expect(text).toContain(join('receipts', 'chain.jsonl'));
    expect(text).toContain(join('conformance', 'report.html'));
  }, 120_000);

  it('rejects a malformed seed as a usage error before starting anything', async () => {
    const err = await run(['--seed', 'abc']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(ExitCode.usage);
  });
});
