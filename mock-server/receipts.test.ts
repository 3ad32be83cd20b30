import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainBuilder, Ed25519Key, canonicalString, digestOf, verifyChain, type ChainVerifyResult, type Receipt } from '../src/receipts/index.ts';
import { startMockServer, type MockServer } from './index.ts';
import { ReceiptFault, receiptFaults } from './faults-receipts.ts';
import { mutationFaults } from './receipt-fault-table.ts';
import { createReceiptIssuer } from './receipt-issuer.ts';
import type { ReceiptChainView, ReceiptKeysView } from './receipt-hooks.ts';

const servers: MockServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const server = await startMockServer({ seed: 11, ...options });
  servers.push(server);
  return server;
}

type ServedChain = Omit<ReceiptChainView, 'data'> & { data: Receipt[] };

interface Sent {
  status: number;
  gate: string | null;
  model: string | null;
  body: string;
}

async function chat(server: MockServer, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Sent> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'Tell me about receipts.' }], ...body }),
  });
  const text = await response.text();
  const model = /"model":"([^"]+)"/.exec(text)?.[1] ?? null;
  return { status: response.status, gate: response.headers.get('x-receipt-gate'), model, body: text };
}

/** Reads a stream until the first content event, then aborts: the client went away mid-stream. */
async function abortMidStream(server: MockServer, token: string): Promise<string | null> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    signal: abort.signal,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-iari-itl-ms': '25', 'x-iari-completion-tokens': '60' },
    body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'Go slowly.' }], stream: true }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let seen = '';
  while (!seen.includes('"content"')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += new TextDecoder().decode(value);
  }
  abort.abort();
  await reader.read().catch(() => undefined);
  return response.headers.get('x-receipt-gate');
}

async function receiptsOf(server: MockServer, token: string): Promise<ServedChain> {
  const response = await fetch(`${server.url}/receipts`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as ServedChain;
}

async function keysOf(server: MockServer): Promise<string[]> {
  const keys = (await (await fetch(`${server.url}/receipts/keys`)).json()) as ReceiptKeysView;
  return keys.keys.map((k) => k.kid);
}

function verify(chain: ReceiptChainView, trusted: readonly string[], level: 1 | 2 | 3 = 1): ChainVerifyResult {
  return verifyChain(chain.data, { trustedIssuers: trusted, grantId: chain.mandate.grant_id, level, ...(chain.head === null ? {} : { expectedHead: chain.head }) });
}

function codes(result: ChainVerifyResult): string[] {
  return [...new Set(result.errors.map((e) => e.code))].sort();
}

/** Pairing as a client sees it: every gate named by a response header, and the outcomes that point at it. */
function pairing(chain: { data: Receipt[] }, gates: readonly string[]) {
  const byDigest = new Map(chain.data.map((r) => [digestOf(r), r]));
  return gates.map((gate) => ({
    gate,
    found: byDigest.get(gate),
    outcomes: chain.data.filter((r) => r.gate === gate),
  }));
}

async function waitForOutcomes(server: MockServer, token: string, expected: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const chain = await receiptsOf(server, token);
    if (chain.data.filter((r) => r.outcome !== undefined).length >= expected) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('receipts from a session of mixed requests', () => {
  it('RCPT-HTTP-006: a session (ok, streamed, tool call, interrupted, failed, denied) gives chains that verify with zero errors', async () => {
    const server = await start();
    const token = server.tokens.default;
    const capped = server.tokens.byAccount['acct_capped'] as string;
    const trusted = await keysOf(server);

    const ok = await chat(server, token, {});
    const streamed = await chat(server, token, { stream: true, stream_options: { include_usage: true } });
    const tool = await chat(server, token, {
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }],
      tool_choice: 'required',
    });
    const interruptedGate = await abortMidStream(server, token);
    const failed = await chat(server, token, { stream: true }, { 'x-iari-fail-after-events': '3' });
    const rejected = await chat(server, token, { model: 'no-such-model' });
    let denied: Sent | null = null;
    for (let i = 0; i < 5 && denied === null; i++) {
      const sent = await chat(server, capped, { max_tokens: 8 });
      if (sent.status === 429) denied = sent;
    }
    await waitForOutcomes(server, token, 5);

    for (const sent of [ok, streamed, tool, failed]) expect(sent.status).toBe(200);
    expect(rejected.status).toBe(404);
    expect(rejected.gate).toBeNull();
    expect(denied?.gate).toMatch(/^sha256:[0-9a-f]{64}$/);

    const chain = await receiptsOf(server, token);
    const result = verify(chain, trusted);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.head).toBe(chain.head);

    // One gate and one outcome per allowed completion, and nothing for the rejected request.
    const gates = [ok.gate, streamed.gate, tool.gate, interruptedGate, failed.gate] as string[];
    expect(chain.data).toHaveLength(2 * gates.length);
    const statuses = pairing(chain, gates).map((p) => {
      expect(p.found?.outcome).toBeUndefined();
      expect(p.found?.decision).toEqual({ result: 'allowed' });
      expect(p.outcomes).toHaveLength(1);
      return p.outcomes[0]?.outcome?.status;
    });
    expect(statuses).toEqual(['ok', 'ok', 'ok', 'interrupted', 'failed']);
    const okOutcome = pairing(chain, [ok.gate as string])[0]?.outcomes[0];
    expect(okOutcome?.outcome?.resolved).toEqual({ provider: expect.any(String), model: ok.model, boundary: expect.any(Array) });
    expect(okOutcome?.act.input_digest).toMatch(/^sha256:/);

    const cappedChain = await receiptsOf(server, capped);
    expect(verify(cappedChain, trusted).errors).toEqual([]);
    const denial = pairing(cappedChain, [denied?.gate as string])[0];
    expect(denial?.found?.decision).toEqual({ result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: expect.any(String) });
    expect(denial?.found?.cost).toEqual({ amount: '0', unit: 'USD' });
    expect(denial?.outcomes).toHaveLength(0);
    expect(cappedChain.mandate.id).not.toBe(chain.mandate.id);
  });

  it('RCPT-SCHEMA-039: chains issued at level 2 and 3 carry actor_sig (and context) and verify at that level', async () => {
    for (const level of [2, 3] as const) {
      const issuer = createReceiptIssuer({ seed: 5, level });
      const server = await start({ receipts: issuer });
      await chat(server, server.tokens.default, {});
      await chat(server, server.tokens.default, { stream: true });
      await waitForOutcomes(server, server.tokens.default, 2);
      const chain = await receiptsOf(server, server.tokens.default);
      expect(chain.data).toHaveLength(4);
      expect(chain.data.every((r) => r.act.actor_sig !== undefined)).toBe(true);
      expect(chain.data.every((r) => (level === 3) === (r.context !== undefined))).toBe(true);
      expect(verify(chain, [issuer.issuerKeyref], level).errors).toEqual([]);
      issuer.close();
    }
  });

  it('links and signs exactly as the library\'s ChainBuilder does for the same inputs', () => {
    let n = 0;
    const issuer = createReceiptIssuer({ seed: 9, now: () => 1_800_000_000, nextId: () => `rcpt_t${n++}` });
    const body = { model: 'iari-mini', messages: [{ role: 'user', content: 'x' }] };
    const { gateDigest } = issuer.gate({
      account: 'acct_x', requestId: 'req_1', model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: body,
      decision: { result: 'allowed' }, estimatedCostUsd: '0.00002', faults: new Set(),
    });
    const resolved = { provider: 'iari-mock', model: 'iari-mini', boundary: ['account:acct_x'] };
    issuer.outcome({ account: 'acct_x', gateDigest, status: 'ok', output: [{ role: 'assistant', content: 'y' }], resolved, costUsd: '0.000015', faults: new Set() });

    const chain = issuer.chain('acct_x');
    let m = 0;
    // The same issuer key (published by keys()) and actor key, rebuilt through the ChainBuilder.
    const issuerKey = keyFor(issuer.keys().keys[0]?.kid as string, 'issuer/9');
    const actorKey = keyFor(chain.mandate.actor, 'actor/9/acct_x');
    const builder = new ChainBuilder({ issuer: issuerKey, actor: actorKey, now: () => 1_800_000_000, nextId: () => `rcpt_t${m++}` });
    const gate = builder.appendGate({ resource: 'model:iari-mini', inputDigest: digestOf(body), decision: { result: 'allowed' }, cost: { amount: '0.00002', unit: 'USD' } });
    builder.appendOutcome(gate.digest, { status: 'ok', outputDigest: digestOf([{ role: 'assistant', content: 'y' }]), resolved, cost: { amount: '0.000015', unit: 'USD' } });
    expect(chain.data).toEqual(builder.receipts);
    expect(chain.head).toBe(builder.head);
    expect(gateDigest).toBe(gate.digest);
    // The stored (and listed) text of a faithful Receipt is its JCS text, the bytes of its digest.
    expect(issuer.chainJson('acct_x')).toContain(`"data":[${builder.receipts.map((r) => canonicalString(r)).join(',')}]`);
  });
});

/** The mock's keys are derived from the seed as documented in docs/mock-receipts.md (key derivation, not a Receipt digest). */
function keyFor(keyref: string, label: string): Ed25519Key {
  const key = Ed25519Key.fromSeed(new Uint8Array(createHash('sha256').update(`iari-mock/${label}`).digest()));
  expect(key.keyref).toBe(keyref);
  return key;
}

interface FaultCase {
  fault: string;
  /** Verifier error codes the fault must produce (exactly these). */
  errors?: string[];
  /** Or a check a client makes beyond the verifier. */
  check?: (ctx: { chain: ServedChain; result: ChainVerifyResult; faulted: Sent }) => void;
  account?: 'acct_dev' | 'acct_capped';
}

const faultCases: FaultCase[] = [
  // The served head is the last Receipt issued, which the links from the genesis no longer reach.
  { fault: ReceiptFault.brokenPrev, errors: ['CHAIN_BREAK', 'HEAD_MISMATCH'] },
  { fault: ReceiptFault.badSignature, errors: ['SIG_INVALID'] },
  { fault: ReceiptFault.outcomeWithoutGate, errors: ['GATE_REF_MISSING'] },
  { fault: ReceiptFault.denialWithoutReason, errors: ['REASON_MISSING'], account: 'acct_capped' },
  { fault: ReceiptFault.policyDenialWithoutSubcode, errors: ['POLICY_DETAIL_MISSING'], account: 'acct_capped' },
  { fault: ReceiptFault.duplicateOutcome, errors: ['DUPLICATE_OUTCOME'] },
  { fault: ReceiptFault.iatBackwards, errors: ['IAT_REGRESSION'] },
  { fault: ReceiptFault.unknownDecisionMember, errors: ['SCHEMA_UNKNOWN_FIELD'] },
  { fault: ReceiptFault.missingResolved, errors: ['RESOLVED_MISSING'] },
  { fault: ReceiptFault.pairActMismatch, errors: ['PAIR_ACT_MISMATCH'] },
  { fault: ReceiptFault.noncanonicalCost, errors: ['NONCANONICAL_DECIMAL'] },
  {
    fault: ReceiptFault.wrongResolvedModel,
    errors: [],
    check: ({ chain, faulted }) => {
      const outcome = pairing(chain, [faulted.gate as string])[0]?.outcomes[0];
      expect(faulted.model).toBe('iari-mini');
      expect(outcome?.outcome?.resolved?.model).not.toBe(faulted.model);
    },
  },
  {
    fault: ReceiptFault.missingOutcome,
    errors: [],
    check: ({ chain, result, faulted }) => {
      expect(pairing(chain, [faulted.gate as string])[0]?.outcomes).toHaveLength(0);
      expect(result.warnings.map((w) => w.code)).toContain('GATE_OPEN');
    },
  },
  {
    fault: ReceiptFault.wrongGateHeader,
    errors: [],
    check: ({ chain, faulted }) => {
      expect(faulted.gate).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(pairing(chain, [faulted.gate as string])[0]?.found).toBeUndefined();
    },
  },
];

describe('receipt faults', () => {
  it('every receipt fault is listed once, breaks RCPT requirement IDs, and is exercised below', () => {
    const names = receiptFaults.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of receiptFaults) {
      expect(f.kind).toBe('fault');
      expect(f.breaks.length).toBeGreaterThan(0);
      for (const id of f.breaks) expect(id).toMatch(/^RCPT-(SCHEMA|SIG|CHAIN|PAIR|HTTP)-\d{3}$/);
    }
    // The table-driven faults are exercised by receipt-fault-mutations.test.ts.
    const tableDriven = new Set(mutationFaults.map((f) => f.name));
    expect([...faultCases.map((c) => c.fault), ReceiptFault.keysMismatch].sort()).toEqual(names.filter((n) => !tableDriven.has(n)).sort());
  });

  it.each(faultCases)('$fault makes the verifier or the pairing check report it, and only it', async (c) => {
    const server = await start();
    const token = server.tokens.byAccount[c.account ?? 'acct_dev'] as string;
    const trusted = await keysOf(server);
    // A faithful completion first, so the faulted Receipt has a predecessor; another one after it.
    await chat(server, server.tokens.default, {});
    let faulted = await chat(server, token, {}, { 'x-iari-fault': c.fault });
    for (let i = 0; i < 5 && c.account === 'acct_capped' && faulted.status !== 429; i++) faulted = await chat(server, token, {}, { 'x-iari-fault': c.fault });
    if (c.account !== 'acct_capped') {
      expect(faulted.status).toBe(200);
      await chat(server, token, { stream: true });
    } else expect(faulted.status).toBe(429);
    const chain = await receiptsOf(server, token);
    const result = verify(chain, trusted);
    expect(codes(result)).toEqual(c.errors);
    c.check?.({ chain, result, faulted });
  });

  it('receipt-keys-mismatch advertises a key that does not sign: the chain is untrusted against the published keys', () => {
    const issuer = createReceiptIssuer({ seed: 4 });
    issuer.gate({
      account: 'a', requestId: 'r', model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: {}, decision: { result: 'allowed' }, estimatedCostUsd: '0', faults: new Set(),
    });
    const advertised = issuer.keys(new Set([ReceiptFault.keysMismatch])).keys.map((k) => k.kid);
    const faithful = issuer.keys().keys.map((k) => k.kid);
    expect(advertised).not.toEqual(faithful);
    const chain = issuer.chain('a');
    expect(codes(verify(chain, advertised))).toEqual(['ISSUER_UNTRUSTED']);
    expect(codes(verify(chain, faithful))).toEqual([]);
  });

  it('receipt-keys-mismatch reaches GET /v1/receipts/keys through the x-iari-fault header', async () => {
    const server = await start();
    await chat(server, server.tokens.default, {});
    const advertised = (await (await fetch(`${server.url}/receipts/keys`, { headers: { 'x-iari-fault': ReceiptFault.keysMismatch } })).json()) as ReceiptKeysView;
    const chain = await receiptsOf(server, server.tokens.default);
    expect(codes(verify(chain, advertised.keys.map((k) => k.kid)))).toEqual(['ISSUER_UNTRUSTED']);
    expect(codes(verify(chain, await keysOf(server)))).toEqual([]);
  });
});

describe('receipts with a ledger', () => {
  it('continues the same chain after a restart on the same ledger', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-rcpt-'));
    dirs.push(dir);
    const ledger = path.join(dir, 'receipts.jsonl');
    const first = await start({ ledger, seed: 21 });
    await chat(first, first.tokens.default, {});
    await chat(first, first.tokens.default, { stream: true });
    await waitForOutcomes(first, first.tokens.default, 2);
    const before = await receiptsOf(first, first.tokens.default);
    await first.close();

    const second = await start({ ledger, seed: 21 });
    const resumed = await receiptsOf(second, second.tokens.default);
    expect(resumed.head).toBe(before.head);
    expect(resumed.mandate).toEqual(before.mandate);
    await chat(second, second.tokens.default, {});
    await waitForOutcomes(second, second.tokens.default, 3);
    const after = await receiptsOf(second, second.tokens.default);
    expect(after.data).toHaveLength(6);
    expect(after.data[4]?.prev).toBe(before.head);
    expect(verify(after, await keysOf(second)).errors).toEqual([]);
    expect(fs.readFileSync(ledger, 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('refuses a ledger written with another seed instead of forking the chain', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-rcpt-'));
    dirs.push(dir);
    const ledger = path.join(dir, 'receipts.jsonl');
    const first = await start({ ledger, seed: 1 });
    await chat(first, first.tokens.default, {});
    await first.close();
    await expect(start({ ledger, seed: 2 })).rejects.toThrow(/another seed/);
    // The refusal released the ledger: the right seed still opens it.
    await (await start({ ledger, seed: 1 })).close();
  });
});
