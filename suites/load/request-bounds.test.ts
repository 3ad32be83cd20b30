import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';
import { slowdown } from './machine-slowdown.ts';

// Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
// check the same events, token counts and stamps).
describe('runs are bounded in count and time', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 10, itlMs: 2, completionTokens: 6 });
  });
  afterAll(() => mock.close());

  for (const engine of ['autocannon', 'undici'] as const) {
    it(`${engine}: --requests 10 sends exactly 10 requests to the server and measures all of them`, async () => {
      const before = mock.sendLog.size;
      const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine }, { checkIn: 'in-process', durationS: null, requests: 10, prime: false }));
      expect(result.counts.started).toBe(10);
      expect(result.counts.ok).toBe(10);
      expect(mock.sendLog.size - before).toBe(10);
    });
  }

  it('a --duration run stops issuing at the deadline and lets the last streams finish', async () => {
    const bound = 3000 * slowdown();
    const t0 = Date.now();
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'autocannon' }, { checkIn: 'in-process', durationS: 0.5, prime: false }));
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(500);
    expect(elapsed).toBeLessThan(bound);
    expect(result.counts.abortedAtEnd).toBe(0);
    expect(result.counts.finished).toBe(result.counts.started);
  });
});
