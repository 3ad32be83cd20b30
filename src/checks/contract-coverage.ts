import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_SUITES } from '../package-root.ts';

const suitesDir = CONTRACT_SUITES.dir;
const TITLE = /\bit\(\s*'([^']*)'/g;
const ID = /\b[A-Z]+(?:-[A-Z]+)*-\d{3}\b/g;

/** Test titles of the contract suites, read statically from the files (nothing is run). */
export function contractTitles(dir: string = suitesDir): { file: string; title: string }[] {
  const out: { file: string; title: string }[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(CONTRACT_SUITES.suffix)).sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(TITLE)) out.push({ file, title: m[1] as string });
  }
  return out;
}

/** Requirement IDs named before the ':' of some contract test title: the IDs the suites exercise. */
export function exercisedIds(dir: string = suitesDir): Set<string> {
  const ids = new Set<string>();
  for (const { title } of contractTitles(dir)) {
    for (const m of (title.split(':')[0] ?? '').matchAll(ID)) ids.add(m[0]);
  }
  return ids;
}
