import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../../errors.ts';
import {
  requirementAreas,
  failureModeRows,
  loadRequirements,
  parseRegistryFile,
  requirementById,
  requirementIdsInTitle,
  requireRequirement,
} from './requirements-registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(id: string, extra = ''): string {
  const area = id.replace(/-\d+$/, '');
  return `  - id: ${id}\n    area: ${area}\n    title: t\n    source: seed\n    ref: seed §x\n    grade: MUST\n    expectation: e\n    rationale: 'seed: "x"'\n${extra}`;
}

function writeRegistry(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `version: 1\nrequirements:\n${body}`);
  return path;
}

function rejection(path: string): HarnessError {
  try {
    parseRegistryFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(HarnessError);
    return error as HarnessError;
  }
  throw new Error(`expected ${path} to be rejected`);
}

describe('requirement registry loader', () => {
  it('accepts a small well-formed registry', () => {
    const list = parseRegistryFile(writeRegistry('ok.yaml', entry('AUTH-001') + entry('CHAT-STREAM-002', '    optional: limits\n')));
    expect(list.map((r) => r.id)).toEqual(['AUTH-001', 'CHAT-STREAM-002']);
    expect(list[1]?.optional).toBe('limits');
  });

  it('rejects a duplicated ID and names it', () => {
    const err = rejection(writeRegistry('dup.yaml', entry('ME-001') + entry('ME-002') + entry('ME-001')));
    expect(err.code).toBe('IARI_REGISTRY_INVALID');
    expect(err.message).toContain('duplicate ID "ME-001"');
    expect(err.message).toContain('entry #3');
  });

  it.each([
    ['ME-1'],
    ['me-001'],
    ['ME-0001'],
    ['FOO-001'],
    ['ME001'],
  ])('rejects the malformed ID %s', (id) => {
    const body = `  - id: ${id}\n    area: ME\n    title: t\n    source: seed\n    ref: r\n    grade: MUST\n    expectation: e\n    rationale: r\n`;
    const err = rejection(writeRegistry(`bad-${id}.yaml`, body));
    expect(err.code).toBe('IARI_REGISTRY_INVALID');
    expect(err.message).toContain(`malformed ID "${id}"`);
  });

  it('rejects an unknown grade, source, area or optional kind, and a missing field', () => {
    expect(rejection(writeRegistry('g.yaml', entry('ME-001').replace('MUST', 'MAY'))).message).toContain('unknown grade "MAY"');
    expect(rejection(writeRegistry('s.yaml', entry('ME-001').replace('seed\n', 'rumour\n'))).message).toContain('unknown source "rumour"');
    expect(rejection(writeRegistry('a.yaml', entry('ME-001').replace('area: ME', 'area: AUTH'))).message).toContain('does not match area');
    expect(rejection(writeRegistry('o.yaml', entry('ME-001', '    optional: sometimes\n'))).message).toContain('unknown optional kind');
    expect(rejection(writeRegistry('m.yaml', entry('ME-001').replace('    expectation: e\n', ''))).message).toContain('(ME-001) is missing "expectation"');
    expect(rejection(writeRegistry('p.yaml', entry('ME-001').replace('seed\n', 'profile\n'))).message).toContain('is graded INFO (D-GRADE-04), not MUST');
    const profileShould = entry('ME-001').replace('source: seed', 'source: profile').replace('grade: MUST', 'grade: SHOULD');
    expect(rejection(writeRegistry('p2.yaml', profileShould)).message).toContain('is graded INFO (D-GRADE-04), not SHOULD');
  });

  it('rejects an entry without a rationale, or with an empty one, and names it (D-GRADE-01..05)', () => {
    const without = entry('ME-001').replace(`    rationale: 'seed: "x"'\n`, '');
    expect(rejection(writeRegistry('r1.yaml', entry('ME-002') + without)).message).toContain('(ME-001) is missing "rationale"');
    expect(rejection(writeRegistry('r2.yaml', entry('ME-001').replace(`'seed: "x"'`, "''"))).message).toContain('(ME-001) is missing "rationale"');
  });

  it('rejects a profile requirement whose rationale does not say which profile choice it is', () => {
    const p = entry('ME-001').replace('source: seed', 'source: profile').replace('grade: MUST', 'grade: INFO');
    expect(rejection(writeRegistry('r3.yaml', p)).message).toContain('starts with "profile choice: <why>"');
    expect(parseRegistryFile(writeRegistry('r4.yaml', p.replace(`'seed: "x"'`, "'profile choice: the mock does it'")))[0]?.grade).toBe('INFO');
  });

  it('rejects YAML with a repeated key inside one entry', () => {
    const err = rejection(writeRegistry('k.yaml', entry('ME-001') + '    title: again\n'));
    expect(err.message).toContain('not valid YAML');
  });
});

describe('the real registry (spec/requirements.yaml)', () => {
  const list = loadRequirements();

  it('loads with at least 150 requirements in every area', () => {
    expect(list.length).toBeGreaterThanOrEqual(150);
    for (const area of requirementAreas) expect(list.some((r) => r.area === area), area).toBe(true);
  });

  it('covers every row 1..29 of the failure-mode table', () => {
    const rows = new Set(list.flatMap(failureModeRows));
    const missing = Array.from({ length: 29 }, (_, i) => i + 1).filter((n) => !rows.has(n));
    expect(missing).toEqual([]);
  });

  it('numbers IDs sequentially per area from 001', () => {
    for (const area of requirementAreas) {
      const numbers = list.filter((r) => r.area === area).map((r) => Number(r.id.slice(area.length + 1)));
      expect(numbers, area).toEqual(numbers.map((_, i) => i + 1));
    }
  });

  it('gives every requirement a rationale, and every profile requirement the INFO grade (D-GRADE-04)', () => {
    expect(list.filter((r) => r.rationale.trim().length < 12).map((r) => r.id)).toEqual([]);
    expect(list.filter((r) => r.source === 'profile' && r.grade !== 'INFO').map((r) => r.id)).toEqual([]);
  });

  it('cites a DECISIONS.md decision for every profile requirement', () => {
    for (const r of list.filter((x) => x.source === 'profile')) expect(r.ref, r.id).toMatch(/DECISIONS\.md/);
  });

  it('cites only decisions that exist in spec/DECISIONS.md', () => {
    const decisions = readFileSync(new URL('../../../spec/DECISIONS.md', import.meta.url), 'utf8');
    const defined = new Set([...decisions.matchAll(/^\*\*(D-(?:HTTP|RCPT)-\d{2})\b/gm)].map((m) => m[1]));
    expect(defined.size).toBeGreaterThanOrEqual(25);
    const cited = list.flatMap((r) => [...r.ref.matchAll(/D-(?:HTTP|RCPT)-\d{2}/g)].map((m) => `${r.id} -> ${m[0]}`));
    expect(cited.length).toBeGreaterThan(50);
    expect(cited.filter((c) => !defined.has(c.split(' -> ')[1] ?? ''))).toEqual([]);
  });

  it('finds requirements by ID', () => {
    expect(requirementById('CHAT-STREAM-002')?.title).toMatch(/DONE/);
    expect(requirementById('CHAT-999')).toBeUndefined();
    expect(() => requireRequirement('CHAT-999')).toThrow(/unknown requirement ID/);
  });
});

describe('requirementIdsInTitle', () => {
  it('extracts the IDs a test title starts with', () => {
    expect(requirementIdsInTitle('CHAT-STREAM-007: every chunk has an id')).toEqual(['CHAT-STREAM-007']);
    expect(requirementIdsInTitle('ME-002, ME-003: id and email are strings')).toEqual(['ME-002', 'ME-003']);
    expect(requirementIdsInTitle('RCPT-SCHEMA-012 verb pattern (see RCPT-SCHEMA-012)')).toEqual(['RCPT-SCHEMA-012']);
  });

  it('ignores lookalikes that are not registry IDs', () => {
    expect(requirementIdsInTitle('a plain behaviour sentence')).toEqual([]);
    expect(requirementIdsInTitle('XME-001 and ME-0012 and FOO-001 and me-001')).toEqual([]);
  });
});

describe('the grade change log (docs/grade-changes.md, spec/DECISIONS.md D-GRADE-07)', () => {
  const list = loadRequirements();
  const grades = new Map(list.map((r) => [r.id, r.grade]));
  const changes = readFileSync(new URL('../../../docs/grade-changes.md', import.meta.url), 'utf8');
  const decisions = readFileSync(new URL('../../../spec/DECISIONS.md', import.meta.url), 'utf8');
  /** The table rows of the section that starts at `heading`, up to the next heading: [id, cells...]. */
  const rowsUnder = (text: string, heading: string): string[][] => {
    const start = text.indexOf(heading);
    if (start < 0) return [];
    const rest = text.slice(start + heading.length);
    const end = rest.search(/\n(##|\*\*D-)/);
    return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => /^\| [A-Z][A-Z-]*-\d{3} \|/.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  };
  const logged = rowsUnder(changes, '## Issue 19: new requirements');
  const decided = rowsUnder(decisions, '**D-GRADE-07');
  /** Requirements graded before this log was kept (issue 12's retrieve and structured outputs, the buffer bounds, receipts, CLIENT-001..025). */
  const range = (area: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${area}-${String(from + i).padStart(3, '0')}`);
  const predatesLog = new Set([
    ...range('MODELS', 14, 18), ...range('CHAT', 34, 37), 'CHAT-STREAM-046', 'LIMIT-010', ...range('HDR', 12, 16),
    ...['001', '002', '003', '009', '011', '013', '014', '015', '016', '017', '018', '020', '021', '022', '024', '025', '028', '029', '030', '031', '032', '034', '035', '036', '038', '039'].map((n) => `RCPT-SCHEMA-${n}`),
    'RCPT-CHAIN-001', 'RCPT-CHAIN-002', 'RCPT-CHAIN-008', 'RCPT-PAIR-001', 'RCPT-PAIR-009', 'RCPT-HTTP-001', ...range('CLIENT', 1, 25),
  ]);
  const mentions = (text: string, id: string): boolean => new RegExp(`(?<![A-Z0-9-])${id}(?![0-9])`).test(text);

  it('CHAT-039, CHAT-STREAM-048, TOOLS-022: every requirement added since the log was kept is in docs/grade-changes.md, and every issue 19 one in both files', () => {
    const missing = list.filter((r) => !predatesLog.has(r.id) && !mentions(changes, r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
    for (const id of ['CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050', 'CHAT-038', 'CHAT-039', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'TOOLS-022', 'TOOLS-023', 'TOOLS-024', 'TOOLS-025', 'TOOLS-026']) {
      expect(logged.map((r) => r[0]), id).toContain(id);
      expect(decided.map((r) => r[0]), id).toContain(id);
    }
    expect(decided.map((r) => r[0]).sort()).toEqual(logged.map((r) => r[0]).sort());
  });

  it('CHAT-039: each logged new requirement states the grade the registry gives it, a reason and a source (a URL, an observed client or a mock fault)', () => {
    const bad: string[] = [];
    for (const [id, change, reason, source] of logged) {
      if (id === undefined || !grades.has(id)) bad.push(`${id}: not in the registry`);
      else if (change !== `(new) -> ${grades.get(id)}`) bad.push(`${id}: logged "${change}", registry ${grades.get(id)}`);
      if ((reason ?? '').length < 20) bad.push(`${id}: no reason`);
      if (!/https:\/\/|observed against the mock|fault [a-z]/.test(source ?? '')) bad.push(`${id}: no source`);
    }
    for (const [id, grade, rule, why, source] of decided) {
      if (grade !== grades.get(id ?? '')) bad.push(`${id}: D-GRADE-07 says ${grade}, registry ${grades.get(id ?? '')}`);
      if (!/^D-GRADE-0[1-3]/.test(rule ?? '') || (why ?? '').length < 20 || !/https:\/\/|observed against the mock|fault [a-z]/.test(source ?? '')) bad.push(`${id}: D-GRADE-07 row lacks its rule, reason or source`);
    }
    expect(logged.length).toBeGreaterThanOrEqual(14);
    expect(bad).toEqual([]);
  });
});
