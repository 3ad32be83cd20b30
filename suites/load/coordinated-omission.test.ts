import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { now } from '../../src/load/executors/engine.ts';
import { decodeHistogram } from '../../src/load/results/hdr.ts';
import { analyticLatenciesUs, writeOffsetsS, type Freeze } from '../../test-support/freeze-model.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { percentile } from '../../test-support/load-stats.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

describe('coordinated omission: latency from the intended send time', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: 5, tokensPerChunk: 1, completionTokens: 4 });
  });
  afterAll(() => mock.close());

  it('a 2 s freeze of the mock during a fixed-rate open-loop run shows in the p90-p99 latencies at their analytic values (within 5%)', async () => {
    const records: RequestRecord[] = [];
    let frozeAtS = NaN;
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'open', rate: 10, arrival: 'constant' }, {
        durationS: 3,
        onRecord: (r) => records.push(r),
        onStart: (startNs) => {
          setTimeout(() => {
            frozeAtS = Number(now() - startNs) / 1e9;
            mock.core.admin.freeze(2000);
          }, Number(startNs - now()) / 1e6 + 500);
        },
      }),
    );
    expect(frozeAtS).toBeGreaterThan(0.45);
    const freeze: Freeze = { startS: frozeAtS, freezeS: 2 };
    expect(result.counts.failed).toBe(0);
    expect(result.counts.finished).toBe(30);
    expect(result.meta.latencyOrigin).toBe('intended');
    const offsets = writeOffsetsS(20, 5, 4);
    const analyticAt = (base: number): number[] => analyticLatenciesUs(records.map((r) => r.intendedUs / 1e6), base, freeze, offsets);
    // Base service time S: the median e2e of the requests the freeze did not touch.
    const untouched = records.filter((r, i) => analyticAt(0)[i] === 0);
    expect(untouched.length).toBeGreaterThan(5);
    const analytic = analyticAt(percentile(untouched.map((r) => r.e2eUs ?? 0), 50));
    const e2e = decodeHistogram(result.metrics.e2e!.hdr);
    // p90 and above sit deep in the stall (the bench also reports p50 and p75).
    for (const p of [90, 95, 99]) {
      const want = percentile(analytic, p);
      const got = e2e.getValueAtPercentile(p);
      expect(Math.abs(got - want) / want, `p${p}: reported ${got} µs, analytic ${want} µs`).toBeLessThan(0.05);
    }
    // Requests kept leaving on schedule while the server was frozen.
    expect(result.counts.started).toBe(30);
  });
});
