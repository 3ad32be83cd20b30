import { createRequire } from 'node:module';

type GptTokenizer = typeof import('gpt-tokenizer');

let loaded: GptTokenizer | undefined;

/**
 * gpt-tokenizer (o200k_base), loaded on first use: its tables cost about 67 MiB in every thread
 * that loads them, and a load run's main thread never counts a token unless it builds prompts or
 * checks in-process. Loaded one way only (require), so a thread never holds a second copy of the
 * package's ESM build beside its CommonJS one.
 */
export function tokenizer(): GptTokenizer {
  loaded ??= createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer;
  return loaded;
}
