import { afterEach, describe, expect, it } from 'vitest';
import { verifyChain, type Receipt } from '../src/receipts/index.ts';
import { startMockServer, type MockServer } from './index.ts';
import { receiptMutations } from './receipt-fault-mutations.ts';
import type { ReceiptChainView, ReceiptKeysView } from './receipt-hooks.ts';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function chat(server: MockServer, token: string, fault: string): Promise<number> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-iari-fault': fault },
    body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'Tell me about receipts.' }] }),
  });
  await response.text();
  return response.status;
}

/** The finding a mutation names first in its description, e.g. "(SCHEMA_MISSING_FIELD /type)". */
function findingOf(description: string): string | undefined {
  return /\(([A-Z][A-Z0-9_]{3,})/.exec(description)?.[1];
}

const cases = receiptMutations.filter((m) => findingOf(m.description) !== undefined).map((m) => ({ fault: m.name, finding: findingOf(m.description) as string, denial: m.on.includes('denial') }));

describe('table-driven receipt faults', () => {
  it('every mutation but one names the finding it causes', () => {
    expect(cases.length).toBeGreaterThanOrEqual(receiptMutations.length - 1);
  });

  it.each(cases)('$fault makes the verifier report $finding on the served chain', async (c) => {
    const server = await startMockServer({ seed: 3 });
    servers.push(server);
    const token = server.tokens.byAccount[c.denial ? 'acct_capped' : 'acct_dev'] as string;
    // Two requests under the fault: faults that need a predecessor act on the second.
    for (let i = 0; i < 2; i++) expect(await chat(server, token, c.fault)).toBe(c.denial ? 429 : 200);
    const list = (await (await fetch(`${server.url}/receipts`, { headers: { authorization: `Bearer ${token}`, 'x-iari-fault': c.fault } })).json()) as ReceiptChainView;
    const keys = (await (await fetch(`${server.url}/receipts/keys`, { headers: { 'x-iari-fault': c.fault } })).json()) as ReceiptKeysView;
    const data = list.data as Receipt[];
    // The level the harness infers: context anywhere is level 3, actor_sig anywhere level 2.
    const level = data.some((r) => r.context !== undefined) ? 3 : data.some((r) => r.act.actor_sig !== undefined) ? 2 : 1;
    const result = verifyChain(data, { level, trustedIssuers: keys.keys.map((k) => k.kid), grantId: list.mandate.grant_id, ...(list.head === null ? {} : { expectedHead: list.head }) });
    expect([...result.errors, ...result.warnings].map((f) => f.code)).toContain(c.finding);
  });
});

describe('receipt issuer faults', () => {
  async function served(fault: string, account = 'acct_dev') {
    const server = await startMockServer({ seed: 3 });
    servers.push(server);
    const token = server.tokens.byAccount[account] as string;
    const status = await chat(server, token, fault);
    const list = async (who: string) => (await (await fetch(`${server.url}/receipts`, { headers: { authorization: `Bearer ${server.tokens.byAccount[who] as string}` } })).json()) as ReceiptChainView;
    const keys = (await (await fetch(`${server.url}/receipts/keys`, { headers: { 'x-iari-fault': fault } })).json()) as ReceiptKeysView;
    return { status, list, keys };
  }

  it('RCPT-HTTP-002: receipt-keys-bad-shape publishes keys whose use is not "issuer"', async () => {
    const { keys } = await served('receipt-keys-bad-shape');
    expect(keys.keys.map((k) => k.use)).toEqual(['signing']);
  });

  it('RCPT-PAIR-003: receipt-outcome-on-denial follows a denied gate with an outcome that points at it', async () => {
    const { status, list } = await served('receipt-outcome-on-denial', 'acct_capped');
    expect(status).toBe(429);
    const chain = await list('acct_capped');
    const codes = verifyChain(chain.data as Receipt[], { trustedIssuers: [] }).errors.map((f) => f.code);
    expect(codes).toContain('OUTCOME_ON_DENIED');
  });

  it('RCPT-HTTP-012: receipt-cross-account-copy lists the caller\'s Receipts in another account\'s chain', async () => {
    const { list } = await served('receipt-cross-account-copy');
    const mine = await list('acct_dev');
    const theirs = await list('acct_team');
    expect(mine.data.length).toBe(2);
    expect(theirs.data).toEqual(mine.data);
  });

  it('RCPT-HTTP-004: receipt-list-without-grant-id drops grant_id from the caller\'s mandate, not from others\'', async () => {
    const { list } = await served('receipt-list-without-grant-id');
    expect(Object.keys((await list('acct_dev')).mandate).sort()).toEqual(['actor', 'id']);
    expect(Object.keys((await list('acct_team')).mandate).sort()).toEqual(['actor', 'grant_id', 'id']);
  });
});
