import { WEATHER_SCHEMA } from './weather-schema.ts';
// WEATHER_SCHEMA compiled ahead of time (scripts/gen-weather-validator.ts): a run loads no ajv and compiles nothing (issue 41).
import { validate } from './weather-validator.generated.ts';

export { WEATHER_SCHEMA };

/** The generated validator: ajv's, with the errors of its last call (the part of ajv's ErrorObject read here). */
const validateWeather = validate as unknown as ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

/** Outside strict mode: the nested object neither closes nor requires its properties (OpenAI refuses it with strict:true). */
export const NOT_STRICT_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, details: { type: 'object', properties: { note: { type: 'string' } } } },
  required: ['city', 'details'],
  additionalProperties: false,
};

export const WEATHER_PROMPT = 'Report the weather in Paris as a JSON object.';

/** The schema the json-schema capability probe sends (the one CHAT-035/036 judge). */
export const WEATHER_SCHEMA_FOR_PROBE = WEATHER_SCHEMA;

/** Parses `text` as JSON and validates it against the weather schema; undefined when it is valid. */
export function schemaProblem(text: string): { message: string; received: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { message: 'the content is not JSON', received: text.slice(0, 200) };
  }
  if (validateWeather(value)) return undefined;
  const e = validateWeather.errors?.[0];
  return { message: `the JSON does not match the schema: ${e?.instancePath || '/'} ${e?.message ?? ''}`.trim(), received: value };
}


/**
 * A JSON answer the length bound cut (finish_reason "length") is undecided, not the server's
 * failure: the model ran out of tokens and the server stopped where it was told to (issue 27,
 * judge the server, not the model). Only a cut JSON text counts: content that is JSON up to its
 * last byte and merely unfinished; anything else (prose, JSON broken before the cut) is judged.
 */
export function truncatedByLength(text: string, finish: unknown): string | undefined {
  if (finish !== 'length' || !isUnfinishedJson(text)) return undefined;
  return `undecided: the answer was cut by the length bound (finish_reason "length") before its JSON ended (${JSON.stringify(text.slice(-40))}): the model ran out of tokens; the server did what it was told`;
}

/** Whether `text` is the start of a JSON text: a parser fails only because it ends early. */
export function isUnfinishedJson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch (error) {
    const message = (error as Error).message;
    if (/Unexpected end of JSON input|Unterminated string/.test(message)) return true;
    const at = /at position (\d+)/.exec(message);
    return at !== null && Number(at[1]) >= text.trimEnd().length;
  }
}
