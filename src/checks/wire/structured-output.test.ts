import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { WEATHER_VALIDATOR_PATH, weatherValidatorSource } from '../../../scripts/gen-weather-validator.ts';
import { schemaProblem, WEATHER_SCHEMA } from './structured-output.ts';

const valid = { city: 'Paris', temperature_c: 18.5, conditions: 'cloudy', hourly: [{ hour: 9, temperature_c: 16 }], alert: null };

describe('the weather schema compiled ahead of time (issue 41)', () => {
  it('is the code ajv generates for WEATHER_SCHEMA today', () => {
    expect(readFileSync(WEATHER_VALIDATOR_PATH, 'utf8') === weatherValidatorSource(), 'src/checks/wire/weather-validator.generated.ts is stale: run npx tsx scripts/gen-weather-validator.ts').toBe(true);
  });

  it('judges answers as ajv compiling the schema at run time does, first error included', () => {
    const runtime = new Ajv2020({ strict: false, allErrors: true }).compile(WEATHER_SCHEMA);
    const answers: unknown[] = [
      valid,
      { ...valid, alert: 'storm' },
      { ...valid, conditions: 'fog' },
      { ...valid, hourly: [{ hour: 24, temperature_c: 1 }] },
      { ...valid, hourly: [{ hour: 1.5, temperature_c: 1 }] },
      { ...valid, extra: true },
      { city: 'Paris' },
      [],
      'text',
      null,
    ];
    for (const answer of answers) {
      const expected = runtime(answer) ? undefined : `the JSON does not match the schema: ${runtime.errors?.[0]?.instancePath || '/'} ${runtime.errors?.[0]?.message ?? ''}`.trim();
      expect(schemaProblem(JSON.stringify(answer))?.message, JSON.stringify(answer)).toBe(expected);
    }
    expect(schemaProblem(JSON.stringify({ ...valid, conditions: 'fog' }))?.message).toBe('the JSON does not match the schema: /conditions must be equal to one of the allowed values');
    expect(schemaProblem('{"city":')?.message).toBe('the content is not JSON');
  });
});
