import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digestOf, verifyChain, type Receipt } from '../src/receipts/index.ts';
import { createReceiptIssuer, type MockReceiptIssuer } from './receipt-issuer.ts';
import { readLedger } from './receipt-ledger.ts';

// The retention window (docs/mock-receipts.md, Memory): each chain keeps its last N Receipts in
// memory; older ones live only in the ledger, or (without one) only as the head and counts.
const dirs: string[] = [];
const issuers: MockReceiptIssuer[] = [];
afterEach(() => {
  for (const i of issuers.splice(0)) i.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function issuer(options: Parameters<typeof createReceiptIssuer>[0]): MockReceiptIssuer {
  let t = Math.floor(Date.now() / 1000) - 1000;
  const i = createReceiptIssuer({ seed: 3, now: () => t++, onWarning: () => undefined, ...options });
  issuers.push(i);
  return i;
}

/** One allowed completion: a gate and its ok outcome. */
function complete(i: MockReceiptIssuer, n: number): void {
  const { gateDigest } = i.gate({ account: 'acct_dev', requestId: `req_${n}`, model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: { n }, decision: { result: 'allowed' }, estimatedCostUsd: '0.0001', faults: new Set() });
  i.outcome({ account: 'acct_dev', gateDigest, status: 'ok', output: [{ role: 'assistant', content: `answer ${n}` }], resolved: { provider: 'iari', model: 'iari-mini', boundary: ['account:acct_dev'] }, costUsd: '0.0001', faults: new Set() });
}

/** Each listed Receipt links to the one before it, and the head is the last one's digest. */
function linkedTail(data: unknown[], head: string | null): boolean {
  const receipts = data as Receipt[];
  for (let k = 1; k < receipts.length; k++) if (receipts[k]?.prev !== digestOf(receipts[k - 1] as Receipt)) return false;
  return head === digestOf(receipts.at(-1) as Receipt);
}

describe('receipt retention window', () => {
  it('without a ledger keeps the last N Receipts, the head and the count of the dropped ones; new Receipts still link to the head', () => {
    const i = issuer({ retention: 5 });
    for (let n = 0; n < 8; n++) complete(i, n);
    const view = i.chain('acct_dev');
    expect(view.data).toHaveLength(5);
    expect(view.omitted).toBe(11);
    expect(linkedTail(view.data, view.head)).toBe(true);
    const json = JSON.parse(i.chainJson('acct_dev')) as { omitted: number; data: unknown[]; head: string };
    expect(json.omitted).toBe(11);
    expect(json.data).toEqual(view.data);
    complete(i, 8);
    const after = i.chain('acct_dev');
    expect(after.omitted).toBe(13);
    expect((after.data[3] as Receipt).prev).toBe(view.head);
  });

  it('lists no "omitted" while the chain fits its window (a short run answers as before)', () => {
    const i = issuer({ retention: 100 });
    for (let n = 0; n < 3; n++) complete(i, n);
    expect(i.chain('acct_dev').omitted).toBeUndefined();
    expect(i.chainJson('acct_dev')).not.toContain('omitted');
  });

  it('with a ledger every Receipt stays on disk and the whole chain verifies; a reopened ledger rebuilds the window and head in bounded memory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-retention-'));
    dirs.push(dir);
    const file = path.join(dir, 'receipts.jsonl');
    const first = issuer({ retention: 4, ledger: file });
    for (let n = 0; n < 10; n++) complete(first, n);
    const head = first.chain('acct_dev').head;
    first.close();
    issuers.splice(0);
    const onDisk = readLedger(file).entries.map((e) => e.receipt);
    expect(onDisk).toHaveLength(20);
    const whole = verifyChain(onDisk, { trustedIssuers: [first.issuerKeyref], ...(head === null ? {} : { expectedHead: head }) });
    expect(whole.errors).toEqual([]);
    expect(whole.valid).toBe(true);
    const second = issuer({ retention: 4, ledger: file });
    const view = second.chain('acct_dev');
    expect(view.head).toBe(head);
    expect(view.data).toHaveLength(4);
    expect(view.omitted).toBe(16);
    complete(second, 10);
    second.close();
    issuers.splice(0);
    const again = readLedger(file).entries.map((e) => e.receipt);
    expect(verifyChain(again, { trustedIssuers: [second.issuerKeyref] }).valid).toBe(true);
  });
});
