import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

// Every stream under load goes through the strict reader and checker, not a sample.
// Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
// check the same events, token counts and stamps).
describe('errors by class under load', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 2, completionTokens: 6 });
  });
  afterAll(() => mock.close());

  const run = (fault: string, engine: 'autocannon' | 'undici' = 'undici') =>
    runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine }, { checkIn: 'in-process', durationS: null, requests: 6, prime: false, extraHeaders: () => ({ 'x-iari-fault': fault }) }));

  it('every stream that breaks the format is a stream_nonconforming error, counted by checker rule', async () => {
    for (const engine of ['autocannon', 'undici'] as const) {
      const { result } = await run('stream-data-after-done', engine);
      expect(result.counts.failed).toBe(6);
      expect(result.errors.byClass.stream_nonconforming).toBe(6);
      expect(Object.values(result.errors.byFinding).reduce((a, b) => a + b, 0)).toBe(6);
      expect(result.metrics.ttft).toBeUndefined();
    }
  });

  it('a stream without [DONE] and one cut mid-stream are errors too, never samples', async () => {
    const noDone = (await run('stream-no-done')).result;
    expect(noDone.errors.byClass.stream_nonconforming).toBe(6);
    const cut = (await run('stream-disconnect')).result;
    expect(cut.counts.failed).toBe(6);
    expect(cut.errors.byClass.reset + cut.errors.byClass.stream_nonconforming).toBe(6);
  });

  it('an HTTP error status is counted by its code', async () => {
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, { checkIn: 'in-process', durationS: null, requests: 4, prime: false, token: 'wrong-token-123456' }));
    expect(result.errors.byClass.http_status).toBe(4);
    expect(result.errors.byStatus).toEqual({ '401': 4 });
    expect(result.errors.examples[0]?.requestId).toMatch(/^req_/);
  });
});
