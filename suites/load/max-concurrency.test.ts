import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

/**
 * An open loop with --max-concurrency: the cap holds (the mock never sees more streams at once),
 * arrivals wait for a slot, and the wait shows as schedule lag while latency still counts from the
 * intended time; the same schedule without a cap shows no such lag.
 * Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
 * check the same events, token counts and stamps).
 */
describe('open loop capped by --max-concurrency', () => {
  let mock: MockServer;
  beforeAll(async () => {
    // Each answer takes about 100 + 5 x 10 ms: 2 slots serve about 13/s, under the 20/s asked.
    mock = await startLoadMock({ ttftMs: 100, itlMs: 10, completionTokens: 6 });
  });
  afterAll(() => mock.close());

  it('LOAD-ARRIVAL: at most N requests are in flight, the mode says it is capped, and the wait is schedule lag counted in e2e', async () => {
    const records: RequestRecord[] = [];
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, mock.admin.activeStreams())), 5);
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 20, arrival: 'constant', maxConcurrency: 2 }, { checkIn: 'in-process', durationS: 2, onRecord: (r) => records.push(r) }));
    clearInterval(timer);
    expect(result.meta.mode).toMatchObject({ kind: 'open', rate: 20, maxConcurrency: 2 });
    expect(peak).toBeLessThanOrEqual(2);
    const measured = records.filter((r) => r.phase === 'measure' && r.error === null);
    // Fewer arrivals were sent than were due: the cap held them back.
    expect(result.counts.started).toBeLessThan(40);
    const lag = measured.map((r) => r.sentUs - r.intendedUs).sort((a, b) => a - b);
    // The queue grows by about 7 arrivals a second: by the end, arrivals wait hundreds of ms.
    expect(lag.at(-1)!).toBeGreaterThan(300_000);
    expect(result.metrics.schedule_lag!.percentiles.p99).toBeGreaterThan(300_000);
    // Latency from the intended time includes the wait.
    for (const r of measured) expect(r.e2eUs!).toBeGreaterThanOrEqual(r.sentUs - r.intendedUs);

    const free: RequestRecord[] = [];
    const { result: uncapped } = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 20, arrival: 'constant' }, { checkIn: 'in-process', durationS: 2, onRecord: (r) => free.push(r) }));
    expect(uncapped.meta.mode).not.toHaveProperty('maxConcurrency');
    expect(uncapped.counts.started).toBe(40);
    expect(uncapped.metrics.schedule_lag!.percentiles.p50).toBeLessThan(50_000);
  }, 60_000);
});
