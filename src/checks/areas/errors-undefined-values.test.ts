/**
 * Issue 31: a server that clamps an out-of-range `days` (and maps a non-numeric one to 30) got
 * ERR-006 non-strict, "a bad query answered 200". The seed says of days: "Type, default, bounds and
 * allowed values: not shown"; a value it does not define cannot be malformed. Only a 5xx is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { errorsChecks } from './errors.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { gradeOf } from '../registry/registry-view.ts';

const check = errorsChecks.find((c) => c.name === 'errors-negative-inputs');

async function err006(fault: string): Promise<unknown> {
  const mock: MockServer = await startMockServer({ faults: [fault], receipts: false, ttftMs: 0, itlMs: 0 });
  try {
    if (check === undefined) throw new Error('no errors-negative-inputs check');
    const outcomes = await runCheck(check, createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false }), gradeOf);
    return outcomes.find((o) => o.id === 'ERR-006');
  } finally {
    await mock.close();
  }
}

describe('ERR-006 judges only what the seed defines', () => {
  it('ERR-006: a server that answers an out-of-range days with 200 (usage-days-unvalidated: clamped, 30 rows) passes', async () => {
    expect(await err006('usage-days-unvalidated')).toEqual({ id: 'ERR-006', verdict: 'pass' });
  }, 60_000);

  it('ERR-006: a client fault answered 500 still breaks it (client-error-as-500)', async () => {
    expect(await err006('client-error-as-500')).toMatchObject({ id: 'ERR-006', verdict: 'non-strict' });
  }, 60_000);
});
