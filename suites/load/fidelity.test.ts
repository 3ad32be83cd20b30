import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { compareWithSendLog } from '../../test-support/load-fidelity.ts';
import type { RequestTiming } from '../../src/load/measure/request-timer.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { errorDistribution } from '../../test-support/load-stats.ts';
import { loadConfig, sendLogLookup, startLoadMock } from './load-fixtures.ts';

// Full sizes (64 and 256 streams, 1 ms target) are in scripts/bench-load.ts; this is the CI-sized proof.
describe('timing fidelity against the mock send log', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock();
    // Throwaway run: lazy module compilation and JIT would otherwise land in the first stamps.
    await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'undici' }, { durationS: 0.3 }));
    await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'autocannon' }, { durationS: 0.3 }));
  });
  afterAll(() => mock.close());

  for (const engine of ['autocannon', 'undici'] as const) {
    it(`${engine}: per-request TTFT and per-token ITL match the mock's true write times, with every chunk's token count right`, async () => {
      const timings: RequestTiming[] = [];
      const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 16, engine }, { durationS: 1.2, onTiming: (t) => timings.push(t) }));
      expect(result.counts.failed).toBe(0);
      const f = compareWithSendLog(timings, sendLogLookup(mock));
      expect(f.matched).toBeGreaterThan(20);
      expect(f.missing).toBe(0);
      expect(f.tokenMismatches).toBe(0);
      const ttft = errorDistribution(f.ttftErrorsUs);
      const itl = errorDistribution(f.itlErrorsUs);
      // A stamp can never precede the write it observes.
      expect(ttft.p1Us).toBeGreaterThanOrEqual(0);
      // Median bound only: on a shared 2-core box the tail is scheduler noise (the run's
      // event-loop lag says so); scripts/bench-load.ts reports the whole distribution.
      expect(ttft.p50AbsUs).toBeLessThan(5_000);
      expect(itl.p50AbsUs).toBeLessThan(5_000);
      expect(itl.n).toBe(timings.reduce((a, t) => a + t.outputTokens - (t.tokenEvents[0]?.tokens ?? 0), 0));
    });
  }

  it('checks every stream in-process just as on the check worker: same events, token counts and stamps (checkIn: in-process)', async () => {
    const timings: RequestTiming[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 8, engine: 'autocannon' }, { durationS: 0.8, checkIn: 'in-process', onTiming: (t) => timings.push(t) }));
    expect(result.counts.failed).toBe(0);
    expect(result.counts.events).toBeGreaterThan(0);
    const f = compareWithSendLog(timings, sendLogLookup(mock));
    expect(f.matched).toBeGreaterThan(8);
    expect(f.missing).toBe(0);
    expect(f.tokenMismatches).toBe(0);
    expect(errorDistribution(f.ttftErrorsUs).p1Us).toBeGreaterThanOrEqual(0);
    expect(errorDistribution(f.itlErrorsUs).n).toBe(timings.reduce((a, t) => a + t.outputTokens - (t.tokenEvents[0]?.tokens ?? 0), 0));
  });

  it('counts a 2-token chunk as two ITL samples of half the gap', async () => {
    const timings: RequestTiming[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, { durationS: 0.5, onTiming: (t) => timings.push(t) }));
    const itl = result.metrics.itl;
    expect(itl).toBeDefined();
    // Mock: 10 ms between chunks, chunks alternate 1 and 2 tokens: per-token gaps are 10 ms and 5 ms.
    const fives = timings.flatMap((t) => t.tokenEvents.slice(1).filter((e) => e.tokens === 2)).length;
    expect(fives).toBeGreaterThan(0);
    expect(itl!.percentiles.p50).toBeGreaterThan(4_000);
    expect(itl!.percentiles.p50).toBeLessThan(7_000);
    expect(itl!.percentiles.p90).toBeGreaterThan(9_000);
  });
});
