// The same client run inside the consumer's own vitest.
import { describe, expect, it } from 'vitest';
import { driveClients, WEATHER_SCHEMA } from './msw-clients.mjs';

describe('iari/msw inside vitest', () => {
  it('serves the openai SDK and the Vercel AI SDK: models, a completion, a stream, a tool round trip, structured output', async () => {
    const r = await driveClients();
    expect(r.models.length).toBeGreaterThan(0);
    expect(r.retrieved).toBe(r.models[0]);
    for (const sdk of [r.openai, r.aiSdk]) {
      expect(sdk.completion.length).toBeGreaterThan(0);
      expect(sdk.stream).toBe(sdk.completion);
      expect(sdk.tool.name).toBe('get_weather');
      expect(typeof sdk.tool.args.city).toBe('string');
      expect(sdk.tool.answer.length).toBeGreaterThan(0);
      expect(Object.keys(sdk.structured).sort()).toEqual([...WEATHER_SCHEMA.required].sort());
    }
  }, 60_000);
});
