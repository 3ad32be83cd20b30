// Receipt verifier benchmark (run by hand, not by npm test):
//   npx tsx scripts/bench-receipts.ts [--throughput 2000] [--counts 1000000] [--out reports/bench/receipts.json]
// 1. Receipts verified per second on one core through the full path (strict parse, schema, JCS,
//    digest, Ed25519, chain state) beside the raw @noble/curves ed25519.verify rate over the same
//    signature inputs, measured in the same run, alternating rounds; ratio = full / raw (target >= 0.6).
// 2. Peak RSS of a child process that verifies a generated chain file of each size in --counts with
//    the real streaming verifier (target < 256 MiB at 1,000,000). Generation signs with node:crypto.
//    --child-heap-mib N caps the child's V8 old space, so RSS shows what the verifier keeps rather
//    than how lazily V8 collects garbage (the per-Receipt state is in typed arrays, off that heap).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ChainBuilder, ChainVerifier, Ed25519Key, canonicalString, decodeBase64url, decodeKeyref, digestOf, receiptSigInput, verifyReceiptFile, type Receipt, type VerifyOptions } from '../src/receipts/index.ts';

const ISSUER = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex')));
const ACTOR = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', 'hex')));
const OPTIONS: VerifyOptions = { trustedIssuers: [ISSUER.keyref], now: 4_000_000_000, maxFindings: 100 };

/** Appends n Receipts (allowed gate + outcome pairs and denials) to a builder, calling sink for each. */
function build(n: number, sink: (r: Receipt) => void): void {
  let id = 0;
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer: ISSUER, actor: ACTOR, retain: false, nextId: () => `rcpt_${(++id).toString(36)}`, now: () => (t += 1) });
  while (id < n) {
    const k = id % 5;
    if (k === 4 || n - id === 1) {
      sink(b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: { amount: '0', unit: 'USD' } }).receipt);
      continue;
    }
    const g = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf({ id }), decision: { result: 'allowed' }, cost: { amount: '0.000123', unit: 'USD' } });
    sink(g.receipt);
    sink(b.appendOutcome(g.digest, { status: 'ok', outputDigest: digestOf({ out: id }), resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] }, cost: { amount: '0.000101', unit: 'USD' } }).receipt);
  }
}

/** CPU time of this process in seconds (user + system): robust against other processes on a shared machine. */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Full path vs raw noble verify over the same Receipts, interleaved in batches so that both see
 * the same machine conditions; rates are per CPU-second of this (single-threaded) process.
 */
function throughput(n: number, rounds: number, batch = 50) {
  const receipts: Receipt[] = [];
  build(n, (r) => receipts.push(r));
  const lines = receipts.map((r) => new TextEncoder().encode(canonicalString(r)));
  const pk = (decodeKeyref(ISSUER.keyref) as { ok: true; publicKey: Uint8Array }).publicKey;
  const raw = receipts.map((r) => ({ sig: (decodeBase64url(r.sig.val, 64) as { ok: true; bytes: Uint8Array }).bytes, msg: receiptSigInput(r as unknown as Record<string, unknown>) }));
  let rawCpu = 0;
  let fullCpu = 0;
  let rawWall = 0;
  let fullWall = 0;
  for (let round = 0; round < rounds; round++) {
    const v = new ChainVerifier(OPTIONS);
    for (let from = 0; from < n; from += batch) {
      const to = Math.min(n, from + batch);
      let c0 = cpuSeconds();
      let w0 = performance.now();
      for (let k = from; k < to; k++) {
        const x = raw[k] as { sig: Uint8Array; msg: Uint8Array };
        if (!ed25519.verify(x.sig, x.msg, pk, { zip215: false })) throw new Error('raw verify failed');
      }
      rawCpu += cpuSeconds() - c0;
      rawWall += performance.now() - w0;
      c0 = cpuSeconds();
      w0 = performance.now();
      for (let k = from; k < to; k++) v.push(lines[k] as Uint8Array);
      if (to === n) {
        const result = v.finish();
        if (!result.valid) throw new Error(`full verify found errors: ${JSON.stringify(result.errors.slice(0, 3))}`);
      }
      fullCpu += cpuSeconds() - c0;
      fullWall += performance.now() - w0;
    }
  }
  const total = n * rounds;
  const rawRate = total / rawCpu;
  const fullRate = total / fullCpu;
  return {
    receipts: n,
    rounds,
    clock: 'process CPU time (user+system), interleaved batches of 50',
    rawNobleVerifyPerSec: Math.round(rawRate),
    fullPathVerifyPerSec: Math.round(fullRate),
    ratio: Number((fullRate / rawRate).toFixed(3)),
    target: 0.6,
    wallClockRatio: Number((rawWall / fullWall).toFixed(3)),
  };
}

async function writeChainFileStreaming(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  let buffer: string[];
  const lines: string[] = [];
  let written = 0;
  // Build in slices so that memory during generation stays small.
  let id = 0;
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer: ISSUER, actor: ACTOR, retain: false, nextId: () => `rcpt_${(++id).toString(36)}`, now: () => (t += 1) });
  while (written < n) {
    const k = id % 5;
    if (k === 4 || n - written === 1) {
      lines.push(canonicalString(b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: { amount: '0', unit: 'USD' } }).receipt));
      written++;
    } else {
      const g = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf({ id }), decision: { result: 'allowed' }, cost: { amount: '0.000123', unit: 'USD' } });
      lines.push(canonicalString(g.receipt));
      lines.push(canonicalString(b.appendOutcome(g.digest, { status: 'ok', outputDigest: digestOf({ out: id }), resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] }, cost: { amount: '0.000101', unit: 'USD' } }).receipt));
      written += 2;
    }
    if (lines.length >= 2000) {
      buffer = lines.splice(0).map((l) => `${l}\n`);
      if (!out.write(buffer.join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  }
  if (lines.length > 0 && !out.write(lines.splice(0).map((l) => `${l}\n`).join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r) => out.end(r));
}

async function verifyOnly(path: string): Promise<void> {
  const t0 = performance.now();
  const result = await verifyReceiptFile(path, OPTIONS);
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(`${JSON.stringify({ count: result.count, valid: result.valid, errors: result.errors.length, seconds: Number(seconds.toFixed(1)), maxRssMiB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)) })}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { throughput: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' }, counts: { type: 'string', default: '1000000' }, 'child-heap-mib': { type: 'string' }, out: { type: 'string', default: 'reports/bench/receipts.json' }, 'verify-only': { type: 'string' } } });
  if (values['verify-only'] !== undefined) return verifyOnly(values['verify-only']);
  const tp = throughput(Number(values.throughput), Number(values.rounds));
  process.stdout.write(`throughput: full path ${tp.fullPathVerifyPerSec}/s vs raw noble verify ${tp.rawNobleVerifyPerSec}/s, ratio ${tp.ratio} (target >= 0.6)\n`);
  const dir = mkdtempSync(join(tmpdir(), 'iari-bench-receipts-'));
  const memory: { count: number; fileMiB: number; generateSeconds: number; verifySeconds: number; maxRssMiB: number; valid: boolean }[] = [];
  try {
    for (const count of values.counts.split(',').map(Number)) {
      const file = join(dir, `chain-${count}.jsonl`);
      const g0 = performance.now();
      await writeChainFileStreaming(file, count);
      const generateSeconds = Number(((performance.now() - g0) / 1000).toFixed(1));
      const heapFlag = values['child-heap-mib'] === undefined ? [] : [`--max-old-space-size=${values['child-heap-mib']}`];
      const child = spawnSync(process.execPath, [...heapFlag, '--import', 'tsx', fileURLToPath(import.meta.url), '--verify-only', file], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (child.status !== 0) throw new Error(`verifier child failed: ${child.stderr}`);
      const r = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as { count: number; valid: boolean; seconds: number; maxRssMiB: number };
      memory.push({ count: r.count, fileMiB: Number((statSync(file).size / 2 ** 20).toFixed(1)), generateSeconds, verifySeconds: r.seconds, maxRssMiB: r.maxRssMiB, valid: r.valid });
      process.stdout.write(`memory: ${r.count} receipts (${memory.at(-1)?.fileMiB} MiB file) verified in ${r.seconds} s, valid=${r.valid}, peak RSS ${r.maxRssMiB} MiB (target < 256 MiB at 1,000,000)\n`);
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const largest = memory.at(-1);
  let extrapolated: number | null = null;
  if (memory.length >= 2 && largest !== undefined && largest.count < 1_000_000) {
    const a = memory.at(-2) as (typeof memory)[number];
    const slope = (largest.maxRssMiB - a.maxRssMiB) / (largest.count - a.count);
    extrapolated = Number((largest.maxRssMiB + slope * (1_000_000 - largest.count)).toFixed(1));
    process.stdout.write(`memory: linear extrapolation from the two largest runs to 1,000,000 receipts: ${extrapolated} MiB (not measured)\n`);
  }
  const report = {
    benchmark: 'receipts',
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
    throughput: tp,
    memory,
    childHeapLimitMiB: values['child-heap-mib'] === undefined ? null : Number(values['child-heap-mib']),
    peakRssTargetMiB: 256,
    extrapolatedPeakRssMiBAt1M: extrapolated,
  };
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote ${values.out}\n`);
}

await main();
