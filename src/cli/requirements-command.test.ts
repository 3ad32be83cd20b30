import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HarnessError } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { loadRequirements } from '../checks/registry/requirements-registry.ts';
import { testTitlesIn } from '../checks/registry/suite-coverage.ts';
import { run } from './requirements-command.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-req-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function capture(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    return { code: await run(argv), out };
  } finally {
    spy.mockRestore();
  }
}

describe('iari requirements', () => {
  it('prints every requirement as an aligned table', async () => {
    const { code, out } = await capture([]);
    expect(code).toBe(ExitCode.ok);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+GRADE\s+SOURCE\s+TITLE$/);
    expect(lines.at(-1)).toBe(`${loadRequirements().length} requirements`);
    const titleColumn = (lines[0] ?? '').indexOf('TITLE');
    const row = lines.find((l) => l.startsWith('CHAT-STREAM-002 '));
    expect(row).toBeDefined();
    expect(row?.indexOf('The final event is [DONE]')).toBe(titleColumn);
  });

  it('filters by area and prints JSON', async () => {
    const { out } = await capture(['--area', 'tools', '--json']);
    const list = JSON.parse(out) as { id: string; area: string }[];
    expect(list.length).toBe(loadRequirements().filter((r) => r.area === 'TOOLS').length);
    expect(list.every((r) => r.area === 'TOOLS' && r.id.startsWith('TOOLS-'))).toBe(true);
  });

  it('rejects an unknown area and a stray --suites as usage errors', async () => {
    await expect(run(['--area', 'NOPE'])).rejects.toBeInstanceOf(HarnessError);
    await expect(run(['--suites', dir])).rejects.toThrow(/only applies with --coverage/);
    await expect(run(['--frobnicate'])).rejects.toBeInstanceOf(HarnessError);
  });

  it('has its own --help', async () => {
    const { code, out } = await capture(['--help']);
    expect(code).toBe(ExitCode.ok);
    expect(out).toContain('--coverage');
  });

  it('--coverage on an empty or missing folder reports 0 exercised and lists everything, exit 0', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const { code, out } = await capture(['--coverage', '--suites', empty, '--json']);
    expect(code).toBe(ExitCode.ok);
    const cov = JSON.parse(out) as { exercised: number; registry: number; unexercised: string[] };
    expect(cov.exercised).toBe(0);
    expect(cov.unexercised).toHaveLength(cov.registry);
    const missing = await capture(['--coverage', '--suites', join(dir, 'does-not-exist')]);
    expect(missing.out).toMatch(/^exercised 0 \/ \d+ requirements/);
  });

  it('--coverage counts IDs in test titles, recursively, and reports unknown IDs', async () => {
    const suites = join(dir, 'suites');
    mkdirSync(join(suites, 'nested'), { recursive: true });
    writeFileSync(join(suites, 'a.test.ts'), "it('AUTH-001, AUTH-002: refuses missing credentials', runs('x'));\nit.skip('AUTH-003: skipped does not count', () => {});\n");
    writeFileSync(join(suites, 'nested', 'b.test.ts'), 'test(`HDR-001: x-request-id everywhere`, () => {});\nit("AUTH-999: not in the registry", () => {});\n');
    writeFileSync(join(suites, 'nested', 'helper.ts'), "it('ME-001: not a test file', () => {});\n");
    const { out } = await capture(['--coverage', '--area', 'AUTH', '--suites', suites, '--json']);
    const cov = JSON.parse(out) as { exercised: number; unexercised: string[]; unknown: { id: string }[] };
    expect(cov.exercised).toBe(2);
    expect(cov.unexercised).toContain('AUTH-003');
    expect(cov.unexercised).not.toContain('AUTH-001');
    expect(cov.unknown.map((u) => u.id)).toEqual(['AUTH-999']);
    const text = await capture(['--coverage', '--suites', suites]);
    expect(text.out).toMatch(/^exercised 3 \/ \d+ requirements/);
    expect(text.out).toContain('AUTH-003');
  });
});

describe('testTitlesIn', () => {
  it('reads titles with escaped quotes and ignores skip/todo', () => {
    const src = "it('ERR-001: says \\'no\\'', f);\ntest.todo('ME-001: later');\nit.concurrent(\"CHAT-001: ok\", f);\ndescribe('AUTH-001 group', () => {});";
    expect(testTitlesIn(src)).toEqual(["ERR-001: says 'no'", 'CHAT-001: ok']);
  });
});
