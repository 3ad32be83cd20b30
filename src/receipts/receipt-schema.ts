import { readFileSync } from 'node:fs';
import { packageUrl } from '../package-root.ts';
import { validate } from './receipt-validator.generated.ts';
import { FINDING_CODES } from './findings.ts';

// The validator is spec/receipt.schema.json compiled ahead of time (scripts/gen-receipt-validator.ts,
// ajv standalone code), so neither the CLI nor a verify worker loads ajv or compiles the schema at
// start-up; receipt-schema.test.ts checks that it is the schema's current compilation.
export const RECEIPT_SCHEMA_URL = packageUrl('spec/receipt.schema.json');

export const receiptSchema: Record<string, unknown> = JSON.parse(readFileSync(RECEIPT_SCHEMA_URL, 'utf8')) as Record<string, unknown>;

export interface ReceiptSchemaError {
  /** RFC 6901 pointer to the offending member (for a missing member: where it should be). */
  pointer: string;
  keyword: string;
  message: string;
  /** Verifier finding code named by the `$comment: "finding: CODE"` of the subschema holding the failing keyword, if any. */
  finding?: string;
}

export type ReceiptSchemaResult = { ok: true } | { ok: false; errors: ReceiptSchemaError[] };

/** The part of an ajv error object this module reads (ajv's ErrorObject, without importing ajv). */
export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
  /** The subschema holding the keyword (the validator is generated with verbose errors). */
  parentSchema?: Record<string, unknown>;
}

type GeneratedValidate = ((value: unknown) => boolean) & { errors?: AjvError[] | null };
const validateSchema = validate as unknown as GeneratedValidate;

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * RFC 6901 pointer to the member an ajv error is about: for a missing, unexpected or
 * discriminator-tag member, the member itself (where it is or should be), else the instance.
 */
export function ajvErrorPointer(error: AjvError): string {
  const params = error.params;
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

/**
 * D-RCPT-26: "the code in the $comment: "finding: CODE" of the subschema that holds the keyword itself ... No other
 * $comment counts" (ajv's verbose parentSchema; through $ref, the referenced subschema).
 */
function findingOf(error: AjvError): string | undefined {
  return findingCodeOfComment(error.parentSchema?.['$comment']);
}

/**
 * D-RCPT-26: a `$comment` names a code when it begins with `finding: `, then a code of the closed set,
 * then its end or a full stop (`finding: BAD_KEYREF. D-RCPT-03: ...`). Anything else names none:
 * `finding: BAD_KEYREFS`, `finding: bad_keyref`, `Finding: BAD_KEYREF`, ` finding: BAD_KEYREF`.
 */
export function findingCodeOfComment(comment: unknown): string | undefined {
  if (typeof comment !== 'string') return undefined;
  const code = /^finding: ([A-Z0-9_]+)(?:\.|$)/.exec(comment)?.[1];
  return code !== undefined && Object.hasOwn(FINDING_CODES, code) ? code : undefined;
}

/** Drops ajv's wrapper errors ("must match then schema") and the branch errors of an anyOf that is itself reported. */
function relevant(errors: AjvError[]): AjvError[] {
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath);
  return errors.filter((e) => e.keyword !== 'if' && !anyOfPaths.some((p) => e.schemaPath.startsWith(`${p}/`)));
}

export function validateReceiptSchema(value: unknown): ReceiptSchemaResult {
  if (validateSchema(value)) return { ok: true };
  const errors: ReceiptSchemaError[] = [];
  const seen = new Set<string>();
  for (const error of relevant(validateSchema.errors ?? [])) {
    const pointer = ajvErrorPointer(error);
    const key = `${pointer}\u0000${error.keyword}\u0000${error.schemaPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const finding = findingOf(error);
    errors.push({ pointer, keyword: error.keyword, message: error.message ?? error.keyword, ...(finding === undefined ? {} : { finding }) });
  }
  return { ok: false, errors };
}
