// `response_format` of a chat request (compat: OpenAI Structured Outputs and JSON mode; profile
// D-HTTP-45): parsed and checked as OpenAI does, including its strict-mode schema rules, whose 400
// messages are OpenAI's own ("Invalid schema for response_format 'name': In context=(...), ...").
import type { AskFormat, MockRefusal } from '../protocol-mock.ts';

const badRequest = (param: string | null, message: string): MockRefusal => ({ ok: false, param, message });

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Keywords outside OpenAI's strict subset, refused with "'<keyword>' is not permitted". */
const NOT_PERMITTED = ['allOf', 'not', 'if', 'then', 'else', 'oneOf', 'dependentRequired', 'dependentSchemas', 'patternProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'default'];

/** A Python tuple's repr, as OpenAI prints the context of a schema error: (), ('items',), ('properties', 'a'). */
function contextRepr(path: readonly string[]): string {
  if (path.length === 0) return '()';
  const items = path.map((p) => `'${p}'`);
  return path.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}

/** Subschemas of a schema, each with the keys leading to it (as OpenAI's context names them). */
function children(schema: Record<string, unknown>): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  if (isRecord(schema['properties'])) for (const [k, v] of Object.entries(schema['properties'])) out.push([['properties', k], v]);
  if (schema['items'] !== undefined) out.push([['items'], schema['items']]);
  if (Array.isArray(schema['anyOf'])) schema['anyOf'].forEach((v, i) => out.push([['anyOf', String(i)], v]));
  for (const defs of ['$defs', 'definitions']) if (isRecord(schema[defs])) for (const [k, v] of Object.entries(schema[defs])) out.push([[defs, k], v]);
  return out;
}

function strictProblem(schema: unknown, path: string[]): string | null {
  if (!isRecord(schema)) return null;
  const at = `In context=${contextRepr(path)}, `;
  for (const keyword of NOT_PERMITTED) if (keyword in schema) return `${at}'${keyword}' is not permitted.`;
  const type = schema['type'];
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
  if (isObject) {
    if (schema['additionalProperties'] !== false) return `${at}'additionalProperties' is required to be supplied and to be false.`;
    const properties = isRecord(schema['properties']) ? Object.keys(schema['properties']) : [];
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    const missing = properties.find((p) => !required.includes(p));
    if (missing !== undefined) return `${at}'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  for (const [keys, child] of children(schema)) {
    const problem = strictProblem(child, [...path, ...keys]);
    if (problem !== null) return problem;
  }
  return null;
}

/** OpenAI's refusal of a strict schema outside its subset, or null when the schema is accepted. */
export function strictSchemaError(name: string, schema: Record<string, unknown>): string | null {
  const prefix = `Invalid schema for response_format '${name}': `;
  const type = schema['type'];
  if (type !== 'object' || 'anyOf' in schema) return `${prefix}schema must be a JSON Schema of 'type: "object"', got 'type: "${typeof type === 'string' ? type : 'None'}"'.`;
  const problem = strictProblem(schema, []);
  return problem === null ? null : prefix + problem;
}

const mentionsJson = (texts: readonly (string | null)[]): boolean => texts.some((t) => t !== null && /json/i.test(t));

/**
 * Parses `response_format`: absent or `{type:"text"}` is text; `json_object` needs the word JSON in
 * the messages (OpenAI's rule); `json_schema` needs a name and a schema object, and with strict:true a
 * schema inside OpenAI's strict subset.
 */
export function parseResponseFormat(body: Record<string, unknown>, messageTexts: readonly (string | null)[], faults: ReadonlySet<string>): AskFormat | MockRefusal {
  const rf = body['response_format'];
  if (rf === undefined || rf === null || faults.has('response-format-ignored')) return { type: 'text' };
  if (!isRecord(rf)) return badRequest('response_format', `Invalid type for 'response_format': expected an object, but got ${typeName(rf)} instead.`);
  const type = rf['type'];
  if (type === undefined) return badRequest('response_format.type', "Missing required parameter: 'response_format.type'.");
  if (type === 'text') return { type: 'text' };
  if (type === 'json_object') {
    if (!mentionsJson(messageTexts)) return badRequest('messages', "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.");
    return { type: 'json_object' };
  }
  if (type !== 'json_schema') return badRequest('response_format.type', `Invalid value: '${String(type)}'. Supported values are: 'json_object', 'json_schema', and 'text'.`);
  const js = rf['json_schema'];
  if (js === undefined || js === null) return badRequest('response_format.json_schema', "Missing required parameter: 'response_format.json_schema'.");
  if (!isRecord(js)) return badRequest('response_format.json_schema', `Invalid type for 'response_format.json_schema': expected an object, but got ${typeName(js)} instead.`);
  const name = js['name'];
  if (name === undefined) return badRequest('response_format.json_schema.name', "Missing required parameter: 'response_format.json_schema.name'.");
  if (typeof name !== 'string' || !NAME.test(name)) {
    return badRequest('response_format.json_schema.name', "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).");
  }
  const schema = js['schema'] ?? {};
  if (!isRecord(schema)) return badRequest('response_format.json_schema.schema', `Invalid type for 'response_format.json_schema.schema': expected an object, but got ${typeName(schema)} instead.`);
  const strict = js['strict'];
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean') return badRequest('response_format.json_schema.strict', `Invalid type for 'response_format.json_schema.strict': expected a boolean, but got ${typeName(strict)} instead.`);
  if (strict === true && !faults.has('strict-schema-accepted')) {
    // Compat (OpenAI Structured Outputs): strict mode takes a subset of JSON Schema and refuses the rest with 400.
    const problem = strictSchemaError(name, schema);
    if (problem !== null) return badRequest('response_format', problem);
  }
  return { type: 'json_schema', name, schema, strict: strict === true };
}

