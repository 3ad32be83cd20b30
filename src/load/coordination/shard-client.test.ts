import { afterEach, describe, expect, it } from 'vitest';
import type { Collector } from '../results/collector.ts';
import { parseSlos } from '../results/slo.ts';
import { systemTime } from './clock.ts';
import { startCoordinator, type Coordinator } from './coordinator.ts';
import { shardClient, type ShardClient } from './shard-client.ts';

const TOKEN = 'run-token-for-shard-tests';
let c: Coordinator | undefined;
let s: ShardClient | undefined;
afterEach(async () => {
  s?.close();
  await c?.close();
  c = s = undefined;
});

const fakeCollector = (finished: number, failed: number): Collector => ({ started: finished, finished, failed, timeslices: () => [] }) as unknown as Collector;

async function joined(slos: string[], shift = 0): Promise<{ client: ShardClient; start: { startNs: bigint; startEpochMs: number } }> {
  c = await startCoordinator({ count: 1, token: TOKEN, registerTimeoutMs: 5000, leadMs: 50 });
  s = shardClient({ url: c.url, token: TOKEN, shard: { index: 0, count: 1 }, registerTimeoutMs: 5000, time: () => systemTime() + shift, injectedMs: shift, slos: parseSlos(slos), endsWithinMs: 60_000 });
  return { client: s, start: await s.gate() };
}

describe('a shard of a coordinated run', () => {
  it('measures its clock offset as an interval holding the truth, and starts at t0 on the coordinator\'s clock', async () => {
    const { client, start } = await joined([], 200);
    const r = client.record();
    expect(r.offsetStartMs!.low).toBeLessThanOrEqual(-200);
    expect(r.offsetStartMs!.high).toBeGreaterThanOrEqual(-200);
    expect(start.startEpochMs).toBeCloseTo(r.t0Ms + r.lateMs, 3);
    expect(r.coordinator).not.toContain(TOKEN);
  });

  it('breaching its error-rate SLO (after 20 finished requests) stops the run through the coordinator; under it, nothing stops', async () => {
    const { client } = await joined(['ttft.p99<1ms']);
    client.observe(fakeCollector(40, 2));
    await new Promise((r) => setTimeout(r, 700));
    expect(client.signal.aborted).toBe(false);
    // The default gate (errors.rate<=5%) aborts: a latency SLO never does mid-run.
    client.observe(fakeCollector(40, 30));
    const until = Date.now() + 3000;
    while (!client.signal.aborted && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(client.signal.aborted).toBe(true);
    expect(client.stop()).toMatchObject({ shard: 0, cause: 'abort_slo' });
    expect(client.stop()!.detail).toMatch(/errors\.rate<=5%: 30 of 40 finished requests failed \(75\.0%\)/);
  });

  it('a wrong run token fails the shard at once, closed, and the error holds no token', async () => {
    c = await startCoordinator({ count: 1, token: TOKEN, registerTimeoutMs: 5000 });
    s = shardClient({ url: c.url, token: 'not-the-run-token-123', shard: { index: 0, count: 1 }, registerTimeoutMs: 5000, time: systemTime, injectedMs: 0, slos: [], endsWithinMs: 1000 });
    const e = await s.gate().then(() => null, (x: unknown) => x as Error);
    expect(e?.message).toMatch(/shard 0\/1: the coordinator's clock answered 401/);
    expect(e?.message).not.toContain('not-the-run-token-123');
  });
});
