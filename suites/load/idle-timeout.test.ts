import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

// autocannon never resets its timeout while data flows; iari's timeout is an idle timeout.
// The timeout is 8 gaps long and the silence 2 timeouts long, so a loaded machine's scheduling
// delays (the suite runs beside others on two cores) cannot turn a gap into a timeout.
// Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
// check the same events, token counts and stamps).
describe('the timeout is an idle timeout, reset on every byte', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 50, itlMs: 100, tokensPerChunk: 1, completionTokens: 25 });
  });
  afterAll(() => mock.close());

  for (const engine of ['autocannon', 'undici'] as const) {
    it(`${engine}: a 2.5 s stream with 100 ms gaps survives an 800 ms timeout, and a 1.6 s silence fails as a timeout`, async () => {
      // The two runs at once: the silent one is over while the flowing one streams.
      const [flowing, silent] = await Promise.all([
        runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine }, { checkIn: 'in-process', durationS: null, requests: 2, timeoutMs: 800, prime: false })),
        runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine }, { checkIn: 'in-process', durationS: null, requests: 2, timeoutMs: 800, prime: false, extraHeaders: () => ({ 'x-iari-ttft-ms': '1600' }) })),
      ]);
      expect(flowing.result.counts.ok).toBe(2);
      expect(flowing.result.metrics.e2e!.percentiles.p50).toBeGreaterThan(2_000_000);
      expect(silent.result.counts.failed).toBe(2);
      expect(silent.result.errors.byClass.timeout).toBe(2);
    });
  }
});
