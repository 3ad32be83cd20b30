// Reading a load scenario: a YAML or JSON file (`iari load --scenario FILE`; JSON is YAML too), a
// load.json (its recorded `scenario`), or the value a program passes to runScenario(). Each is
// checked against SCENARIO_SCHEMA; a file's errors name the file and line of the value at fault.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { SCENARIO_SCHEMA } from './scenario-schema.ts';
import type { LoadScenario } from './scenario.ts';
import { clip, quoted } from '../../clip.ts';
import { flowNestedTooDeeply } from '../../yaml-nesting.ts';

const validate = new Ajv({ strict: false, allErrors: true }).compile(SCENARIO_SCHEMA);

/** A scenario file is small: anything larger is not one. */
const MAX_BYTES = 1 << 20;

/** Where a schema error points: the property at fault (an unknown one by its own name). */
function pathOf(e: ErrorObject): (string | number)[] {
  const path = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (e.keyword === 'additionalProperties') path.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return path;
}

/** What is wrong, said of the part the user meant: inside a `oneOf` by kind, the branch whose kind matched. */
function explain(errors: readonly ErrorObject[], root: unknown): ErrorObject {
  const oneOf = errors.filter((e) => e.keyword === 'oneOf').sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (oneOf === undefined) return [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0] as ErrorObject;
  const under = (e: ErrorObject): boolean => e.schemaPath.startsWith(`${oneOf.schemaPath}/`);
  const kinds = errors.filter((e) => under(e) && e.keyword === 'const' && e.instancePath === `${oneOf.instancePath}/kind`).map((e) => String(e.params.allowedValue));
  const value = pathOf(oneOf).reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], root) as { kind?: unknown } | undefined;
  const branchOf = (e: ErrorObject): string => e.schemaPath.slice(oneOf.schemaPath.length + 1).split('/')[0] ?? '';
  const missed = new Set(errors.filter((e) => under(e) && e.keyword === 'const' && e.instancePath === `${oneOf.instancePath}/kind`).map(branchOf));
  const inBranch = errors.filter((e) => under(e) && !missed.has(branchOf(e)));
  if (typeof value?.kind !== 'string' || inBranch.length === 0) {
    return { ...oneOf, keyword: 'kind', instancePath: `${oneOf.instancePath}/kind`, params: { allowed: kinds }, message: `must be one of ${kinds.join(', ')}, got ${clip(JSON.stringify(value?.kind ?? null) ?? '')}` };
  }
  return inBranch.sort((a, b) => b.instancePath.length - a.instancePath.length)[0] as ErrorObject;
}

/** A key of the path as the message quotes it: a plain name as it is, any other written as a JSON string, so a key holding a line feed keeps the message one line. */
const segment = (p: string | number): string => typeof p === 'number' || /^[\w-]+$/.test(p) ? clip(String(p)) : quoted(p);

function describe(e: ErrorObject): string {
  const at = pathOf(e).map(segment).join('.') || '(top level)';
  switch (e.keyword) {
    case 'additionalProperties':
      return `${at}: unknown key`;
    case 'required':
      return `${at === '(top level)' ? '' : `${at}: `}needs ${String(e.params.missingProperty)}`;
    case 'enum':
      return `${at} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at} ${e.message ?? 'is not valid'}`;
  }
}

/** Checks a scenario value against the schema and the rules the schema cannot say; `where` places an error (a file's line). */
export function checkScenario(value: unknown, who: string, where: (path: (string | number)[]) => string = () => ''): LoadScenario {
  if (!validate(value)) {
    const e = explain(validate.errors ?? [], value);
    throw new HarnessError(HarnessErrorCode.USAGE, `${who}${where(pathOf(e))}: ${describe(e)}`, { hint: 'the scenario format: docs/load.md, "Scenario files"' });
  }
  const s = value as LoadScenario;
  const seen = new Set<string>();
  (s.workload ?? []).forEach((part, i) => {
    if (seen.has(part.kind)) throw new HarnessError(HarnessErrorCode.USAGE, `${who}${where(['workload', i])}: workload has two parts of kind ${part.kind}`);
    seen.add(part.kind);
  });
  return normalize(s);
}

/** Durations may be written as bare numbers of seconds in a file; the options take them as text. */
function normalize(s: LoadScenario): LoadScenario {
  const text = <T extends object>(o: T | undefined, keys: readonly string[]): T | undefined => {
    if (o === undefined) return undefined;
    const out = { ...o } as Record<string, unknown>;
    for (const k of keys) if (typeof out[k] === 'number') out[k] = String(out[k]);
    return out as T;
  };
  return {
    ...s,
    ...(s.executor === undefined ? {} : { executor: text(s.executor, ['ramp'])! }),
    ...(s.request === undefined ? {} : { request: text(s.request, ['timeout', 'requestTimeout'])! }),
    ...(s.run === undefined ? {} : { run: text(s.run, ['duration', 'warmup'])! }),
    ...(s.search === undefined ? {} : { search: text(s.search, ['budget'])! }),
    ...(s.workload === undefined ? {} : { workload: s.workload.map((p) => text(p, ['thinkTime'])!) }),
  };
}

/**
 * Reads a scenario file, YAML or JSON. A load.json (schema iari.load/1) gives the scenario it
 * recorded, so `--scenario reports/<run>/load/load.json` runs that configuration again.
 */
export function readScenarioFile(file: string, who = 'iari load'): LoadScenario {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${who}: cannot read --scenario ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (bytes.length > MAX_BYTES) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${who}: --scenario ${file}: larger than 1 MiB: not a scenario`);
  const counter = new LineCounter();
  // The yaml parser and toJS recurse per level: a few thousand nested "- - -" or "[[[" overflow the stack.
  // toJS refuses more than maxAliasCount alias expansions (a "billion laughs" file) with a ReferenceError.
  const unreadable = (error: unknown): HarnessError => {
    const why = error instanceof RangeError ? 'nested too deeply' : error instanceof ReferenceError && /alias/i.test(error.message) ? 'its aliases expand past 100 copies' : undefined;
    if (why === undefined) throw error;
    return new HarnessError(HarnessErrorCode.USAGE, `${who}: --scenario ${file}: not YAML or JSON iari can read: ${why}`);
  };
  const text = bytes.toString('utf8');
  if (flowNestedTooDeeply(text)) throw new HarnessError(HarnessErrorCode.USAGE, `${who}: --scenario ${file}: not YAML or JSON iari can read: nested too deeply`);
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    throw unreadable(error);
  }
  const first = doc.errors[0];
  if (first !== undefined) {
    const line = first.linePos?.[0].line ?? counter.linePos(first.pos[0]).line;
    throw new HarnessError(HarnessErrorCode.USAGE, `${who}: --scenario ${file}:${line}: not YAML or JSON: ${clip(first.message.split('\n')[0] ?? '', 200)}`);
  }
  let root: (string | number)[] = [];
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw unreadable(error);
  }
  const meta = (value as { meta?: { schema?: unknown } } | null)?.meta;
  if (typeof value === 'object' && value !== null && meta?.schema === 'iari.load/1') {
    const recorded = (value as { scenario?: unknown }).scenario;
    if (recorded === undefined) throw new HarnessError(HarnessErrorCode.USAGE, `${who}: --scenario ${file}: this load.json records no scenario (written before iari recorded one)`);
    root = ['scenario'];
    value = recorded;
  }
  return checkScenario(value, `${who}: --scenario ${file}`, (path) => `:${lineAt(doc, counter, [...root, ...path])}`);
}

/** The line of the deepest node of `path` that exists (a missing key: its parent's line). */
function lineAt(doc: Document, counter: LineCounter, path: (string | number)[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node !== undefined && node !== null && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
      // A key's own line where the node is a map entry's value on the next lines.
      if (n > 0 && isMap(n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true))) {
        const parent = (n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true)) as { items: { key: { value?: unknown; range?: [number, number, number] } | null }[] };
        const pair = parent.items.find((p) => p.key?.value === path[n - 1]);
        if (pair?.key?.range !== undefined) return counter.linePos(pair.key.range[0]).line;
      }
      return counter.linePos((node.range as number[])[0] as number).line;
    }
  }
  return 1;
}
