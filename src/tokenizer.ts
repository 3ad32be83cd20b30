import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { codePath } from './package-root.ts';

const require = createRequire(import.meta.url);

/** One rank's bytes as gpt-tokenizer 4 holds them: the text, or the bytes of a token that is not UTF-8 on its own. */
type Rank = string | number[];

interface PrebuiltRanks {
  /** gpt-tokenizer's version the ranks were taken from: another installed version is not read. */
  version: string;
  ranks: Rank[];
}

/** Where the build puts o200k_base's rank table as JSON (dist/tokenizer/ when compiled; absent from the sources). */
export const PREBUILT_RANKS_PATH = codePath('tokenizer/o200k_base.ranks.json');

let loaded: GptEncoding | undefined;

/**
 * gpt-tokenizer's o200k_base encoding, loaded on first use: a load run's main thread never counts a
 * token unless it builds prompts or checks in-process. Loaded one way only (require), so a thread
 * never holds a second copy of the package's ESM build beside its CommonJS one.
 */
export function tokenizer(): GptEncoding {
  loaded ??= loadO200k(PREBUILT_RANKS_PATH);
  return loaded;
}

/**
 * The encoding built by gpt-tokenizer's own class from the build's JSON copy of its rank table when
 * that copy is of the installed version, else the package's o200k_base module. The package ships the
 * table as a 2.1 MB JavaScript array literal: compiling it cost each thread that loads it about 25 MiB
 * of resident memory and 35 ms of CPU more than JSON.parse of the same values (issue 41). Same class,
 * same ranks, same call (`getEncodingApi('o200k_base', …)`, as the package's encoding/o200k_base does):
 * the same tokens.
 */
export function loadO200k(ranksPath: string): GptEncoding {
  const ranks = prebuiltRanks(ranksPath);
  if (ranks === undefined) return (require('gpt-tokenizer') as typeof import('gpt-tokenizer')).default;
  const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as typeof import('gpt-tokenizer/GptEncoding');
  return GptEncoding.getEncodingApi('o200k_base', () => ranks);
}

function installedVersion(): string {
  return (require('gpt-tokenizer/package.json') as { version: string }).version;
}

function prebuiltRanks(path: string): Rank[] | undefined {
  let parsed: PrebuiltRanks;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as PrebuiltRanks;
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && parsed.version === installedVersion() && Array.isArray(parsed.ranks) ? parsed.ranks : undefined;
}

/** The build's step: the installed package's o200k_base rank table as JSON. Throws on a table JSON would not carry exactly (a hole, another kind of entry). */
export function writePrebuiltRanks(path: string): void {
  const ranks = (require('gpt-tokenizer/bpeRanks/o200k_base') as { default: unknown[] }).default;
  const exact = Object.keys(ranks).length === ranks.length && ranks.every((r) => typeof r === 'string' || (Array.isArray(r) && r.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)));
  if (!exact) throw new Error('gpt-tokenizer o200k_base ranks: a hole or an entry that is neither a string nor bytes');
  const out: PrebuiltRanks = { version: installedVersion(), ranks: ranks as Rank[] };
  writeFileSync(path, JSON.stringify(out));
}
