import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import type { CheckOutcome } from '../../src/checks/context/check-types.ts';
import { openaiResponsesClientChecks } from '../../src/checks/areas/clients-openai-responses.ts';

// openai-node on the Responses API (CLIENT-RESP) run for real against the bundled mock: the faithful
// mock passes, a chat-only server leaves them to the responses capability, a stateless one (a legal
// profile) passes them, and a fault breaks what it breaks for this client. The fault matrix runs
// them under every fault (mock-server/core/client-impact.ts).

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(async () => {
  await mock?.close();
});

async function run(extra: Partial<RunSettings> = {}): Promise<Map<string, CheckOutcome>> {
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...extra });
  try {
    return (await runChecksInProcess(ctx, openaiResponsesClientChecks)).outcomes;
  } finally {
    await ctx.close();
  }
}

const said = (o: CheckOutcome | undefined): string => (o === undefined ? 'absent' : o.verdict === 'skipped' ? `skipped ${o.reason}` : o.verdict === 'fail' || o.verdict === 'non-strict' ? `${o.verdict} ${o.failures[0]?.message ?? ''}` : o.verdict);
const all = ['CLIENT-RESP-001', 'CLIENT-RESP-002', 'CLIENT-RESP-003', 'CLIENT-RESP-004'];

describe('openai-node on the Responses API', () => {
  it('CLIENT-RESP-001, CLIENT-RESP-002, CLIENT-RESP-003, CLIENT-RESP-004: every operation passes on the faithful mock and on the stateless legal profile', async () => {
    for (const fault of [undefined, 'legal-responses-stateless', 'legal-responses-data-only']) {
      const o = await run(fault === undefined ? {} : { fault });
      expect(all.map((id) => `${fault ?? 'faithful'} ${id} ${said(o.get(id))}`)).toEqual(all.map((id) => `${fault ?? 'faithful'} ${id} pass`));
    }
  }, 60_000);

  it('CLIENT-RESP-001, CLIENT-RESP-002, CLIENT-RESP-003, CLIENT-RESP-004: a server without POST /v1/responses skips them as the responses capability\'s, and --expect responses fails each', async () => {
    const plain = await run({ fault: 'responses-missing' });
    for (const id of all) expect(said(plain.get(id))).toMatch(/^skipped capability responses not offered: the server does not serve POST \/v1\/responses .*--expect responses makes this fail/);
    const expected = await run({ fault: 'responses-missing', expect: ['responses'] });
    for (const id of all) expect(said(expected.get(id))).toMatch(/^fail .*--expect responses: the server does not serve POST \/v1\/responses/);
  }, 60_000);

  it('CLIENT-RESP-002, CLIENT-RESP-003: a vendor event type breaks responses.stream() only, and the client\'s own words are the evidence', async () => {
    const o = await run({ fault: 'responses-stream-vendor-event' });
    expect(o.get('CLIENT-RESP-002')?.verdict).toBe('pass');
    expect(said(o.get('CLIENT-RESP-003'))).toMatch(/^fail openai-node client\.responses\.stream\(\) threw OpenAIError: Unhandled response stream event/);
  }, 60_000);

  it('CLIENT-RESP-004: the round trip sends the output items back as they came, so a server refusing replayed items fails it with BadRequestError', async () => {
    const o = await run({ fault: 'responses-replayed-items-rejected' });
    expect(said(o.get('CLIENT-RESP-004'))).toMatch(/^fail .*BadRequestError: 400 /);
    for (const id of ['CLIENT-RESP-001', 'CLIENT-RESP-002', 'CLIENT-RESP-003']) expect(o.get(id)?.verdict).toBe('pass');
  }, 60_000);
});
