import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { requirementInfos } from '../../src/checks/registry/registry-view.ts';
import { packagePath } from '../../src/package-root.ts';

/**
 * The wild corpus (fixtures/wild/): exchanges real servers are documented to send, each with its
 * source, the client impact and the verdicts the grading rubric derives. Loading validates every
 * file against fixtures/wild/exchange.schema.json and a few rules a schema cannot state, so a bad
 * fixture fails loudly instead of testing nothing.
 */

export const WILD_DIR = packagePath('fixtures/wild/');
export const SCHEMA_PATH = join(WILD_DIR, 'exchange.schema.json');

export type Verdict = 'pass' | 'fail' | 'non-strict' | 'informational' | 'skipped';
export type AuthKind = 'valid' | 'invalid' | 'none';

export interface ReplayMatch {
  method: 'GET' | 'POST';
  path?: string;
  pathPattern?: string;
  stream?: boolean;
  includeUsage?: boolean;
  tools?: boolean;
  n?: number;
  auth?: AuthKind | 'not-valid' | 'any';
  model?: 'listed' | 'unlisted' | 'any';
  bodyIncludes?: Record<string, unknown>;
  bodyLacks?: string[];
}

export interface SdkExpectation {
  outcome: 'ok' | 'throws';
  errorName?: string;
  message?: string;
  messageIncludes?: string;
  status?: number;
  code?: string | number | null;
  type?: string | null;
  errorIsUndefined?: boolean;
  models?: number;
  chunks?: number;
  finishReason?: string | null;
  toolCalls?: number;
  hasUsage?: boolean;
}

export interface Exchange {
  id: string;
  server: 'OpenAI' | 'vLLM' | 'llama.cpp' | 'Ollama' | 'TGI' | 'LiteLLM' | 'LocalAI' | 'SGLang';
  version: string;
  summary: string;
  kind?: 'legal' | 'unusual' | 'breaking';
  source: { url: string; quote: string; also?: string[] };
  evidence: { url: string; at: string; shows: string; fillIns: string };
  fidelity: 'verbatim' | 'excerpt-completed' | 'source-derived';
  fidelityNote?: string;
  request: { method: 'GET' | 'POST'; path: string; auth?: AuthKind; body?: unknown };
  response: { status: number; headers?: Record<string, string>; body?: unknown; bodyText?: string; sse?: string };
  replay: { match: ReplayMatch; shiftCreated?: boolean; createdAgeSeconds?: number; times?: number };
  clientImpact: { client: string; version?: string; call: string; effect: string; evidence: 'observed' | 'cited'; source?: string }[];
  /** `expect`: what every installed major of openai-node does; `byMajor`: where one major ("7") differs. */
  openaiSdk?: { operation: 'create' | 'stream-iterate' | 'stream-helper' | 'models-list'; expect: SdkExpectation; byMajor?: Record<string, SdkExpectation> };
  verdicts: Record<string, { verdict: Verdict; rubric: string }>;
}

/** An exchange with its response body bytes resolved (the .sse file read, JSON serialised). */
export interface LoadedExchange extends Exchange {
  file: string;
  bodyBytes: Uint8Array;
}

export class CorpusError extends Error {
  override readonly name = 'CorpusError';
}

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params === undefined ? '' : ` ${JSON.stringify(e.params)}`}`).join('; ');
}

let validator: ((v: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined;

function validate(doc: unknown): string | undefined {
  if (validator === undefined) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    validator = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  }
  return validator(doc) ? undefined : formatAjvErrors(validator.errors);
}

/** Checks one parsed exchange file; returns the problems (empty when it is well-formed). */
export function exchangeProblems(doc: unknown, file: string): string[] {
  const problems: string[] = [];
  const schemaErrors = validate(doc);
  if (schemaErrors !== undefined) return [`${file}: ${schemaErrors}`];
  const ex = doc as Exchange;
  const stem = basename(file).replace(/\.json$/, '');
  if (ex.id !== stem) problems.push(`${file}: id "${ex.id}" is not the file name "${stem}"`);
  if (ex.response.sse !== undefined && !existsSync(join(file, '..', ex.response.sse))) problems.push(`${file}: ${ex.response.sse} does not exist beside it`);
  if (ex.replay.match.pathPattern !== undefined) {
    try {
      new RegExp(ex.replay.match.pathPattern);
    } catch (error) {
      problems.push(`${file}: pathPattern is not a regular expression: ${(error as Error).message}`);
    }
  }
  const registry = requirementInfos();
  for (const id of Object.keys(ex.verdicts)) {
    if (!registry.has(id)) problems.push(`${file}: verdict for unknown requirement ${id}`);
  }
  if (ex.openaiSdk !== undefined && !ex.clientImpact.some((c) => c.client === 'openai-node' && c.evidence === 'observed')) {
    problems.push(`${file}: openaiSdk is set but no clientImpact entry records the observed openai-node effect`);
  }
  return problems;
}

/** Every exchange file under fixtures/wild/<server>/, sorted by path. */
export function exchangeFiles(dir = WILD_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const f of readdirSync(join(dir, entry.name))) if (f.endsWith('.json')) out.push(join(dir, entry.name, f));
  }
  return out.sort();
}

function bodyBytesOf(ex: Exchange, file: string): Uint8Array {
  if (ex.response.sse !== undefined) return new Uint8Array(readFileSync(join(file, '..', ex.response.sse)));
  if (ex.response.bodyText !== undefined) return new TextEncoder().encode(ex.response.bodyText);
  return new TextEncoder().encode(JSON.stringify(ex.response.body));
}

/** Loads and validates one exchange; throws a CorpusError naming every problem. */
export function loadExchange(file: string): LoadedExchange {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CorpusError(`${file}: not JSON: ${(error as Error).message}`);
  }
  const problems = exchangeProblems(doc, file);
  if (problems.length > 0) throw new CorpusError(problems.join('\n'));
  const ex = doc as Exchange;
  return { ...ex, file, bodyBytes: bodyBytesOf(ex, file) };
}

/** The whole corpus; throws on the first bad file (with all its problems). */
export function loadCorpus(dir = WILD_DIR): LoadedExchange[] {
  const all = exchangeFiles(dir).map(loadExchange);
  const ids = new Set<string>();
  for (const ex of all) {
    if (ids.has(ex.id)) throw new CorpusError(`${ex.file}: id ${ex.id} is used twice`);
    ids.add(ex.id);
  }
  return all;
}
