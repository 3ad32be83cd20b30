import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { decodeHistogram } from '../../src/load/hdr.ts';
import { analyticLatenciesUs, freezeHeaders, type Freeze } from '../../src/load/freeze-model.ts';
import type { RequestRecord } from '../../src/load/load-result.ts';
import { runLoad } from '../../src/load/run-load.ts';
import { percentile } from '../../src/load/stats.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

describe('coordinated omission: latency from the intended send time', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: 5, tokensPerChunk: 1, completionTokens: 4 });
  });
  afterAll(() => mock.close());

  it('a 2 s server stall during a fixed-rate open-loop run shows in the percentiles at its analytic values (within 5%)', async () => {
    const freeze: Freeze = { startS: 0.5, freezeS: 2 };
    const records: RequestRecord[] = [];
    const { result } = await runLoad(
      loadConfig(mock, { kind: 'open', rate: 10, arrival: 'constant' }, { durationS: 3, extraHeaders: freezeHeaders(freeze, 20), onRecord: (r) => records.push(r) }),
    );
    expect(result.counts.failed).toBe(0);
    expect(result.counts.finished).toBe(30);
    expect(result.meta.latencyOrigin).toBe('intended');
    // Base service time S: the median e2e of requests outside the stall.
    const outside = records.filter((r) => r.intendedUs / 1e6 < freeze.startS || r.intendedUs / 1e6 >= freeze.startS + freeze.freezeS);
    const baseUs = percentile(outside.map((r) => r.e2eUs ?? 0), 50);
    const analytic = analyticLatenciesUs(records.map((r) => r.intendedUs / 1e6), baseUs, freeze);
    const e2e = decodeHistogram(result.metrics.e2e!.hdr);
    for (const p of [75, 90, 95, 99]) {
      const want = percentile(analytic, p);
      const got = e2e.getValueAtPercentile(p);
      expect(Math.abs(got - want) / want, `p${p}: reported ${got} µs, analytic ${want} µs`).toBeLessThan(0.05);
    }
    // The requests kept leaving on schedule while the server stalled.
    expect(result.metrics.schedule_lag!.percentiles.p99).toBeLessThan(50_000);
  });
});
