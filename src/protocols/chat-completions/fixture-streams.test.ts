import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectText, FIXTURE_DIR, fixturePaths, generateFixtures, type FixtureExpect } from '../../../fixtures/streams/generate.ts';
import { checkStream, type StreamCheckResult, type StreamFinding } from './stream-checker.ts';
import { requirementOfRule } from './stream-rules.ts';
import { gradeOf } from '../../checks/registry/registry-view.ts';

import { seededRandom } from '../../seeded-random.ts';

/** A finding as the registry grades it: the requirement its rule decides and that requirement's grade. */
const SEVERITY = { MUST: 'fail', SHOULD: 'non-strict', INFO: 'informational' } as const;
const idOf = (f: StreamFinding): string => requirementOfRule(f.rule);
const severityOf = (f: StreamFinding): 'fail' | 'non-strict' | 'informational' => SEVERITY[gradeOf(requirementOfRule(f.rule))];
/** pass, fail or non-strict, as a stream's worst graded finding. */
const verdictOf = (r: StreamCheckResult): 'pass' | 'fail' | 'non-strict' => (r.findings.some((f) => severityOf(f) === 'fail') ? 'fail' : r.findings.some((f) => severityOf(f) === 'non-strict') ? 'non-strict' : 'pass');


const generated = generateFixtures();

const splits: { name: string; split: (b: Uint8Array, i: number) => Uint8Array[] }[] = [
  { name: 'whole', split: (b) => [b] },
  { name: '1-byte', split: (b) => Array.from(b, (_, i) => b.subarray(i, i + 1)) },
  {
    name: 'random',
    split: (b, i) => {
      const r = seededRandom(1000 + i);
      const out: Uint8Array[] = [];
      for (let at = 0; at < b.length; ) {
        const n = 1 + Math.floor(r() * 40);
        out.push(b.subarray(at, at + n));
        at += n;
      }
      return out;
    },
  },
];

function byRequirement(r: StreamCheckResult): FixtureExpect['findings'] {
  const pick = (sev: string) => [...new Set(r.findings.filter((f) => severityOf(f) === sev && f.rule !== 'split-reads').map(idOf))].sort();
  return { fail: pick('fail'), 'non-strict': pick('non-strict'), informational: pick('informational') };
}

describe('recorded stream fixtures', () => {
  it('the committed files are exactly what fixtures/streams/generate.ts writes', () => {
    for (const f of generated) {
      const p = fixturePaths(f);
      expect(Buffer.from(readFileSync(p.sse)).equals(Buffer.from(f.bytes)), p.sse).toBe(true);
      expect(readFileSync(p.expect, 'utf8'), p.expect).toBe(expectText(f.expect));
    }
    const onDisk = ['legal', 'illegal'].flatMap((k) => readdirSync(join(FIXTURE_DIR, k)).map((n) => `${k}/${n}`)).sort();
    const expected = generated.flatMap((f) => [`${f.kind}/${f.name}.sse`, `${f.kind}/${f.name}.expect.json`]).sort();
    expect(onDisk).toEqual(expected);
  });

  it('has at least 60 legal streams and an illegal stream for each stream failure mode', () => {
    expect(generated.filter((f) => f.kind === 'legal').length).toBeGreaterThanOrEqual(60);
    const modes = new Set(generated.filter((f) => f.kind === 'illegal').map((f) => /§2 (#\d+)/.exec(f.expect.description)?.[1]));
    for (const m of ['#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9', '#10', '#11', '#12', '#13', '#14', '#15', '#16', '#17', '#18', '#19', '#21', '#23', '#28', '#29']) {
      expect(modes.has(m), `no illegal fixture for failure mode ${m}`).toBe(true);
    }
  });

  describe.each(splits)('read $name', ({ name, split }) => {
    it.each(generated.map((f, i) => ({ f, i, label: `${f.kind}/${f.name}` })))('$label gives exactly its expected findings and verdict', ({ f, i }) => {
      const r = checkStream(split(f.bytes, i), f.expect.options);
      expect(byRequirement(r), `${name} ${f.kind}/${f.name}: ${JSON.stringify(r.findings.map((x) => [x.rule, x.message]))}`).toEqual(f.expect.findings);
      expect(verdictOf(r)).toBe(f.expect.verdict);
      if (f.kind === 'legal') expect(r.findings.filter((x) => severityOf(x) === 'fail')).toEqual([]);
    });
  });

  it('assembles the same message from a legal stream whatever the split', () => {
    for (const [i, f] of generated.filter((g) => g.kind === 'legal').entries()) {
      const whole = checkStream(f.bytes, f.expect.options).assembled;
      for (const s of splits.slice(1)) expect(checkStream(s.split(f.bytes, i), f.expect.options).assembled, `${f.name} ${s.name}`).toEqual(whole);
    }
  });
});
