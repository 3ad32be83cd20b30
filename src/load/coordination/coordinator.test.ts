import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { COORDINATION_PATHS } from './coordination-messages.ts';
import { startCoordinator, type Coordinator } from './coordinator.ts';

const TOKEN = 'run-token-for-tests-0123';
let c: Coordinator | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function call(path: string, body?: unknown, token = TOKEN): Promise<{ status: number; json: any; text: string }> {
  const res = await request(`${c!.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }), headersTimeout: 5000, bodyTimeout: 5000 });
  const text = await res.body.text();
  return { status: res.statusCode, json: JSON.parse(text), text };
}
const register = (shard: number, count = 3, host = `h${shard}`) => call(COORDINATION_PATHS.register, { shard, count, host });
const beat = (shard: number, extra: object = {}) => call(COORDINATION_PATHS.heartbeat, { shard, started: 1, finished: 1, failed: 0, slices: [], ...extra });

describe('the coordinator', () => {
  it('wants the run token on every route and never echoes what it was given', async () => {
    c = await startCoordinator({ count: 1, token: TOKEN, registerTimeoutMs: 5000 });
    for (const bad of ['wrong-token-xyz', `${TOKEN}x`, '']) {
      const r = await call(COORDINATION_PATHS.time, undefined, bad);
      expect(r.status).toBe(401);
      expect(r.text).not.toContain(TOKEN);
      if (bad !== '') expect(r.text).not.toContain(bad);
    }
    expect((await call(COORDINATION_PATHS.time)).status).toBe(200);
  });

  it('a shard that never registers fails the run closed, named, and the waiting shards hear it', async () => {
    c = await startCoordinator({ count: 3, token: TOKEN, registerTimeoutMs: 400 });
    expect((await register(0)).status).toBe(200);
    expect((await register(1)).status).toBe(200);
    const started = Date.now();
    const wait = await call(`${COORDINATION_PATHS.start}?shard=0`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(wait.status).toBe(503);
    expect(wait.json.error.message).toMatch(/shard 2\/3 never registered within 0\.4 s/);
    const outcome = await c.done;
    expect(outcome).toMatchObject({ kind: 'unregistered', missing: [2] });
  });

  it('refuses a count that disagrees, a shard index taken by another host, and bodies over their bound', async () => {
    c = await startCoordinator({ count: 3, token: TOKEN, registerTimeoutMs: 5000 });
    expect((await register(0, 4)).status).toBe(409);
    expect((await register(0, 3, 'a')).status).toBe(200);
    expect((await register(0, 3, 'a')).status).toBe(200);
    expect((await register(0, 3, 'b')).json.error.code).toBe('shard_taken');
    expect((await register(3)).status).toBe(400);
    expect((await call(COORDINATION_PATHS.register, 'x'.repeat(70 * 1024)).catch(() => ({ status: 413 }))).status).toBe(413);
  });

  it('gives every shard one start instant ahead of the last registration, then a silent shard stops the run within its heartbeat timeout', async () => {
    c = await startCoordinator({ count: 2, token: TOKEN, registerTimeoutMs: 5000, heartbeatTimeoutMs: 300, leadMs: 200 });
    await register(0, 2);
    const waiting = call(`${COORDINATION_PATHS.start}?shard=0`);
    const before = Date.now();
    await register(1, 2);
    const [a, b] = [await waiting, await call(`${COORDINATION_PATHS.start}?shard=1`)];
    expect(a.json.t0Ms).toBe(b.json.t0Ms);
    expect(a.json.t0Ms).toBeGreaterThanOrEqual(before + 150);
    // Shard 0 beats; shard 1 never does.
    let stop: any = null;
    const until = Date.now() + 3000;
    while (stop === null && Date.now() < until) {
      stop = (await beat(0)).json.stop;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stop).toMatchObject({ shard: 1, cause: 'died' });
    expect(stop.detail).toMatch(/shard 1\/2 \(h1\) sent no heartbeat/);
    // Seen within the heartbeat timeout after the start (plus the watchdog's period and this loop's).
    expect(stop.atMs - a.json.t0Ms).toBeLessThan(300 + 200);
  });

  it('a shard breaching an abort SLO stops the run, named with the SLO', async () => {
    c = await startCoordinator({ count: 2, token: TOKEN, registerTimeoutMs: 5000, leadMs: 10 });
    await register(0, 2);
    await register(1, 2);
    await call(`${COORDINATION_PATHS.start}?shard=0`);
    expect((await beat(0)).json.stop).toBeNull();
    const r = await beat(1, { abort: { slo: 'errors.rate<=5%', detail: '30 of 40 finished requests failed (75.0%)' } });
    expect(r.json.stop).toMatchObject({ shard: 1, cause: 'abort_slo' });
    expect((await beat(0)).json.stop.detail).toMatch(/shard 1\/2 breached the abort SLO errors.rate<=5%: 30 of 40/);
  });
});
