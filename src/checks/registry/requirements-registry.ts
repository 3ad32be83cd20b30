import { readFileSync } from 'node:fs';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { packagePath } from '../../package-root.ts';
import { grades, sources, type Grade, type Source } from '../kernel/verdicts.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
import { parseRegistryYaml, prebuiltDocument } from './registry-document.ts';

/** The closed set of requirement areas (team contract); an ID is `<AREA>-<NNN>`. */
export const requirementAreas = [
  'AUTH',
  'MODELS',
  'ME',
  'USAGE',
  'CHAT',
  'CHAT-STREAM',
  'TOOLS',
  'ERR',
  'LIMIT',
  'HDR',
  'RCPT-SCHEMA',
  'RCPT-SIG',
  'RCPT-CHAIN',
  'RCPT-PAIR',
  'RCPT-HTTP',
  'CLIENT',
  'EMB',
  'METRICS',
  'CANCEL',
  'RESP',
  'RESP-STREAM',
  'RESP-STATE',
  'CLIENT-RESP',
] as const;
export type RequirementArea = (typeof requirementAreas)[number];

/** When a requirement applies only to servers that advertise receipts, or only with `--include limits`. */
export const optionalKinds = ['receipts-extension', 'limits'] as const;
export type OptionalKind = (typeof optionalKinds)[number];

export interface Requirement {
  id: string;
  /** One of `requirementAreas`, or an area a protocol brings (Protocol.requirements). */
  area: string;
  title: string;
  source: Source;
  /** Seed section, OpenAI rule / failure-mode row (`conformance-anchors.md §2 #N`), or `DECISIONS.md D-HTTP-nn`. */
  ref: string;
  grade: Grade;
  expectation: string;
  /**
   * Why the grade (spec/DECISIONS.md D-GRADE-01..05): the seed sentence, the client + call + what it
   * does, or "profile choice: <why>". Required: a grade counts only with its rationale.
   */
  rationale: string;
  optional?: OptionalKind;
}

export const DEFAULT_REGISTRY_PATH = packagePath('spec/requirements.yaml');

const alternation = (list: readonly string[]): string => [...list].sort((a, b) => b.length - a.length).join('|');
const idPattern = (list: readonly string[]): RegExp => new RegExp(`^(${alternation(list)})-(\\d{3})$`);
/** An ID as it stands alone: area, dash, three digits. */
export const REQUIREMENT_ID_PATTERN = idPattern(requirementAreas);
const ID_IN_TEXT = new RegExp(`(?<![A-Z0-9-])(?:${alternation(requirementAreas)})-\\d{3}(?![0-9])`, 'g');

const allowedKeys = new Set(['id', 'area', 'title', 'source', 'ref', 'grade', 'expectation', 'rationale', 'optional']);
const requiredStrings = ['id', 'area', 'title', 'source', 'ref', 'grade', 'expectation', 'rationale'] as const;

function invalid(path: string, what: string): HarnessError {
  return new HarnessError(HarnessErrorCode.REGISTRY_INVALID, `requirement registry ${path}: ${what}`, {
    hint: 'fix spec/requirements.yaml (see docs/spec.md)',
  });
}

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

/** Validates a parsed registry document (`extraAreas`: areas a protocol brings); throws IARI_REGISTRY_INVALID naming the first bad entry. */
export function validateRegistry(doc: unknown, path = '<inline>', extraAreas: readonly string[] = []): Requirement[] {
  const known: readonly string[] = [...requirementAreas, ...extraAreas];
  const pattern = extraAreas.length === 0 ? REQUIREMENT_ID_PATTERN : idPattern(known);
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { requirements?: unknown }).requirements)) {
    throw invalid(path, 'top level must be a mapping with a "requirements" list');
  }
  const entries = (doc as { requirements: unknown[] }).requirements;
  const seen = new Map<string, number>();
  const out: Requirement[] = [];
  entries.forEach((entry, index) => {
    const label = `entry #${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid(path, `${label} is not a mapping`);
    const record = entry as Record<string, unknown>;
    const name = typeof record['id'] === 'string' ? `${label} (${record['id']})` : label;
    for (const key of requiredStrings) {
      const value = record[key];
      if (typeof value !== 'string' || value.trim() === '') throw invalid(path, `${name} is missing "${key}" (a non-empty string)`);
    }
    for (const key of Object.keys(record)) {
      if (!allowedKeys.has(key)) throw invalid(path, `${name} has an unknown member "${key}"`);
    }
    const id = record['id'] as string;
    const match = pattern.exec(id);
    if (match === null) throw invalid(path, `${name}: malformed ID "${id}" (expected AREA-NNN with a known area)`);
    const area = record['area'] as string;
    if (!known.includes(area)) throw invalid(path, `${name}: unknown area "${area}"`);
    if (match[1] !== area) throw invalid(path, `${name}: ID prefix "${match[1]}" does not match area "${area}"`);
    const source = record['source'] as string;
    if (!isOneOf(sources, source)) throw invalid(path, `${name}: unknown source "${source}" (seed, compat or profile)`);
    const grade = record['grade'] as string;
    if (!isOneOf(grades, grade)) throw invalid(path, `${name}: unknown grade "${grade}" (MUST, SHOULD or INFO)`);
    // DECISIONS.md D-GRADE-04: a profile choice is INFO; `--profile strict` raises it to SHOULD at run time.
    if (source === 'profile' && grade !== 'INFO') throw invalid(path, `${name}: a profile requirement is graded INFO (D-GRADE-04), not ${grade}`);
    const rationale = record['rationale'] as string;
    // D-GRADE-03: a profile requirement's rationale says which choice it is.
    if (source === 'profile' && !/^profile choice: \S/.test(rationale)) throw invalid(path, `${name}: the rationale of a profile requirement starts with "profile choice: <why>"`);
    const optional = record['optional'];
    if (optional !== undefined && (typeof optional !== 'string' || !isOneOf(optionalKinds, optional))) {
      throw invalid(path, `${name}: unknown optional kind "${String(optional)}" (receipts-extension or limits)`);
    }
    const previous = seen.get(id);
    if (previous !== undefined) throw invalid(path, `${name}: duplicate ID "${id}" (first at entry #${previous})`);
    seen.set(id, index + 1);
    const requirement: Requirement = {
      id,
      area,
      title: record['title'] as string,
      source,
      ref: record['ref'] as string,
      grade,
      expectation: record['expectation'] as string,
      rationale,
    };
    if (optional !== undefined) requirement.optional = optional as OptionalKind;
    out.push(requirement);
  });
  return out;
}

/** Reads and validates the registry YAML (default: spec/requirements.yaml). */
export function parseRegistryFile(path: string): Requirement[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.REGISTRY_INVALID, `requirement registry ${path}: cannot read (${(error as Error).message})`, { cause: error });
  }
  // The build's parse of this very text where there is one (registry-document.ts); the same rules judge it.
  return validateRegistry(prebuiltDocument(text) ?? parseYamlOf(path, text), path);
}

function parseYamlOf(path: string, text: string): unknown {
  try {
    return parseRegistryYaml(text);
  } catch (error) {
    throw invalid(path, `not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

const cache = new Map<string, Requirement[]>();

/** Loads the registry once per path and returns it in file order. */
export function loadRequirements(path: string = DEFAULT_REGISTRY_PATH): Requirement[] {
  let list = cache.get(path);
  if (list === undefined) {
    list = parseRegistryFile(path);
    cache.set(path, list);
  }
  return list;
}

const withProtocols = new WeakMap<ProtocolList, Requirement[]>();

/**
 * The registry a run judges by: spec/requirements.yaml and the requirements its protocols bring
 * (a test-only API; the shipped ones keep theirs in the YAML), checked by the same rules.
 */
export function requirementsOf(protocols: ProtocolList = defaultProtocols): Requirement[] {
  let list = withProtocols.get(protocols);
  if (list === undefined) {
    const brought = protocols.flatMap((p) => (p.requirements === undefined ? [] : [p.requirements]));
    const base = loadRequirements();
    list = brought.length === 0 ? base : [...base, ...validateRegistry({ requirements: brought.flatMap((b) => b.list) }, 'a protocol', brought.flatMap((b) => b.areas))];
    const seen = new Set(base.map((r) => r.id));
    for (const r of list.slice(base.length)) if (seen.has(r.id)) throw invalid('a protocol', `requirement ${r.id} is already in spec/requirements.yaml`);
    withProtocols.set(protocols, list);
  }
  return list;
}

/** The requirement with this ID in the default registry, or undefined. */
export function requirementById(id: string, path: string = DEFAULT_REGISTRY_PATH): Requirement | undefined {
  return loadRequirements(path).find((r) => r.id === id);
}

/** Like requirementById but an unknown ID is a HarnessError (IARI_UNKNOWN_REQUIREMENT). */
export function requireRequirement(id: string, path: string = DEFAULT_REGISTRY_PATH): Requirement {
  const found = requirementById(id, path);
  if (found === undefined) throw new HarnessError(HarnessErrorCode.UNKNOWN_REQUIREMENT, `unknown requirement ID "${id}"`);
  return found;
}

/**
 * Requirement IDs named in a test title, in order, without repeats. Team rule: a test that decides
 * a requirement starts with its ID ("CHAT-STREAM-001: ..."); several may be listed ("ME-002, ME-003: ...").
 */
export function requirementIdsInTitle(title: string): string[] {
  const found: string[] = [];
  for (const m of title.matchAll(ID_IN_TEXT)) if (!found.includes(m[0])) found.push(m[0]);
  return found;
}

/** Failure-mode rows (`conformance-anchors.md §2 #N`) a requirement cites in its ref. */
export function failureModeRows(requirement: Pick<Requirement, 'ref'>): number[] {
  const rows: number[] = [];
  for (const group of requirement.ref.matchAll(/§2 (#\d+(?:,\s*#\d+)*)/g)) {
    for (const n of (group[1] ?? '').matchAll(/#(\d+)/g)) rows.push(Number(n[1]));
  }
  return rows;
}
