// The requirement registry's YAML as a parsed document. Parsing spec/requirements.yaml (250 KB) took
// 135-450 ms of every `iari test`'s CPU (issue 41): the build parses it once and writes the document
// beside the compiled code with the SHA-256 of the text it came from; a run that reads the same text
// takes that document (JSON.parse, about 1 ms) and parses the YAML only when the text differs (an
// edited registry, a run from the sources, another --registry file). Either way the document is
// validated by the same rules (validateRegistry).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { codePath } from '../../package-root.ts';

/** Where the build puts the default registry's parsed document (dist/spec/ when compiled). */
export const PARSED_REGISTRY_PATH = codePath('spec/requirements.parsed.json');

interface ParsedRegistry {
  sha256: string;
  document: unknown;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

// yaml is loaded only when a document is parsed: a compiled run of the default registry never needs it.
const require = createRequire(import.meta.url);

/** Parses registry YAML as the registry always has (duplicate keys are an error); throws yaml's error. */
export function parseRegistryYaml(text: string): unknown {
  const { parse } = require('yaml') as typeof import('yaml');
  return parse(text, { uniqueKeys: true });
}

/** The document the build parsed from exactly this text, or undefined (none written, another text, unreadable). */
export function prebuiltDocument(text: string, parsedPath: string = PARSED_REGISTRY_PATH): unknown {
  let parsed: ParsedRegistry;
  try {
    parsed = JSON.parse(readFileSync(parsedPath, 'utf8')) as ParsedRegistry;
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && parsed.sha256 === sha256(text) ? parsed.document : undefined;
}

/** The build's step: the parsed document of `yamlPath`, keyed by its text's hash. Throws when the YAML does not parse. */
export function writePrebuiltDocument(yamlPath: string, parsedPath: string): void {
  const text = readFileSync(yamlPath, 'utf8');
  const out: ParsedRegistry = { sha256: sha256(text), document: parseRegistryYaml(text) };
  writeFileSync(parsedPath, JSON.stringify(out));
}
