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
