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
import { PARALLEL_FROM, PARALLEL_FROM_BYTES, ParallelFeeder } from './verify-pool.ts';

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

/** Verifies through a feeder that waits for its pool once the pool is starting, so batches go to the workers. */
async function viaWorkers(text: string): Promise<{ result: ReturnType<ChainVerifier['finish']>; batches: number }> {
  const verifier = new ChainVerifier({ trustedIssuers: [issuer.keyref] });
  const feeder = new ParallelFeeder(verifier, 2);
  const splitter = new ReceiptSplitter(65_536);
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += 100_000) {
    splitter.feed(bytes.subarray(at, at + 100_000), (item) => feeder.item(item));
    await feeder.settle();
    if (verifier.count >= PARALLEL_FROM) await feeder.started();
  }
  splitter.end((item) => feeder.item(item));
  await feeder.finish();
  return { result: verifier.finish(), batches: feeder.workerBatches };
}

describe('verification on worker threads', () => {
  it('RCPT-CHAIN-003: finds PREV_DIGEST_FORM on every Receipt whose prev skips the previous sig, across batch boundaries, as on one thread', async () => {
    const lines = longChain(1600).split('\n').filter((l) => l !== '');
    // 300 consecutive Receipts (more than a batch of 256, so a batch starts among them): prev over the previous Receipt without its sig.
    for (let k = 1000; k < 1300; k++) {
      const { sig: _sig, ...before } = JSON.parse(lines[k - 1] as string) as Record<string, unknown>;
      lines[k] = canonicalString({ ...(JSON.parse(lines[k] as string) as Record<string, unknown>), prev: digestOf(before) });
    }
    const text = `${lines.join('\n')}\n`;
    const file = join(dir, 'prev-form.jsonl');
    writeFileSync(file, text);
    const one = await verifyReceiptFile(file, { trustedIssuers: [issuer.keyref], jobs: 1 });
    expect(one.counts.PREV_DIGEST_FORM).toBe(300);
    expect(one.counts.CHAIN_BREAK).toBe(301);
    const two = await viaWorkers(text);
    expect(two.batches).toBeGreaterThan(1);
    expect(two.result).toEqual(one);
  }, 120_000);

  it('gives the same findings, head and counts with --jobs 2 as on one thread, and uses the workers', async () => {
    const file = join(dir, 'chain.jsonl');
    const text = longChain(2600);
    writeFileSync(file, text);
    const one = await verifyReceiptFile(file, { trustedIssuers: [issuer.keyref], jobs: 1 });
    const two = await verifyReceiptFile(file, { trustedIssuers: [issuer.keyref], jobs: 2 });
    expect(one.valid).toBe(false);
    expect(one.errors.map((f) => f.code)).toEqual(expect.arrayContaining(['SIG_INVALID', 'SCHEMA_UNKNOWN_FIELD', 'JSON_LIMITS', 'DUPLICATE_RECEIPT', 'JSON_SYNTAX', 'CHAIN_BREAK']));
    expect(two).toEqual(one);

    const pooled = await viaWorkers(text);
    expect(pooled.batches).toBeGreaterThan(0);
    expect(pooled.result).toEqual(one);
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

  it('starts the workers at once for an input known to be long, before its first Receipt, with the same findings', async () => {
    const text = longChain(40);
    const one = new ChainVerifier({ trustedIssuers: [issuer.keyref] });
    for (const line of text.split('\n')) if (line !== '') one.push(line);
    const verifier = new ChainVerifier({ trustedIssuers: [issuer.keyref] });
    const feeder = new ParallelFeeder(verifier, 2, PARALLEL_FROM_BYTES);
    await feeder.started();
    const splitter = new ReceiptSplitter(65_536);
    splitter.feed(new TextEncoder().encode(text), (item) => feeder.item(item));
    splitter.end((item) => feeder.item(item));
    await feeder.finish();
    expect(feeder.workerBatches).toBeGreaterThan(0);
    expect(verifier.finish()).toEqual(one.finish());
    const short = new ParallelFeeder(new ChainVerifier({}), 2, PARALLEL_FROM_BYTES - 1);
    await short.started();
    short.item({ kind: 'receipt', bytes: new TextEncoder().encode(text.split('\n')[0] as string) });
    await short.finish();
    expect(short.workerBatches).toBe(0);
  }, 60_000);
});
