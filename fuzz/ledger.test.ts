import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTotals, totals } from './ledger.ts';
import type { FuzzTarget } from './target.ts';

const target = (name: string): FuzzTarget => ({ name, sources: [], invariants: [`${name} holds`, 'a | b'], ...(name === 'a' ? { reference: 'ref 1.0' } : {}), maxLen: 1, timeBoundMs: 1, valid: fc.constant(new Uint8Array()), run: () => undefined });
const at = (s: number): string => new Date(Date.UTC(2026, 10, 28, 22, 0, s)).toISOString();

describe('the fuzz ledger summed per target', () => {
  it('adds each run\'s time (its own measure, else its box, else its wall time when a finding stopped it) and executions', () => {
    const runs = [
      { target: 'a', engine: 'jazzer' as const, started: at(0), ended: at(800), seconds: 720, executions: 1000, coverage: { edges: 10, features: 50 }, lines: { lines: 90, branches: 80 }, finding: null },
      { target: 'a', engine: 'jazzer' as const, started: at(0), ended: at(4), seconds: 720, executions: 7, coverage: { edges: 12, features: 51 }, finding: { file: 'x', error: 'y' } },
      { target: 'a', engine: 'fast-check' as const, started: at(0), ended: at(70), seconds: 60, ranSeconds: 61, executions: 500, finding: null },
      { target: 'b', engine: 'fast-check' as const, started: at(0), ended: at(1), seconds: 1, ranSeconds: 1, executions: 3, finding: null },
    ];
    const [a, b, c] = totals(runs, [target('a'), target('b'), target('c')], (name) => (name === 'a' ? 2 : 0));
    expect(a).toEqual({ target: 'a', invariants: ['a holds', 'a | b'], reference: 'ref 1.0', runs: 3, seconds: 720 + 4 + 61, executions: 1507, edges: 10, features: 50, lines: 90, branches: 80, findings: 1, kept: 2 });
    expect(b).toMatchObject({ runs: 1, seconds: 1, executions: 3, edges: null, lines: null });
    expect(c).toMatchObject({ runs: 0, seconds: 0, executions: 0 });
    const table = formatTotals([a!, b!, c!]);
    expect(table).toContain('| a | a holds; a \\| b | ref 1.0 | 3 | 13.1 min | 1,507 | 10 / 50 | 90.0% / 80.0% | 2 | 1 |');
    expect(table).toContain('| b | b holds; a \\| b | – | 1 | 0.0 min | 3 | – | – | 0 | 0 |');
    expect(table).toContain('| all | | | 4 | 0.22 h | 1,510 | | | 2 | 1 |');
  });
});
