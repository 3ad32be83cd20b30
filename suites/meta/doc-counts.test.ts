import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeUrl } from '../../src/package-root.ts';
import { requirementInfos } from '../../src/checks/registry/registry-view.ts';
import { faults } from '../../mock-server/index.ts';
import { clientExercisedModes, clientImpactFaults } from '../../mock-server/core/client-impact.ts';

// Issue 31: the docs said 322 requirements (runs said 336), 25 CLIENT operations (28) and 283 faults
// and 14 legal modes (296 and 18). Each count the docs state is checked here against the registry
// and the fault list it describes; a failure names the file, the line and the number to write.
// (Benchmark rows keep the figures they measured, with their date: they are not counts of today.)

const requirements = [...requirementInfos().values()];
const faultList = faults.filter((f) => f.kind === 'fault');
const legal = faults.filter((f) => f.kind !== 'fault');
const broken = new Set(faults.flatMap((f) => f.breaks));
const clientOps = requirements.filter((r) => r.id.startsWith('CLIENT-'));

interface Claim {
  file: string;
  /** Each capture group is one number the text states. */
  pattern: RegExp;
  /** What each group must say, in order, and what it counts. */
  truth: readonly { value: number; what: string }[];
}

const claims: Claim[] = [
  { file: 'README.md', pattern: /holds (\d+) atomic requirements/, truth: [{ value: requirements.length, what: 'requirements in spec/requirements.yaml' }] },
  {
    file: 'README.md',
    pattern: /Today: (\d+) faults and (\d+) legal modes; (\d+) of the (\d+) requirement IDs are broken/,
    truth: [
      { value: faultList.length, what: 'faults in `iari mock --list-faults`' },
      { value: legal.length, what: 'legal modes in `iari mock --list-faults`' },
      { value: requirements.filter((r) => broken.has(r.id)).length, what: 'requirement IDs some fault breaks' },
      { value: requirements.length, what: 'requirements in spec/requirements.yaml' },
    ],
  },
  { file: 'README.md', pattern: /client-impact\.ts`, which adds what (\d+) faults do/, truth: [{ value: clientImpactFaults.length, what: 'faults in mock-server/core/client-impact.ts' }] },
  { file: 'README.md', pattern: /\((\d+)\s+operations, all MUST\)/, truth: [{ value: clientOps.length, what: 'CLIENT requirements' }] },
  { file: 'docs/conformance.md', pattern: /\(`spec\/requirements\.yaml`, (\d+) IDs\)/, truth: [{ value: requirements.length, what: 'requirements in spec/requirements.yaml' }] },
  { file: 'docs/clients.md', pattern: /## Operations \((\d+) requirements, all MUST\)/, truth: [{ value: clientOps.length, what: 'CLIENT requirements' }] },
  { file: 'docs/clients.md', pattern: /all (\d+) operations run against the bundled mock/, truth: [{ value: clientOps.length, what: 'CLIENT requirements' }] },
  { file: 'docs/clients.md', pattern: /adds CLIENT IDs to the `breaks` of (\d+) faults/, truth: [{ value: clientImpactFaults.length, what: 'faults in mock-server/core/client-impact.ts' }] },
  { file: 'docs/clients.md', pattern: /under the (\d+) legal stream modes/, truth: [{ value: clientExercisedModes.length, what: 'legal modes the client operations run under (client-impact.ts)' }] },
  { file: 'docs/clients.md', pattern: /runs the (\d+) operations under every fault/, truth: [{ value: clientOps.length, what: 'CLIENT requirements' }] },
];

/** The mismatches of one claim, each naming file:line, what the text says and what to write. */
function check(c: Claim): string[] {
  const text = readFileSync(codeUrl(c.file), 'utf8');
  const m = new RegExp(c.pattern.source, `${c.pattern.flags}d`).exec(text);
  if (m === null) return [`${c.file}: no text matches ${c.pattern} any more; update the pattern in suites/meta/doc-counts.test.ts with the sentence`];
  const lineOf = (i: number): number => text.slice(0, m.indices?.[i]?.[0] ?? m.index).split('\n').length;
  return c.truth.flatMap((t, i) => (Number(m[i + 1]) === t.value ? [] : [`${c.file}:${lineOf(i + 1)}: says ${m[i + 1]} ${t.what}; there are ${t.value}: change ${m[i + 1]} to ${t.value} on that line`]));
}

describe('the counts the docs state', () => {
  it('match the registry, the fault list and the CLIENT operations they count', () => {
    expect(claims.flatMap(check)).toEqual([]);
  });

  it('"all MUST" of the CLIENT operations holds', () => {
    expect(clientOps.filter((r) => r.grade !== 'MUST').map((r) => r.id)).toEqual([]);
    expect(clientOps.length).toBeGreaterThan(0);
  });
});
