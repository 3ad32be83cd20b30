import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeUrl } from '../package-root.ts';
import { startMockServer } from '../../mock-server/index.ts';
import { runConformance } from './conformance.ts';

/** The members an interface declares in `file` (`  name?: ...` lines at its first level). */
function membersOf(file: string, name: string): string[] {
  const text = readFileSync(codeUrl(file), 'utf8');
  const body = new RegExp(`export interface ${name}[^{]*\\{\\n([^]*?)\\n\\}`).exec(text)?.[1] ?? '';
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1] ?? '');
}

describe("docs/library.md's runConformance options", () => {
  it('names every option runConformance takes (TestOptions and ConformanceOptions)', () => {
    const doc = readFileSync(codeUrl('docs/library.md'), 'utf8');
    const section = /## `runConformance`[^]*?(?=\n## )/.exec(doc)?.[0] ?? '';
    const options = [...membersOf('src/library/test-flag-table.ts', 'TestOptions'), ...membersOf('src/library/conformance.ts', 'ConformanceOptions')];
    expect(options.length).toBeGreaterThan(15);
    expect(options.filter((o) => !section.includes(`\`${o}`))).toEqual([]);
  });
});

describe('runConformance({ baseline, serverVersion }) as iari test --baseline --server-version', () => {
  it('a listed failure is known and the run passes; an entry for another version does not apply', async () => {
    const mock = await startMockServer({ faults: ['completion-no-id'], receipts: false });
    const dir = mkdtempSync(join(tmpdir(), 'iari-lib-baseline-'));
    try {
      const file = join(dir, 'known.yaml');
      writeFileSync(file, 'known:\n  - id: CHAT-002\n    reason: ids missing\n    server-version: "1.3"\n');
      const given = { baseUrl: mock.url, token: mock.tokens.default, only: ['CHAT-002'], baseline: file };
      const listed = await runConformance({ ...given, serverVersion: '1.3' });
      expect(listed.passed).toBe(true);
      expect(listed.report.results.find((r) => r.id === 'CHAT-002')?.verdict).toBe('known');
      expect(listed.report.baseline?.known).toEqual(['CHAT-002']);
      const other = await runConformance({ ...given, serverVersion: '1.4' });
      expect(other.passed).toBe(false);
      expect(other.report.baseline?.otherVersion.map((o) => o.id)).toEqual(['CHAT-002']);
      await expect(runConformance({ ...given, baseline: join(dir, 'missing.yaml') })).rejects.toMatchObject({ exitCode: 2 });
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
