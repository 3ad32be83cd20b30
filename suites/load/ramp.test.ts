import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

describe('--ramp against the mock (its request log is the ground truth)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 2, completionTokens: 3, tokensPerChunk: 1 });
  });
  afterAll(() => mock.close());

  it('LOAD-RAMP: a 40/s constant run ramped linearly over 2 s reaches the mock where the ramp puts each arrival: the k-th at sqrt(2Dk/R), then every 1/R', async () => {
    const records: RequestRecord[] = [];
    let startNs = 0n;
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'open', rate: 40, arrival: 'constant', ramp: { durationS: 2, shape: 'linear' } }, { durationS: 3, onStart: (ns) => (startNs = ns), onRecord: (r) => records.push(r) }),
    );
    // 40 arrivals in the 2 s ramp (half of 80), then 40 in the last second.
    expect(result.counts.started).toBe(80);
    expect(result.meta.mode).toMatchObject({ kind: 'open', ramp: { durationS: 2, shape: 'linear' } });
    const expected = (k: number): number => (k < 40 ? Math.sqrt((2 * 2 * k) / 40) : 2 + (k - 40) / 40);
    const atMock: number[] = [];
    const late = records.map((r) => {
      expect(Math.abs(r.intendedUs / 1e6 - expected(r.seq))).toBeLessThan(2e-6);
      const atS = Number(mock.sendLog.get(r.requestId ?? '')!.receivedNs - startNs) / 1e9;
      expect(atS).toBeGreaterThanOrEqual(expected(r.seq));
      atMock.push(atS);
      return (atS - expected(r.seq)) * 1000;
    });
    late.sort((a, b) => a - b);
    if (!result.validity.valid) {
      // A starved client (shared CPU) sends late; the run must then say so instead of passing as honest.
      expect(result.validity.warnings.join(' ')).toMatch(/event-loop lag|schedule lag/);
      return;
    }
    expect(late[Math.floor(late.length / 2)]).toBeLessThan(2);
    // Arrivals per half second on the mock's clock follow the ramp's rate (10, 30, 50, 70 a second), then 40/s.
    const bins = [0, 0, 0, 0, 0, 0];
    for (const t of atMock) bins[Math.min(5, Math.floor(t * 2))]! += 1;
    expect(bins).toEqual([3, 7, 13, 17, 20, 20]);
  }, 60_000);
});
