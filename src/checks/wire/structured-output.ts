import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * The schema the structured-output checks ask for: the shape a client's `Output.object` /
 * `withStructuredOutput` sends (nested object, array of objects, enum, integer bounds, a nullable
 * member), inside OpenAI's strict subset, without string formats (not every constrained decoder has them).
 */
export const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    temperature_c: { type: 'number' },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain', 'snow'] },
    hourly: {
      type: 'array',
      items: { type: 'object', properties: { hour: { type: 'integer', minimum: 0, maximum: 23 }, temperature_c: { type: 'number' } }, required: ['hour', 'temperature_c'], additionalProperties: false },
    },
    alert: { type: ['string', 'null'] },
  },
  required: ['city', 'temperature_c', 'conditions', 'hourly', 'alert'],
  additionalProperties: false,
} as const;

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

const validateWeather = new Ajv2020({ strict: false, allErrors: true }).compile(WEATHER_SCHEMA);

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

