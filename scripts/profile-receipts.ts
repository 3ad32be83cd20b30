// Per-Receipt CPU time of each phase of `iari receipts verify`, by the thread that runs it (issue 41
// item 3; run by hand):  npx tsx scripts/profile-receipts.ts [--receipts 20000] [--rounds 3] [--out reports/bench/receipts-phases.json]
// Each phase runs alone over the same generated chain on this thread and is timed by this thread's
// CPU clock (process.threadCpuUsage), so the figures hold on a loaded machine. Worker thread: strict
// read, schema, signature input + Ed25519 (node:crypto), and the whole per-Receipt check (checkReceipt:
// those plus JCS forms, SHA-256 digest and pairing hashes, keys, facts); main thread: splitting the
// file, packing batches for the workers, receiving the facts, and the chain state (pushFacts).
import { verify as nodeVerify } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { ChainBuilder, ChainVerifier, Ed25519Key, canonicalString, digestOf, ReceiptSplitter, validateReceiptSchema, type Receipt } from '../src/receipts/index.ts';
import { verifyKeyOf } from '../src/receipts/ed25519.ts';
import { paeOfText, PAYLOAD_TYPE } from '../src/receipts/pae.ts';
import { CheckContext, checkOptionsOf, checkReceipt } from '../src/receipts/receipt-checks.ts';
import { FactsBatch } from '../src/receipts/receipt-facts.ts';
import { readStrictJson } from '../src/receipts/strict-json.ts';
import { packBatch } from '../src/receipts/verify-pool.ts';

const { values } = parseArgs({ options: { receipts: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, out: { type: 'string', default: 'reports/bench/receipts-phases.json' } } });
const n = Number(values.receipts);
const rounds = Number(values.rounds);
const ISSUER = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex')));
const ACTOR = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', 'hex')));
const OPTIONS = { trustedIssuers: [ISSUER.keyref], now: 4_000_000_000, maxFindings: 100 };
const BATCH = 256;

const receipts: Receipt[] = [];
let t = 1_700_000_000;
const b = new ChainBuilder({ issuer: ISSUER, actor: ACTOR, retain: false, now: () => (t += 1) });
while (receipts.length < n) {
  if (receipts.length % 5 === 4 || n - receipts.length === 1) {
    receipts.push(b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: { amount: '0', unit: 'USD' } }).receipt);
    continue;
  }
  const g = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf({ k: receipts.length }), decision: { result: 'allowed' }, cost: { amount: '0.000123', unit: 'USD' } });
  receipts.push(g.receipt);
  receipts.push(b.appendOutcome(g.digest, { status: 'ok', outputDigest: digestOf({ out: receipts.length }), resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] }, cost: { amount: '0.000101', unit: 'USD' } }).receipt);
}
const texts = receipts.map((r) => `${canonicalString(r)}\n`);
const file = Buffer.from(texts.join(''));
const lines = texts.map((s) => Buffer.from(s.slice(0, -1)));
const values_ = lines.map((l) => (readStrictJson(l) as { value: unknown }).value);
const withoutSig = receipts.map((r) => {
  const { sig: _sig, ...rest } = r as unknown as Record<string, unknown>;
  return canonicalString(rest);
});
const sigs = receipts.map((r) => Buffer.from(r.sig.val, 'base64url'));
const key = verifyKeyOf(ISSUER.publicKey);
const checkOptions = checkOptionsOf(OPTIONS);

const cpu = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

/** The facts of the chain in batches, as workers hand them back. */
function factBatches(): FactsBatch[] {
  const ctx = new CheckContext(checkOptions);
  const out: FactsBatch[] = [];
  for (let from = 0; from < n; from += BATCH) {
    const batch = new FactsBatch(Math.min(BATCH, n - from));
    for (let k = 0; k < batch.n; k++) checkReceipt(lines[from + k] as Uint8Array, from + k, ctx, batch, k);
    out.push(batch);
  }
  return out;
}

const facts = factBatches();

const phases: Record<string, { thread: 'worker' | 'main'; run: () => void }> = {
  'strict read (readStrictJson)': { thread: 'worker', run: () => lines.forEach((l) => readStrictJson(l)) },
  'schema (validateReceiptSchema)': { thread: 'worker', run: () => values_.forEach((v) => validateReceiptSchema(v)) },
  'signature input (PAE of the JCS without sig)': { thread: 'worker', run: () => withoutSig.forEach((s) => paeOfText(PAYLOAD_TYPE.receipt, s)) },
  'Ed25519 verify (node:crypto, OpenSSL)': {
    thread: 'worker',
    run: () => withoutSig.forEach((s, k) => {
      if (!nodeVerify(null, paeOfText(PAYLOAD_TYPE.receipt, s), key.keyObject, sigs[k] as Buffer)) throw new Error('verify failed');
    }),
  },
  'whole per-Receipt check (checkReceipt)': { thread: 'worker', run: () => void factBatches() },
  'split the file into Receipts': { thread: 'main', run: () => new ReceiptSplitter(65_536).feed(file, () => undefined) },
  'pack batches for the workers': {
    thread: 'main',
    run: () => {
      for (let from = 0; from < n; from += BATCH) packBatch(lines.slice(from, from + BATCH));
    },
  },
  'facts across threads (structured clone, both ends)': {
    thread: 'main',
    run: () => {
      for (const f of facts) {
        const { message } = f.toMessage();
        FactsBatch.fromMessage(structuredClone({ ...message, buffer: message.buffer.slice(0) }));
      }
    },
  },
  'chain state (ChainVerifier.pushFacts)': {
    thread: 'main',
    run: () => {
      const v = new ChainVerifier(OPTIONS);
      for (const f of facts) v.pushFacts(f);
      if (!v.finish().valid) throw new Error('chain invalid');
    },
  },
};

const results: Record<string, { thread: string; usPerReceipt: number[] }> = {};
for (let round = 0; round <= rounds; round++) {
  for (const [name, phase] of Object.entries(phases)) {
    const c0 = cpu();
    phase.run();
    const us = (cpu() - c0) / n;
    // Round 0 warms the JIT and is not counted.
    if (round > 0) (results[name] ??= { thread: phase.thread, usPerReceipt: [] }).usPerReceipt.push(Number(us.toFixed(2)));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const report = { benchmark: 'receipts-phases', date: new Date().toISOString(), node: process.version, receipts: n, rounds, clock: 'CPU time of this thread per Receipt (µs), median of the rounds', loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)), phases: results };
for (const [name, r] of Object.entries(results)) process.stdout.write(`${r.thread.padEnd(6)} ${median(r.usPerReceipt).toFixed(1).padStart(7)} µs  ${name}  (${r.usPerReceipt.join(', ')})\n`);
process.stdout.write(`load ${report.loadAverage1m}\n`);
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
