import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { packageUrl } from '../package-root.ts';

export const RECEIPT_SCHEMA_URL = packageUrl('spec/receipt.schema.json');

export const receiptSchema: Record<string, unknown> = JSON.parse(readFileSync(RECEIPT_SCHEMA_URL, 'utf8')) as Record<string, unknown>;

export interface ReceiptSchemaError {
  /** RFC 6901 pointer to the offending member (for a missing member: where it should be). */
  pointer: string;
  keyword: string;
  message: string;
  /** Verifier finding code named by the nearest `$comment: "finding: CODE"` on the schema path, if any. */
  finding?: string;
}

export type ReceiptSchemaResult = { ok: true } | { ok: false; errors: ReceiptSchemaError[] };

const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictRequired: false });
const validate = ajv.compile(receiptSchema);

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * RFC 6901 pointer to the member an ajv error is about: for a missing, unexpected or
 * discriminator-tag member, the member itself (where it is or should be), else the instance.
 */
export function ajvErrorPointer(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    return `${error.instancePath}/${escapePointerToken(params['missingProperty'])}`;
  }
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return `${error.instancePath}/${escapePointerToken(params['additionalProperty'])}`;
  }
  if (error.keyword === 'discriminator' && typeof params['tag'] === 'string') {
    return `${error.instancePath}/${escapePointerToken(params['tag'])}`;
  }
  return error.instancePath;
}

function findingOf(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as Record<string, unknown> | undefined;
  const comment = parent?.['$comment'];
  if (typeof comment !== 'string') return undefined;
  return /^finding: ([A-Z0-9_]+)/.exec(comment)?.[1];
}

/** Drops ajv's wrapper errors ("must match then schema") and the branch errors of an anyOf that is itself reported. */
function relevant(errors: ErrorObject[]): ErrorObject[] {
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath);
  return errors.filter((e) => e.keyword !== 'if' && !anyOfPaths.some((p) => e.schemaPath.startsWith(`${p}/`)));
}

export function validateReceiptSchema(value: unknown): ReceiptSchemaResult {
  if (validate(value)) return { ok: true };
  const errors: ReceiptSchemaError[] = [];
  const seen = new Set<string>();
  for (const error of relevant(validate.errors ?? [])) {
    const pointer = ajvErrorPointer(error);
    const key = `${pointer}\u0000${error.keyword}\u0000${error.schemaPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const finding = findingOf(error);
    errors.push({ pointer, keyword: error.keyword, message: error.message ?? error.keyword, ...(finding === undefined ? {} : { finding }) });
  }
  return { ok: false, errors };
}
