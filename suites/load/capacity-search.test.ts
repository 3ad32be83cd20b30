import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runCapacitySearch } from '../../src/load/search/capacity-search.ts';
import { runLoadConfig, type LoadConfig } from '../../src/load/run-load.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

/**
 * The mock with a known service capacity (--capacity 4: four requests in service at once, the rest
 * queue and their TTFT grows): the search finds 4 streams in a closed loop, and 4 / service time
 * requests per second in an open loop, within the 5% tolerance.
 *
 * Each search starts one doubling below the capacity (closed loop 3, open loop 16 against a truth
 * near 18/s), so the bracket takes one step up. Responses are checked in-process (no check worker
 * to start per level: fidelity.test.ts shows both check the same).
 */
describe('iari load --find-capacity against the mock with a known capacity', () => {
  let mock: MockServer;
  const slos = ['ttft.p95<100ms'];
  const steps: string[] = [];
  const over = (durationS: number): Partial<LoadConfig> => ({ durationS, checkIn: 'in-process', slos: parseSlos(slos), sloExprs: slos });
  const onStep = (s: { level: number; ttftP95Us: number | null; slosMet: boolean; errorRate: number }): void => {
    steps.push(`${s.level}: ttft p95 ${s.ttftP95Us} ${s.slosMet ? 'met' : 'breached'} ${s.errorRate}`);
  };
  beforeAll(async () => {
    // Fixed lengths and no jitter: every request holds its slot for the same service time.
    mock = await startLoadMock({ ttftMs: 40, itlMs: 8, tokensPerChunk: 1, completionTokens: 24, capacity: 4 });
    // A short run first, not judged: the first requests of a process (JIT, first connections) are
    // slower than the SLO, which would cost the search two extra runs at its first level.
    await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 8, arrival: 'constant' }, { durationS: 0.5, checkIn: 'in-process' }));
  });
  afterAll(() => mock.close());

  it('LOAD-CAPACITY: a closed loop finds the 4 streams the mock serves at once', async () => {
    const cfg = loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'autocannon' }, over(1));
    const { result } = await runCapacitySearch(cfg, { levelBoundS: 10, onStep });
    expect(result.sweep?.capacity, steps.join('\n')).toMatchObject({ capacity: 4, breaking: 5, converged: true });
    expect(result.meta.mode).toMatchObject({ kind: 'closed', concurrency: 4 });
  }, 200_000);

  it('LOAD-CAPACITY: an open loop finds 4 / service time requests per second within the 5% tolerance', async () => {
    const cfg = loadConfig(mock, { kind: 'open', rate: 16, arrival: 'constant' }, over(2));
    const { result } = await runCapacitySearch(cfg, { levelBoundS: 10, onStep });
    const serviceMs = mock.core.state.serviceSlots?.meanServiceMs() ?? 0;
    const truth = (4 * 1000) / serviceMs;
    const c = result.sweep?.capacity;
    expect(c?.converged, steps.join('\n')).toBe(true);
    expect(c?.relativeWidth).toBeLessThanOrEqual(0.05);
    expect(Math.abs((c?.capacity ?? 0) - truth) / truth).toBeLessThanOrEqual(0.05);
  }, 300_000);
});
