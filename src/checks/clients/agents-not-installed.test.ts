import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runChecksInProcess } from '../runner/run-catalog.ts';
import { restartClientProcess } from './client-process.ts';
import { agentsClientChecks } from '../areas/clients-agents.ts';

// The Agents SDK is an optional dependency (docs/clients.md): `npm install --omit=optional` leaves
// it out, and its operations must then be skipped with the install line, never fail.

let mock: MockServer;
beforeAll(async () => {
  // The libraries run in iari's client process: it is started with the package unresolvable there, as a missing one is.
  restartClientProcess({ hide: ['@openai/agents'] });
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(async () => {
  restartClientProcess();
  await mock.close();
});

describe('the Agents SDK not installed', () => {
  it('CLIENT-RESP-009, CLIENT-RESP-010 are skipped with the npm install line when @openai/agents cannot be imported', async () => {
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false });
    const { outcomes } = await runChecksInProcess(ctx, agentsClientChecks);
    expect([...outcomes.values()].map((o) => `${o.id} ${o.verdict} ${o.verdict === 'skipped' ? o.reason : ''}`)).toEqual(['CLIENT-RESP-009', 'CLIENT-RESP-010'].map((id) => `${id} skipped Agents SDK is not installed (npm install @openai/agents)`));
  }, 120_000);
});
