import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageUrl } from '../package-root.ts';
import { ALL_FINDING_CODES, FINDING_TABLE, type FindingCode } from './findings.ts';

// Issue 13: spec/DECISIONS.md (D-RCPT-26) lists every finding code with its severity, its index
// (Receipt or null) and the paragraph that defines it; findings.ts must say the same.
const decisions = readFileSync(packageUrl('spec/DECISIONS.md'), 'utf8');
const ROW = /^\| `([A-Z0-9_]+)` \| (error|warning) \| (Receipt|null|Receipt or null) \| (.+) \|$/;
const rows = decisions
  .split('\n')
  .map((line) => ROW.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ code: m[1] as string, severity: m[2] as string, index: m[3] as string, definition: m[4] as string }));
const SCOPE_TEXT = { receipt: 'Receipt', chain: 'null', either: 'Receipt or null' } as const;

describe('D-RCPT-26: the finding codes in spec/DECISIONS.md and in findings.ts', () => {
  it('list the same codes, each once', () => {
    expect(rows.map((r) => r.code).sort()).toEqual([...ALL_FINDING_CODES].sort());
    expect(new Set(rows.map((r) => r.code)).size).toBe(rows.length);
  });

  it('give each code the same severity and the same index (Receipt or null)', () => {
    for (const r of rows) {
      const info = FINDING_TABLE[r.code as FindingCode];
      expect(`${r.code} ${r.severity} ${r.index}`).toBe(`${r.code} ${info.severity} ${SCOPE_TEXT[info.scope]}`);
    }
  });

  it('define every code in a sentence or more, and say which option turns an optional one on', () => {
    for (const r of rows) expect(r.definition.length, r.code).toBeGreaterThan(40);
    const optional = rows.filter((r) => r.definition.startsWith('Optional')).map((r) => r.code);
    expect(optional.sort()).toEqual(['CONTEXT_DIGEST_MISMATCH', 'HEAD_MISMATCH', 'IO_DIGEST_MISMATCH', 'WIRE_NOT_CANONICAL']);
    expect(rows.find((r) => r.code === 'IAT_FUTURE')?.definition).toContain('strictClock');
  });
});
