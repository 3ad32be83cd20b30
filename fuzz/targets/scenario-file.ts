import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { HarnessErrorCode } from '../../src/errors.ts';
import { checkScenario, readScenarioFile } from '../../src/load/plan/scenario-file.ts';
import { asFile, harnessError, shortMessage } from '../temp-file.ts';
import { holds, ownErrorsOnly, show, utf8, type FuzzTarget } from '../target.ts';

const examplesDir = new URL('../../examples/', import.meta.url);
const exampleFiles = (): Uint8Array[] =>
  readdirSync(examplesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => new Uint8Array(readFileSync(new URL(f, examplesDir))));

const isOwn = harnessError([HarnessErrorCode.USAGE, HarnessErrorCode.INPUT_UNREADABLE]);

function run(input: Uint8Array): void {
  for (const name of ['scenario.yaml', 'load.json']) {
    const file = asFile(input, name);
    const r = ownErrorsOnly(() => readScenarioFile(file), isOwn, 'readScenarioFile');
    if (!r.ok) {
      shortMessage(r.error);
      continue;
    }
    // What it returns is a scenario: checked again it passes unchanged (the durations it wrote as text included).
    const again = ownErrorsOnly(() => checkScenario(r.value, 'again'), isOwn, 'checkScenario');
    holds(again.ok, () => `the scenario read from the file fails its own check: ${again.ok ? '' : (again.error as Error).message}`);
    holds(isDeepStrictEqual(again.value, r.value), () => `checking the scenario again changes it: ${show(r.value)} -> ${show(again.value)}`);
  }
}

/** The examples, changed a little: a key dropped, a value swapped for another kind, written back as YAML (block or flow) or JSON. */
const edits = fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 1 }), fc.constantFrom('10s', '1m30s', 5, -1, 0.5, 'open', 'closed', 'poisson', null, [], {}))), { maxLength: 3 });
const scenarios = fc.tuple(fc.constantFrom(...exampleFiles()), edits, fc.constantFrom('block', 'flow', 'json')).map(([bytes, changes, form]) => {
  const value = parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
  const paths: [Record<string, unknown>, string][] = [];
  const walk = (o: unknown): void => {
    if (o === null || typeof o !== 'object') return;
    for (const [k, v] of Object.entries(o)) {
      paths.push([o as Record<string, unknown>, k]);
      walk(v);
    }
  };
  walk(value);
  for (const [at, replacement] of changes) {
    const [owner, key] = paths[at % Math.max(1, paths.length)] ?? [value, 'run'];
    if (replacement === undefined) delete owner[key];
    else owner[key] = replacement;
  }
  return utf8(form === 'json' ? JSON.stringify(value) : stringify(value, form === 'flow' ? { collectionStyle: 'flow' } : {}));
});

export const scenarioFile: FuzzTarget = {
  name: 'scenario-file',
  sources: ['src/load/plan/scenario-file.ts'],
  invariants: [
    'throws nothing but a HarnessError (usage or unreadable input, exit 2), whose message is one line of at most 1,000 characters',
    'a scenario it returns passes its own check again, unchanged',
    'one input of up to 64 KiB takes at most 2 s (YAML aliases included)',
  ],
  reference: 'the scenario schema (checkScenario) and the yaml package',
  maxLen: 64 * 1024,
  timeBoundMs: 2_000,
  valid: scenarios,
  seeds: exampleFiles,
  run,
};
