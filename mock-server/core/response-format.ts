// The mock's faults of `response_format` (compat: OpenAI Structured Outputs and JSON mode; profile
// D-HTTP-45); the member is parsed by the chat protocol (src/protocols/chat-completions/chat-response-format.ts).
import type { FaultDefinition } from './fault-catalogue.ts';

/** How a response-format fault bends the JSON the mock answers with (see responseFormatFaults). */
export type JsonFault = 'array' | 'missing-required' | 'stream-cut' | null;

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

export const responseFormatFaults: readonly FaultDefinition[] = [
  { ...f('response-format-ignored', ['CHAT-034', 'CHAT-035', 'CHAT-036', 'CHAT-037'], 'response_format is ignored: the answer is plain text and strict schemas are never refused (legal by default; fails under --expect json-object,json-schema).'), expect: ['json-object', 'json-schema'] },
  f('json-object-array', ['CHAT-034'], 'With response_format json_object the content is a JSON array, not an object.'),
  f('json-schema-missing-required', ['CHAT-035', 'CHAT-036'], 'With response_format json_schema one required property is left out of the JSON.'),
  f('json-schema-stream-cut', ['CHAT-036'], 'A streamed json_schema answer stops before its closing brace (the non-streamed one is whole).'),
  f('strict-schema-accepted', ['CHAT-037'], 'A strict json_schema that OpenAI refuses (additionalProperties not false, a property not required) is answered 200.'),
];

/** The JSON fault active for a request, if any. */
export function jsonFaultOf(faults: ReadonlySet<string>, stream: boolean): JsonFault {
  if (faults.has('json-object-array')) return 'array';
  if (faults.has('json-schema-missing-required')) return 'missing-required';
  if (faults.has('json-schema-stream-cut') && stream) return 'stream-cut';
  return null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Removes one required property from the first object that has one (fault json-schema-missing-required). */
export function dropRequired(value: unknown, schema: Record<string, unknown>): unknown {
  if (!isRecord(value)) return value;
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const first = required.find((r): r is string => typeof r === 'string' && r in value);
  if (first !== undefined) {
    const { [first]: _dropped, ...rest } = value;
    return rest;
  }
  return value;
}
