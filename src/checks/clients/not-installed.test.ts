import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runChecksInProcess } from '../runner/run-catalog.ts';
import { restartClientProcess } from './client-process.ts';
import { langchainClientChecks } from '../areas/clients-langchain.ts';
import { langchainRateLimitCheck } from '../areas/clients-rate-limit.ts';

// LangChain is an optional dependency (docs/clients.md, Cost): `npm install --omit=optional`
// leaves it out, and its operations must then be skipped with the install line, never fail.

let mock: MockServer;
beforeAll(async () => {
  // The libraries run in iari's client process: it is started with the package unresolvable there, as a missing one is.
  restartClientProcess({ hide: ['@langchain/openai'] });
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(async () => {
  restartClientProcess();
  await mock.close();
});

describe('a client library that is not installed', () => {
  it('CLIENT-018 to CLIENT-025 are skipped with the npm install line when @langchain/openai cannot be imported', async () => {
    const capped = mock.tokens.byAccount['acct_capped'];
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(capped === undefined ? {} : { limitTokens: { capped } }) });
    const { outcomes } = await runChecksInProcess(ctx, [...langchainClientChecks, langchainRateLimitCheck]);
    expect(outcomes.size).toBe(8);
    for (const o of outcomes.values()) {
      expect(o.verdict, o.id).toBe('skipped');
      if (o.verdict === 'skipped') expect(o.reason).toBe('LangChain is not installed (npm install @langchain/openai @langchain/core)');
    }
  }, 120_000);
});
