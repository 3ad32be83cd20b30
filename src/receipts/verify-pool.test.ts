import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainBuilder } from './chain-builder.ts';
import { canonicalString } from './canonical.ts';
import { ChainVerifier } from './chain-verifier.ts';
import { digestOf } from './digest.ts';
import { ReceiptSplitter } from './receipt-splitter.ts';
import { Ed25519Key } from './signing-key.ts';
import { verifyReceiptFile } from './verify-chain.ts';
import { PARALLEL_FROM, ParallelFeeder } from './verify-pool.ts';

const issuer = Ed25519Key.fromSeed(new Uint8Array(32).fill(1));
const dir = mkdtempSync(join(tmpdir(), 'iari-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A long chain with damage spread over it: a forged signature, a schema failure, an oversize line, a duplicate, junk. */
function longChain(n: number): string {
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer, actor: issuer, retain: false, now: () => (t += 1) });
  const lines: string[] = [];
  while (lines.length < n) {
    const g = b.appendGate({ resource: 'm', inputDigest: digestOf({ n: lines.length }), decision: { result: 'allowed' }, cost: { amount: '1', unit: 'USD' } });
    lines.push(canonicalString(g.receipt));
    lines.push(canonicalString(b.appendOutcome(g.digest, { status: 'ok', resolved: { provider: 'p', model: 'm', boundary: [] }, cost: { amount: '1', unit: 'USD' } }).receipt));
  }
  if (n > 2200) {
    lines[1500] = (lines[1500] as string).replace('"resource":"m"', '"resource":"n"');
    lines[1700] = (lines[1700] as string).replace('"type":"receipt"', '"type":"receipt","extra":1');
    lines[1900] = `{"pad":"${'x'.repeat(70_000)}"}`;
    lines.splice(2100, 0, lines[2000] as string);
    lines.splice(2200, 0, 'not json');
  }
  return `${lines.join('\n')}\n`;
}

describe('verification on worker threads', () => {
  it('gives the same findings, head and counts with --jobs 2 as on one thread, and uses the workers', async () => {
    const file = join(dir, 'chain.jsonl');
    const text = longChain(2600);
    writeFileSync(file, text);
    const one = await verifyReceiptFile(file, { trustedIssuers: [issuer.keyref], jobs: 1 });
    const two = await verifyReceiptFile(file, { trustedIssuers: [issuer.keyref], jobs: 2 });
    expect(one.valid).toBe(false);
    expect(one.errors.map((f) => f.code)).toEqual(expect.arrayContaining(['SIG_INVALID', 'SCHEMA_UNKNOWN_FIELD', 'JSON_LIMITS', 'DUPLICATE_RECEIPT', 'JSON_SYNTAX', 'CHAIN_BREAK']));
    expect(two).toEqual(one);

    const verifier = new ChainVerifier({ trustedIssuers: [issuer.keyref] });
    const feeder = new ParallelFeeder(verifier, 2);
    const splitter = new ReceiptSplitter(65_536);
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length; at += 100_000) {
      splitter.feed(bytes.subarray(at, at + 100_000), (item) => feeder.item(item));
      await feeder.settle();
      // Wait for the pool once it is starting, so that this test sees batches go to the workers.
      if (verifier.count >= PARALLEL_FROM) await feeder.started();
    }
    splitter.end((item) => feeder.item(item));
    await feeder.finish();
    expect(feeder.workerBatches).toBeGreaterThan(0);
    expect(verifier.finish()).toEqual(one);
  }, 120_000);

  it('keeps a short chain on this thread', async () => {
    const verifier = new ChainVerifier({});
    const feeder = new ParallelFeeder(verifier, 4);
    const splitter = new ReceiptSplitter(65_536);
    splitter.feed(new TextEncoder().encode(longChain(PARALLEL_FROM - 10).split('\n').slice(0, PARALLEL_FROM - 10).join('\n')), (item) => feeder.item(item));
    await feeder.started();
    splitter.end((item) => feeder.item(item));
    await feeder.finish();
    expect(feeder.workerBatches).toBe(0);
    expect(verifier.count).toBe(PARALLEL_FROM - 10);
  });
});
