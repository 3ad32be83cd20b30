import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { createCheckContext, type RunSettings } from '../context/check-context.ts';
import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { offSlot } from '../context/run-slot.ts';
import { runChecksInProcess } from './run-catalog.ts';

// Issue 37: a check that only waits gives the run's slot up (CANCEL-004's bill settling), so the next
// check runs meanwhile; it takes the slot back before any check not yet started, and no two checks
// ever hold it at once.

let mock: MockServer;
let settings: RunSettings;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, ttftMs: 0, itlMs: 0, jitterMs: 0, limits: false });
  settings = { root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false };
});
afterAll(() => mock.close());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function fake(name: string, id: string, log: string[], holders: { now: number; most: number }, body: (ctx: CheckContext, held: (what: string, ms: number) => Promise<void>) => Promise<void>): CheckDef {
  const held = async (what: string, ms: number): Promise<void> => {
    holders.now++;
    holders.most = Math.max(holders.most, holders.now);
    log.push(`${name} ${what} start`);
    await sleep(ms);
    log.push(`${name} ${what} end`);
    holders.now--;
  };
  return { name, area: 'chat', ids: [id], title: name, async run(ctx, j) {
    await body(ctx, held);
    j.pass(id);
  } };
}

describe('the run slot', () => {
  it('a check that waits off the slot lets the next one run meanwhile, takes the slot back before the check after it, and outcomes keep catalog order', async () => {
    const log: string[] = [];
    const holders = { now: 0, most: 0 };
    const a = fake('a', 'CHAT-001', log, holders, async (ctx, held) => {
      await held('before', 20);
      await offSlot(ctx, () => sleep(150));
      await held('after', 20);
    });
    const b = fake('b', 'CHAT-002', log, holders, (_ctx, held) => held('all', 300));
    const c = fake('c', 'CHAT-003', log, holders, (_ctx, held) => held('all', 20));
    const ctx = createCheckContext(settings);
    try {
      const { runs, outcomes } = await runChecksInProcess(ctx, [a, b, c]);
      expect(log).toEqual(['a before start', 'a before end', 'b all start', 'b all end', 'a after start', 'a after end', 'c all start', 'c all end']);
      expect(holders.most).toBe(1);
      expect(runs.map((r) => r.ids[0])).toEqual(['CHAT-001', 'CHAT-002', 'CHAT-003']);
      expect([...outcomes.values()].map((o) => o.verdict)).toEqual(['pass', 'pass', 'pass']);
    } finally {
      await ctx.close();
    }
  });

  it('outside a runner the wait runs in place', async () => {
    const order: string[] = [];
    await offSlot({}, async () => {
      order.push('wait');
    });
    order.push('after');
    expect(order).toEqual(['wait', 'after']);
  });
});
