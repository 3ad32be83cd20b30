import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { digestOf } from '../src/receipts/index.ts';
import { startMockServer } from './index.ts';
import { ReceiptFault } from './faults-receipts.ts';
import { createReceiptIssuer } from './receipt-issuer.ts';

const PAIRS = 3_000;

describe('GET /v1/receipts on a long chain', () => {
  it(`serves a chain of ${2 * PAIRS + 2} Receipts whole, linked, with the head of the last one`, async () => {
    const issuer = createReceiptIssuer({ seed: 3 });
    const mock = await startMockServer({ receipts: issuer, ttftMs: 0, itlMs: 0, limits: false });
    try {
      const auth = { authorization: `Bearer ${mock.tokens.default}` };
      const chat = await fetch(`${mock.url}/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(chat.status).toBe(200);
      await chat.arrayBuffer();
      const account = issuer.accounts()[0] as string;
      const resolved = { provider: 'iari-mock', model: 'iari-mini', boundary: [`account:${account}`] };
      for (let i = 0; i < PAIRS; i++) {
        const body = { model: 'iari-mini', messages: [{ role: 'user', content: `prompt ${i} 🚀` }] };
        const { gateDigest } = issuer.gate({
          account, requestId: `req_${i}`, model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: body,
          decision: { result: 'allowed' }, estimatedCostUsd: '0.00002', faults: new Set(),
        });
        issuer.outcome({ account, gateDigest, status: 'ok', output: [{ role: 'assistant', content: `answer ${i}` }], resolved, costUsd: '0.000015', faults: new Set() });
      }

      // undici with a body timeout: a reset or a stall fails the test instead of hanging it.
      const res = await request(`${mock.url}/receipts`, { headers: auth, headersTimeout: 20_000, bodyTimeout: 20_000 });
      expect(res.statusCode).toBe(200);
      const text = await res.body.text();
      expect(Buffer.byteLength(text)).toBe(Number(res.headers['content-length']));
      const list = JSON.parse(text) as { object: string; head: string; data: Record<string, unknown>[] };
      expect(list.object).toBe('list');
      expect(list.data).toHaveLength(2 * PAIRS + 2);
      let prev: string | undefined;
      for (const receipt of list.data) {
        expect(receipt['prev']).toBe(prev);
        prev = digestOf(receipt);
      }
      expect(list.head).toBe(prev);
    } finally {
      await mock.close();
    }
  }, 60_000);

  it('serves the stored Receipt texts as the same bytes as the parsed chain view re-serialised, faults included', () => {
    const issuer = createReceiptIssuer({ seed: 4, level: 3 });
    expect(issuer.chainJson('acct_y')).toBe(JSON.stringify({ object: 'list', ...issuer.chain('acct_y') }));
    const resolved = { provider: 'iari-mock', model: 'iari-mini', boundary: ['account:acct_y'] };
    for (const faults of [new Set<string>(), new Set<string>([ReceiptFault.unknownDecisionMember, ReceiptFault.noncanonicalCost]), new Set<string>([ReceiptFault.badSignature])]) {
      const body = { model: 'iari-mini', messages: [{ role: 'user', content: 'Grüße 🚀 "quoted" \\ \u2028' }] };
      const { gateDigest } = issuer.gate({
        account: 'acct_y', requestId: 'req_y', model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: body,
        decision: { result: 'allowed' }, estimatedCostUsd: '0.00002', faults,
      });
      issuer.outcome({ account: 'acct_y', gateDigest, status: 'ok', output: [{ role: 'assistant', content: 'é' }], resolved, costUsd: '0.000015', faults });
    }
    expect(issuer.chain('acct_y').data).toHaveLength(6);
    expect(issuer.chainJson('acct_y')).toBe(JSON.stringify({ object: 'list', ...issuer.chain('acct_y') }));
    issuer.close();
  });
});
