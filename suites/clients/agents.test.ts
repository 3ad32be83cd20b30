import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import type { CheckOutcome } from '../../src/checks/context/check-types.ts';
import { agentsClientChecks } from '../../src/checks/areas/clients-agents.ts';

// The Agents SDK on the Responses API (CLIENT-RESP-009/010) run for real against the bundled mock:
// the faithful mock and the legal profiles pass, and the faults that break this client's loop fail
// it with the SDK's own words. The fault matrix runs them under every fault (client-impact.ts).

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
    return (await runChecksInProcess(ctx, agentsClientChecks)).outcomes;
  } finally {
    await ctx.close();
  }
}

const said = (o: CheckOutcome | undefined): string => (o === undefined ? 'absent' : o.verdict === 'skipped' ? `skipped ${o.reason}` : o.verdict === 'fail' || o.verdict === 'non-strict' ? `${o.verdict} ${o.failures[0]?.message ?? ''}` : o.verdict);
const all = ['CLIENT-RESP-009', 'CLIENT-RESP-010'];

describe('the Agents SDK on the Responses API', () => {
  it('CLIENT-RESP-009, CLIENT-RESP-010: an agent with one tool runs to its end on the faithful mock and on the stateless and data-only legal profiles', async () => {
    for (const fault of [undefined, 'legal-responses-stateless', 'legal-responses-data-only']) {
      const o = await run(fault === undefined ? {} : { fault });
      expect(all.map((id) => `${fault ?? 'faithful'} ${id} ${said(o.get(id))}`)).toEqual(all.map((id) => `${fault ?? 'faithful'} ${id} pass`));
    }
  }, 60_000);

  it('CLIENT-RESP-009, CLIENT-RESP-010: the loop resends the output items as they came, so a server refusing them fails both with BadRequestError', async () => {
    const o = await run({ fault: 'responses-replayed-items-rejected' });
    for (const id of all) expect(said(o.get(id))).toMatch(/^fail Agents SDK run\(agent.*threw BadRequestError: 400 /);
  }, 60_000);

  it('CLIENT-RESP-010: a stream without a terminal event, or one whose terminal response holds no output, fails the streamed run only', async () => {
    const none = await run({ fault: 'responses-stream-no-terminal' });
    expect(none.get('CLIENT-RESP-009')?.verdict).toBe('pass');
    expect(said(none.get('CLIENT-RESP-010'))).toMatch(/threw ModelBehaviorError: Model did not produce a final response!/);
    const empty = await run({ fault: 'responses-stream-completed-output-empty' });
    expect(said(empty.get('CLIENT-RESP-010'))).toMatch(/^fail .*the agent ran 4 turns and called its tool 0 times/);
  }, 60_000);

  it('CLIENT-RESP-010: the streamed agent survives what breaks openai-node\'s responses.stream() (vendor events, no response.created)', async () => {
    for (const fault of ['responses-stream-vendor-event', 'responses-stream-no-created']) expect(said((await run({ fault })).get('CLIENT-RESP-010'))).toBe('pass');
  }, 60_000);
});
