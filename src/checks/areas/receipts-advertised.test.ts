/**
 * Issue 43, item 1: against llama.cpp's server with --api-key, GET /v1/receipts/keys without the
 * token answered 401 and the token-bearing receipt list 404; the 401 counted as "advertised" and the
 * 404 body was read as an empty chain, so 62 receipt requirements passed on a server with no
 * receipts. Only a positive answer advertises a capability, and an empty chain decides nothing.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { createCheckContext, type RunSettings } from '../context/check-context.ts';
import { runChecksInProcess } from '../runner/run-catalog.ts';
import { receiptsChecks } from './receipts.ts';

let mock: MockServer;
let gate: Server;
let settings: RunSettings;
/** What the front answers on GET /v1/receipts/keys without a token; everything else is forwarded. */
let keysStatus = 401;
/** What the front answers on GET /v1/receipts with the token, when set; else forwarded. */
let listAnswer: { status: number; body: string } | undefined;

beforeAll(async () => {
  mock = await startMockServer({ seed: 3, ttftMs: 0, itlMs: 0, jitterMs: 0, receipts: false });
  // A server whose every route wants the token (llama-server --api-key): 401 without it.
  gate = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.headers.authorization === undefined) {
      res.writeHead(path === '/v1/receipts/keys' ? keysStatus : 401, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}');
      req.resume();
      return;
    }
    if (path === '/v1/receipts' && listAnswer !== undefined) {
      res.writeHead(listAnswer.status, { 'content-type': 'application/json' });
      res.end(listAnswer.body);
      req.resume();
      return;
    }
    const up = request(new URL(req.url ?? '/', mock.origin), { method: req.method, headers: req.headers }, (u) => {
      res.writeHead(u.statusCode ?? 502, u.headers);
      u.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
  settings = { root: `http://127.0.0.1:${(gate.address() as AddressInfo).port}`, token: mock.tokens.default, seed: 3, target: 'external', includeLimits: false };
});

afterAll(async () => {
  await new Promise<void>((r) => gate.close(() => r()));
  await mock.close();
});

async function receiptVerdicts() {
  const ctx = createCheckContext(settings);
  try {
    const { outcomes } = await runChecksInProcess(ctx, receiptsChecks);
    return [...outcomes.values()];
  } finally {
    await ctx.close();
  }
}

describe('the receipts extension is advertised only by a positive answer', () => {
  it('RCPT-HTTP-002, RCPT-SCHEMA-001, RCPT-CHAIN-001, RCPT-SIG-001, RCPT-PAIR-001: a 401 on the public keys endpoint passes nothing and fails nothing, and says why', async () => {
    keysStatus = 401;
    listAnswer = undefined;
    const outcomes = await receiptVerdicts();
    const passed = outcomes.filter((o) => o.verdict === 'pass' && o.id !== 'RCPT-HTTP-001');
    expect(passed.map((o) => o.id)).toEqual([]);
    expect(outcomes.filter((o) => o.verdict === 'fail').map((o) => o.id)).toEqual([]);
    const chainRows = outcomes.filter((o) => /^RCPT-(SCHEMA|SIG|CHAIN|PAIR)-/.test(o.id));
    expect(chainRows.length).toBeGreaterThan(60);
    for (const o of chainRows) {
      expect(o.verdict).toBe('skipped');
      if (o.verdict === 'skipped') expect(o.reason).toMatch(/answered 401.*only a 200 keys document advertises it/);
    }
  });

  it('RCPT-SCHEMA-001, RCPT-CHAIN-001, RCPT-SIG-001, RCPT-PAIR-001: an advertised extension whose list answers 404 verifies no empty chain: nothing of the chain passes', async () => {
    keysStatus = 200;
    listAnswer = { status: 404, body: '{"error":{"message":"File Not Found","type":"not_found_error","code":404}}' };
    const outcomes = await receiptVerdicts();
    const chainRows = outcomes.filter((o) => /^RCPT-(SCHEMA|SIG|CHAIN|PAIR)-/.test(o.id));
    expect(chainRows.length).toBeGreaterThan(60);
    expect(chainRows.filter((o) => o.verdict === 'pass').map((o) => o.id)).toEqual([]);
    const must = chainRows.find((o) => o.verdict === 'fail');
    expect(must?.verdict === 'fail' ? must.failures[0]?.message : '').toMatch(/answered 404 without a list of Receipts.*RCPT-HTTP-004/);
  });

  it('RCPT-CHAIN-001, RCPT-HTTP-005: a 200 list with no Receipt after the run\'s completions is an empty chain, which decides nothing', async () => {
    keysStatus = 200;
    listAnswer = { status: 200, body: JSON.stringify({ object: 'list', mandate: { id: 'm', grant_id: 'g', actor: 'a' }, head: null, data: [] }) };
    const outcomes = await receiptVerdicts();
    const byId = new Map(outcomes.map((o) => [o.id, o]));
    expect(['fail', 'non-strict', 'informational']).toContain(byId.get('RCPT-HTTP-005')?.verdict);
    const chainRows = outcomes.filter((o) => /^RCPT-(SCHEMA|SIG|CHAIN|PAIR)-/.test(o.id));
    expect(chainRows.filter((o) => o.verdict === 'pass').map((o) => o.id)).toEqual([]);
  });
});
