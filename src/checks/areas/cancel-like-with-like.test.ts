/**
 * Issue 37 item 6: CANCEL-007 without a gauge compared 4 streams at once after the storm against 1
 * alone before it, so a server that serves one request at a time (no batching) was graded
 * non-strict for a slot leak it does not have. Like with like: 4 at once before, 4 at once after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { cancelChecks } from './cancel.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { gradeOf } from '../registry/registry-view.ts';
import type { CheckOutcome } from '../context/check-types.ts';

let mock: MockServer;
beforeAll(async () => {
  // One request in service at a time, and no /metrics: the probes' path.
  mock = await startMockServer({ port: 0, capacity: 1, ttftMs: 60, itlMs: 5, jitterMs: 0, limits: false });
});
afterAll(() => mock.close());

async function noLeak(fault: string): Promise<CheckOutcome | undefined> {
  const def = cancelChecks.find((c) => c.name === 'cancel-no-leak');
  if (def === undefined) throw new Error('no cancel-no-leak check');
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false, fault });
  try {
    return (await runCheck(def, ctx, gradeOf))[0];
  } finally {
    await ctx.close();
  }
}

describe('CANCEL-007 compares like with like', () => {
  it('CANCEL-007: a server without batching (capacity 1, no gauge) that frees every cut slot passes', async () => {
    const o = await noLeak('metrics-missing');
    expect(o?.verdict, JSON.stringify(o)).toBe('pass');
  }, 60_000);

  it('CANCEL-007: the same server leaking the slots of cut streams still does not pass', async () => {
    const o = await noLeak('metrics-missing,cancel-leaks-slot');
    expect(o?.verdict, JSON.stringify(o)).not.toBe('pass');
  }, 60_000);
});
