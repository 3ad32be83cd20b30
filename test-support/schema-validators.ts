import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { HarnessError, HarnessErrorCode } from '../src/errors.ts';
import { packagePath } from '../src/package-root.ts';
import { ajvErrorPointer, escapePointerToken, validateReceiptSchema } from '../src/receipts/receipt-schema.ts';

/** The OpenAPI document is registered with ajv under this $id; `receipt.schema.json` resolves beside it. */
export const OPENAPI_SCHEMA_ID = 'https://iari.invalid/spec/openapi.yaml';
export const OPENAPI_PATH = packagePath('spec/openapi.yaml');
const RECEIPT_SCHEMA_PATH = packagePath('spec/receipt.schema.json');

/** Component schemas other modules validate against (names fixed by the team contract). */
export const schemaNames = [
  'ChatCompletionRequest',
  'ChatMessage',
  'ChatMessageSystem',
  'ChatMessageDeveloper',
  'ChatMessageUser',
  'ChatMessageAssistant',
  'ChatMessageTool',
  'ChatCompletion',
  'ChatCompletionChunk',
  'UsageChunk',
  'ChatCompletionUsage',
  'ToolCall',
  'ToolCallDelta',
  'ErrorResponse',
  'ModelList',
  'Model',
  'CurrentUser',
  'DailyUsage',
  'DailyUsageRow',
  'ReceiptKeys',
  'ReceiptList',
  'Receipt',
] as const;
export type SchemaName = (typeof schemaNames)[number];

export interface SchemaError {
  /** RFC 6901 JSON Pointer into the validated value (for a missing member: where it should be). */
  pointer: string;
  keyword: string;
  message: string;
}
export type SchemaResult = { ok: true } | { ok: false; errors: SchemaError[] };

type ReceiptValidator = (value: unknown) => SchemaResult;

/** OpenAPI members that are not JSON Schema keywords; ajv's strict mode must not reject them. */
const openApiVocabulary = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'security',
  'tags',
  'paths',
  'components',
  'webhooks',
  'externalDocs',
  'example',
  'xml',
  'x-iari-extension',
  'x-iari-event-schema',
  'x-iari-stream-terminator',
];

export function loadOpenApiDocument(path: string = OPENAPI_PATH): Record<string, unknown> {
  try {
    return parseYaml(readFileSync(path, 'utf8'), { uniqueKeys: true }) as Record<string, unknown>;
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.SPEC_INVALID, `cannot load ${path}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
}

/**
 * ajv implements OpenAPI's `discriminator` (selecting the oneOf branch by the tag's const, so errors
 * point into the chosen branch) but rejects `mapping`, which openapi-typescript needs to type the tag.
 * The mapping only restates the branches' consts, so it is dropped from ajv's copy.
 */
function withoutDiscriminatorMappings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDiscriminatorMappings);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'discriminator' && typeof value === 'object' && value !== null) {
      const { mapping: _mapping, ...rest } = value as Record<string, unknown>;
      out[key] = rest;
    } else {
      out[key] = withoutDiscriminatorMappings(value);
    }
  }
  return out;
}

function toResult(errors: ErrorObject[] | null | undefined): SchemaResult {
  const out: SchemaError[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    if (error.keyword === 'if') continue;
    const pointer = ajvErrorPointer(error);
    const message = error.message ?? error.keyword;
    const key = `${pointer}\u0000${error.keyword}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer, keyword: error.keyword, message });
  }
  if (out.length === 0) out.push({ pointer: '', keyword: 'unknown', message: 'value rejected without detail' });
  return { ok: false, errors: out };
}

/** Receipt validation belongs to the receipts library (spec/receipt.schema.json); keep the shared members. */
function receiptDelegate(value: unknown): SchemaResult {
  const result = validateReceiptSchema(value);
  if (result.ok) return result;
  return { ok: false, errors: result.errors.map(({ pointer, keyword, message }) => ({ pointer, keyword, message })) };
}

class SchemaRegistry {
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #receipt: ReceiptValidator | undefined;

  constructor(document: Record<string, unknown>, receiptSchema: Record<string, unknown> | undefined, receipt: ReceiptValidator | undefined) {
    // Strict mode, except two checks that reject valid 2020-12 idioms: strictRequired (`required` in
    // anyOf/if branches names members declared by the enclosing schema) and strictTypes (the Receipt
    // schema's conditionals carry `required` without repeating `type`), as in src/receipts/receipt-schema.ts.
    this.#ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false, allErrors: true, discriminator: true });
    this.#ajv.addVocabulary(openApiVocabulary);
    if (receiptSchema !== undefined) this.#ajv.addSchema(receiptSchema);
    this.#ajv.addSchema({ ...(withoutDiscriminatorMappings(document) as Record<string, unknown>), $id: OPENAPI_SCHEMA_ID });
    this.#receipt = receipt;
    const components = (document['components'] as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {};
    for (const name of schemaNames) {
      if (!(name in components)) throw new HarnessError(HarnessErrorCode.SPEC_INVALID, `spec/openapi.yaml has no component schema "${name}"`);
    }
  }

  validator(name: string): ValidateFunction {
    let fn = this.#compiled.get(name);
    if (fn === undefined) {
      const ref = `${OPENAPI_SCHEMA_ID}#/components/schemas/${escapePointerToken(name)}`;
      try {
        fn = this.#ajv.getSchema(ref);
      } catch (error) {
        throw new HarnessError(HarnessErrorCode.SPEC_INVALID, `cannot compile schema ${name}: ${(error as Error).message}`, { cause: error });
      }
      if (fn === undefined) throw new HarnessError(HarnessErrorCode.SPEC_INVALID, `unknown component schema "${name}"`);
      this.#compiled.set(name, fn);
    }
    return fn;
  }

  validate(name: string, value: unknown): SchemaResult {
    if (name === 'Receipt' && this.#receipt !== undefined) return this.#receipt(value);
    const fn = this.validator(name);
    return fn(value) ? { ok: true } : toResult(fn.errors);
  }

  /** Compiles every named component (used by tests and at start to fail fast). */
  compileAll(): void {
    for (const name of schemaNames) this.validator(name);
  }
}

let registry: SchemaRegistry | undefined;

function loadReceiptSchemaFile(): Record<string, unknown> | undefined {
  return existsSync(RECEIPT_SCHEMA_PATH) ? (JSON.parse(readFileSync(RECEIPT_SCHEMA_PATH, 'utf8')) as Record<string, unknown>) : undefined;
}

function sharedRegistry(): SchemaRegistry {
  if (registry === undefined) {
    registry = new SchemaRegistry(loadOpenApiDocument(), loadReceiptSchemaFile(), receiptDelegate);
    registry.compileAll();
  }
  return registry;
}

/** Builds a validator from another document (tests: a mutated copy of the spec). */
export function createSchemaValidator(document: Record<string, unknown>): (name: string, value: unknown) => SchemaResult {
  const local = new SchemaRegistry(document, loadReceiptSchemaFile(), receiptDelegate);
  return (name, value) => local.validate(name, value);
}

/**
 * Validates a value against a component schema of spec/openapi.yaml, compiled once (ajv 2020, strict).
 * Errors carry a JSON Pointer into the value. `Receipt` is validated by the receipts library.
 */
export function validateSchema(name: SchemaName, value: unknown): SchemaResult {
  return sharedRegistry().validate(name, value);
}
