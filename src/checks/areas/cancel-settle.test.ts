/**
 * Issue 37 item 6: CANCEL-004 read the bill once, right after the stop bound. A server that goes on
 * decoding after the client left and bills the whole answer when that generation ends (mock fault
 * cancel-billed-late, about 2.6 s after the cut) passed. The bill is now read again once the account
 * settles (the release seen in GET /metrics, then one more read).
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
  mock = await startMockServer({ port: 0, ttftMs: 0, itlMs: 0, jitterMs: 0, limits: false });
});
afterAll(() => mock.close());

async function midStream(fault?: string): Promise<CheckOutcome | undefined> {
  const def = cancelChecks.find((c) => c.name === 'cancel-mid-stream');
  if (def === undefined) throw new Error('no cancel-mid-stream check');
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'bundled-mock', includeLimits: false, ...(fault === undefined ? {} : { fault }) });
  try {
    return (await runCheck(def, ctx, gradeOf)).find((o) => o.id === 'CANCEL-004');
  } finally {
    await ctx.close();
  }
}

describe('CANCEL-004 reads the bill once the account settles', () => {
  it('CANCEL-004: a server that bills the abandoned generation when it ends, ~2.6 s after the cut, fails', async () => {
    const o = await midStream('cancel-billed-late');
    expect(o?.verdict, JSON.stringify(o)).toBe('fail');
    expect(o?.verdict === 'fail' ? o.failures[0]?.message : '').toMatch(/was billed \d+ tokens \(tokens_this_month\), more than it and the probes after it made/);
  }, 30_000);

  it('CANCEL-004: the faithful mock still passes, the settle read adding no wait once its release is seen', async () => {
    const t0 = performance.now();
    const o = await midStream();
    expect(o?.verdict, JSON.stringify(o)).toBe('pass');
    expect(performance.now() - t0).toBeLessThan(15_000);
  }, 30_000);
});
