import { isDeepStrictEqual } from 'node:util';
import { cutsOf, holds, neverThrows, show, split } from './target.ts';

interface Checked {
  findings: readonly { rule: string; byteOffset?: number | undefined }[];
}

/**
 * The invariants every API's stream checker keeps, for its fuzz target: it never throws; every
 * finding names a rule of its closed set, at a byte inside the stream, at most the kept number per
 * rule; its result serialises and clones (it crosses from the check worker to the main thread);
 * and what it means (`meaning`: the verdict without read indexes and times) is the same however the
 * bytes are split into reads.
 */
export function streamCheckerRun<O extends { maxFindingsPerRule?: number }, R extends Checked>(c: {
  who: string;
  rules: ReadonlySet<string>;
  options: readonly O[];
  check: (reads: Uint8Array | Uint8Array[], options: O) => R;
  meaning: (result: R) => unknown;
}): (input: Uint8Array) => void {
  return (input) => {
    for (const o of c.options) {
      const whole = neverThrows(() => c.check(input, o), c.who);
      const per = new Map<string, number>();
      for (const f of whole.findings) {
        holds(c.rules.has(f.rule), () => `rule ${show(f.rule)} is not in the closed set`);
        holds(f.byteOffset === undefined || (f.byteOffset >= 0 && f.byteOffset <= input.length), () => `finding ${f.rule} at byte ${f.byteOffset} of ${input.length}`);
        per.set(f.rule, (per.get(f.rule) ?? 0) + 1);
      }
      holds([...per.values()].every((n) => n <= (o.maxFindingsPerRule ?? 5)), () => `more findings of one rule than kept: ${show([...per])}`);
      neverThrows(() => JSON.stringify(whole, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), 'JSON.stringify of the result');
      neverThrows(() => structuredClone(whole), 'structuredClone of the result');
      const cuts = cutsOf(input);
      const again = neverThrows(() => c.check(split(input, cuts), o), c.who);
      holds(isDeepStrictEqual(c.meaning(again), c.meaning(whole)), () => `the verdict depends on where the reads split (cuts ${show(cuts)}): ${show(whole.findings.map((f) => f.rule))} vs ${show(again.findings.map((f) => f.rule))}`);
    }
  };
}
