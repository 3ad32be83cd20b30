import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { requirementIdsInTitle, type Requirement } from './requirements-registry.ts';

export interface SuiteTest {
  file: string;
  title: string;
  ids: string[];
}

export interface Coverage {
  exercised: number;
  registry: number;
  unexercised: Requirement[];
  /** IDs cited by a test title that the registry does not know. */
  unknown: { id: string; file: string; title: string }[];
  tests: number;
}

/** Reads one JS string literal starting at `start` (the opening quote); returns its text and end index. */
function readStringLiteral(source: string, start: number): { text: string; end: number } | undefined {
  const quote = source[start];
  let text = '';
  for (let i = start + 1; i < source.length; i += 1) {
    const ch = source[i] as string;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      text += next === 'n' ? '\n' : next;
      i += 1;
    } else if (ch === quote) {
      return { text, end: i };
    } else if (quote === '`' && ch === '$' && source[i + 1] === '{') {
      text += '${';
      i += 1;
    } else {
      text += ch;
    }
  }
  return undefined;
}

// it('...'), test("..."), it.concurrent(`...`), it.fails('...'): skip/todo do not exercise anything.
const TEST_CALL = /\b(?:it|test)(?:\.(concurrent|fails|only|skip|todo|skipIf\([^)]*\)|runIf\([^)]*\)))?\s*\(\s*(['"`])/g;

/** Test titles in one file (static scan: no code runs). */
export function testTitlesIn(source: string): string[] {
  const titles: string[] = [];
  for (const match of source.matchAll(TEST_CALL)) {
    const modifier = match[1] ?? '';
    if (modifier === 'skip' || modifier === 'todo' || modifier.startsWith('skipIf')) continue;
    const quoteAt = (match.index ?? 0) + match[0].length - 1;
    const literal = readStringLiteral(source, quoteAt);
    if (literal !== undefined) titles.push(literal.text);
  }
  return titles;
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(dir, name))
    .sort();
}

/** Every test in `dir/**\/*.test.ts` with the requirement IDs its title names. An absent folder has none. */
export function scanSuites(dir: string): SuiteTest[] {
  return testFiles(dir).flatMap((path) =>
    testTitlesIn(readFileSync(path, 'utf8')).map((title) => ({ file: relative(process.cwd(), path), title, ids: requirementIdsInTitle(title) })),
  );
}

/** Coverage of `requirements` (possibly one area) by `tests`; `registryIds` (default: the same list) decides which cited IDs are unknown. */
export function computeCoverage(requirements: Requirement[], tests: SuiteTest[], registryIds: ReadonlySet<string> = new Set(requirements.map((r) => r.id))): Coverage {
  const cited = new Set<string>();
  const unknown: Coverage['unknown'] = [];
  for (const t of tests) {
    for (const id of t.ids) {
      if (registryIds.has(id)) cited.add(id);
      else unknown.push({ id, file: t.file, title: t.title });
    }
  }
  const unexercised = requirements.filter((r) => !cited.has(r.id));
  return { exercised: requirements.length - unexercised.length, registry: requirements.length, unexercised, unknown, tests: tests.length };
}
