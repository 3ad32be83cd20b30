// Receipt verifier benchmark (run by hand, not by npm test):
//   npx tsx scripts/bench-receipts.ts [--throughput 3000] [--rounds 3] [--parallel 50000] [--parallel-rounds 3]
//                                     [--baseline OTHER/dist] [--counts 1000000] [--startup-runs 7] [--out reports/bench/receipts.json]
// Every figure is set beside the machine's own Ed25519 limit measured in the same run:
// 1. Single thread: Receipts verified per CPU-second through the full path (strict read, schema, JCS,
//    digest, Ed25519, chain state) beside node:crypto's raw verify loop over the same signature inputs
//    (interleaved batches; ratio target >= 0.7), with `openssl speed ed25519`'s single-core verify rate.
// 2. --jobs 2: Receipts per wall-second verifying a generated file with two worker threads, beside
//    node:crypto's raw verify rate on one thread and on two threads at once, in interleaved rounds
//    (target >= 1.2 of the single-thread rate), with the CPU-time bound (scripts/bench-receipts-parallel.ts).
// 3. Peak RSS of `node bin/iari.js receipts verify` (compiled; a tsx child without dist/) on a generated
//    file of each size in --counts (target < 256 MiB at 1,000,000), with the default --jobs (the cores).
// 4. Start-up: wall time of `iari receipts verify` on a 10-Receipt file, compiled (node bin/iari.js,
//    needs `npm run build`) and from source (node --import tsx src/cli/entry.ts); target < 300 ms.
import { execFileSync, spawnSync } from 'node:child_process';
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parallelRounds } from './bench-receipts-parallel.ts';
import { ChainBuilder, ChainVerifier, Ed25519Key, canonicalString, digestOf, receiptSigInput, verifyReceiptFile, type Receipt, type VerifyOptions } from '../src/receipts/index.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ISSUER = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex')));
const ACTOR = Ed25519Key.fromSeed(new Uint8Array(Buffer.from('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', 'hex')));
const OPTIONS: VerifyOptions = { trustedIssuers: [ISSUER.keyref], now: 4_000_000_000, maxFindings: 100 };
const SPKI = new Uint8Array(Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), ISSUER.publicKey]));
const KEY = createPublicKey({ key: Buffer.from(SPKI), format: 'der', type: 'spki' });

/** Appends Receipts (allowed gate + outcome pairs and denials, ids like the mock's) until n, calling sink for each. */
function build(n: number, sink: (r: Receipt) => void): void {
  let count = 0;
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer: ISSUER, actor: ACTOR, retain: false, now: () => (t += 1) });
  while (count < n) {
    if (count % 5 === 4 || n - count === 1) {
      sink(b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: { amount: '0', unit: 'USD' } }).receipt);
      count++;
      continue;
    }
    const g = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf({ count }), decision: { result: 'allowed' }, cost: { amount: '0.000123', unit: 'USD' } });
    sink(g.receipt);
    sink(b.appendOutcome(g.digest, { status: 'ok', outputDigest: digestOf({ out: count }), resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] }, cost: { amount: '0.000101', unit: 'USD' } }).receipt);
    count += 2;
  }
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function rawInputs(receipts: Receipt[]) {
  return receipts.map((r) => ({ sig: Buffer.from(r.sig.val, 'base64url'), msg: receiptSigInput(r as unknown as Record<string, unknown>) }));
}

function rawLoop(raw: { sig: Buffer; msg: Uint8Array }[], from: number, to: number): void {
  for (let k = from; k < to; k++) {
    const x = raw[k] as { sig: Buffer; msg: Uint8Array };
    if (!nodeVerify(null, x.msg, KEY, x.sig)) throw new Error('raw verify failed');
  }
}

/** Full path vs node:crypto's raw verify over the same Receipts, interleaved in batches; per CPU-second of this thread. */
function singleThread(n: number, rounds: number, batch = 50) {
  const receipts: Receipt[] = [];
  build(n, (r) => receipts.push(r));
  const lines = receipts.map((r) => Buffer.from(canonicalString(r)));
  const raw = rawInputs(receipts);
  let rawCpu = 0;
  let fullCpu = 0;
  for (let round = 0; round <= rounds; round++) {
    const v = new ChainVerifier(OPTIONS);
    for (let from = 0; from < n; from += batch) {
      const to = Math.min(n, from + batch);
      let c0 = cpuSeconds();
      rawLoop(raw, from, to);
      const rawDt = cpuSeconds() - c0;
      c0 = cpuSeconds();
      for (let k = from; k < to; k++) v.push(lines[k] as Uint8Array);
      if (to === n) {
        const result = v.finish();
        if (!result.valid) throw new Error(`full verify found errors: ${JSON.stringify(result.errors.slice(0, 3))}`);
      }
      // Round 0 warms the JIT and is not counted.
      if (round > 0) {
        rawCpu += rawDt;
        fullCpu += cpuSeconds() - c0;
      }
    }
  }
  const total = n * rounds;
  return { receipts: n, rounds, clock: 'CPU time of this thread, interleaved batches of 50', rawNodeVerifyPerSec: Math.round(total / rawCpu), fullPathPerSec: Math.round(total / fullCpu), ratio: Number((rawCpu / fullCpu).toFixed(3)), target: 0.7 };
}

/** `openssl speed ed25519`: single-core verify/s (null when openssl is not installed). */
function opensslSpeed(seconds: number): number | null {
  try {
    const out = execFileSync('openssl', ['speed', '-seconds', String(seconds), 'ed25519'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
    const m = /253 bits EdDSA \(Ed25519\)\s+\S+s\s+\S+s\s+\S+\s+([0-9.]+)/.exec(out);
    return m === null ? null : Math.round(Number(m[1]));
  } catch {
    return null;
  }
}

async function writeChain(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  let lines: string[] = [];
  const flush = async () => {
    if (!out.write(lines.join(''))) await new Promise<void>((r) => out.once('drain', () => r()));
    lines = [];
  };
  const pending: string[] = [];
  build(n, (r) => pending.push(`${canonicalString(r)}\n`));
  for (let k = 0; k < pending.length; k++) {
    lines.push(pending[k] as string);
    if (lines.length >= 2000) await flush();
  }
  await flush();
  await new Promise<void>((r) => out.end(r));
}

/** Streams a chain of n Receipts to a file without holding it (for the memory runs). */
async function writeChainStreaming(path: string, n: number): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let buf: string[] = [];
  const writes: Promise<void>[] = [];
  let drained: Promise<void> = Promise.resolve();
  let count = 0;
  let t = 1_700_000_000;
  const b = new ChainBuilder({ issuer: ISSUER, actor: ACTOR, retain: false, now: () => (t += 1) });
  const sink = (r: Receipt) => buf.push(`${canonicalString(r)}\n`);
  while (count < n) {
    if (count % 5 === 4 || n - count === 1) {
      sink(b.appendGate({ resource: 'gpt-4o-mini', decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'monthly spend cap reached' }, cost: { amount: '0', unit: 'USD' } }).receipt);
      count++;
    } else {
      const g = b.appendGate({ resource: 'gpt-4o-mini', inputDigest: digestOf({ count }), decision: { result: 'allowed' }, cost: { amount: '0.000123', unit: 'USD' } });
      sink(g.receipt);
      sink(b.appendOutcome(g.digest, { status: 'ok', outputDigest: digestOf({ out: count }), resolved: { provider: 'mock', model: 'gpt-4o-mini', boundary: ['default'] }, cost: { amount: '0.000101', unit: 'USD' } }).receipt);
      count += 2;
    }
    if (buf.length >= 2000) {
      await drained;
      if (!out.write(buf.join(''))) drained = new Promise<void>((r) => out.once('drain', () => r()));
      buf = [];
    }
  }
  await drained;
  out.write(buf.join(''));
  void writes;
  await new Promise<void>((r) => out.end(r));
}

async function verifyOnly(path: string, jobs: number | undefined): Promise<void> {
  const t0 = performance.now();
  const result = await verifyReceiptFile(path, { ...OPTIONS, ...(jobs === undefined ? {} : { jobs }) });
  const seconds = (performance.now() - t0) / 1000;
  process.stdout.write(`${JSON.stringify({ count: result.count, valid: result.valid, errors: result.errors.length, seconds: Number(seconds.toFixed(1)), cpuSeconds: Number(cpuSeconds().toFixed(1)), maxRssMiB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)) })}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Wall time of `iari receipts verify` on a 10-Receipt file, compiled and from source. */
async function startup(dir: string, runs: number) {
  const file = join(dir, 'chain-10.jsonl');
  await writeChain(file, 10);
  const args = ['receipts', 'verify', file, '--trust', ISSUER.keyref];
  // CPU time (user + system) of the child as well, from /usr/bin/time where it exists: on a shared,
  // loaded machine the wall time says more about the other processes than about iari.
  const usrBinTime = existsSync('/usr/bin/time');
  const cpuMs: Record<string, number[]> = { compiled: [], source: [], bare: [] };
  const time = (label: string, argv: string[]) => {
    const t0 = performance.now();
    const r = usrBinTime ? spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, ...argv], { cwd: ROOT, encoding: 'utf8' }) : spawnSync(process.execPath, argv, { cwd: ROOT, encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    const m = /CPU ([0-9.]+) ([0-9.]+)\s*$/.exec(r.stderr);
    if (m !== null) cpuMs[label]?.push((Number(m[1]) + Number(m[2])) * 1000);
    return ms;
  };
  const compiledEntry = join(ROOT, 'dist/src/cli/entry.js');
  const compiled = existsSync(compiledEntry) ? Array.from({ length: runs }, () => time('compiled', [join(ROOT, 'bin/iari.js'), ...args])) : null;
  const source = Array.from({ length: runs }, () => time('source', ['--import', 'tsx', join(ROOT, 'src/cli/entry.ts'), ...args]));
  const bare = Array.from({ length: runs }, () => time('bare', ['-e', '0']));
  const cpu = (label: string) => ((cpuMs[label]?.length ?? 0) > 0 ? Math.round(median(cpuMs[label] as number[])) : null);
  return { runs, compiledMedianMs: compiled === null ? null : Math.round(median(compiled)), sourceMedianMs: Math.round(median(source)), nodeStartMedianMs: Math.round(median(bare)), compiledCpuMedianMs: cpu('compiled'), sourceCpuMedianMs: cpu('source'), nodeStartCpuMedianMs: cpu('bare'), target: 300, compiledMs: compiled?.map(Math.round) ?? null, sourceMs: source.map(Math.round) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      throughput: { type: 'string', default: '3000' },
      rounds: { type: 'string', default: '3' },
      parallel: { type: 'string', default: '50000' },
      'parallel-rounds': { type: 'string', default: '3' },
      baseline: { type: 'string' },
      counts: { type: 'string', default: '1000000' },
      'startup-runs': { type: 'string', default: '7' },
      'openssl-seconds': { type: 'string', default: '3' },
      out: { type: 'string', default: 'reports/bench/receipts.json' },
      'verify-only': { type: 'string' },
      jobs: { type: 'string' },
      skip: { type: 'string', default: '' },
    },
  });
  if (values['verify-only'] !== undefined) return verifyOnly(values['verify-only'], values.jobs === undefined ? undefined : Number(values.jobs));
  const skip = new Set(values.skip.split(',').filter((s) => s !== ''));
  const load = () => Number((loadavg()[0] ?? 0).toFixed(2));
  const report: Record<string, unknown> = { benchmark: 'receipts', date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage1mAtStart: load() };
  const dir = mkdtempSync(join(tmpdir(), 'iari-bench-receipts-'));
  try {
    if (!skip.has('single')) {
      const openssl = opensslSpeed(Number(values['openssl-seconds']));
      const st = singleThread(Number(values.throughput), Number(values.rounds));
      report['singleThread'] = { ...st, opensslSpeedVerifyPerSec: openssl, ratioToOpenssl: openssl === null ? null : Number((st.fullPathPerSec / openssl).toFixed(3)), loadAverage1m: load() };
      process.stdout.write(`single thread: full path ${st.fullPathPerSec}/s, node:crypto raw verify ${st.rawNodeVerifyPerSec}/s (same run), ratio ${st.ratio} (target >= 0.7); openssl speed ed25519 ${openssl ?? 'n/a'} verify/s; load ${load()}\n`);
    }
    if (!skip.has('parallel')) {
      const n = Number(values.parallel);
      const file = join(dir, `chain-${n}.jsonl`);
      await writeChain(file, n);
      const receipts: Receipt[] = [];
      build(Math.min(n, 5000), (r) => receipts.push(r));
      const p = await parallelRounds({ file, n, raw: rawInputs(receipts), spki: SPKI, options: OPTIONS, rounds: Number(values['parallel-rounds']), dist: join(ROOT, 'dist'), fallback: verifyReceiptFile, baseline: values.baseline, load });
      rmSync(file, { force: true });
      report['parallel'] = { ...p, loadAverage1m: load() };
      const m = p.median;
      process.stdout.write(`--jobs 2 (median of ${p.rounds.length}): ${m['jobs2PerSec']}/s wall = ${m['ratioJobs2']}x node:crypto's single-core verify rate (target >= 1.2), ${m['ratioJobs2ToRaw2']}x its 2-thread rate; CPU bound ${m['ratioJobs2CpuBound']}x; --jobs 1 ${m['ratioJobs1']}x; load ${load()}\n`);
    }
    if (!skip.has('startup')) {
      const s = await startup(dir, Number(values['startup-runs']));
      report['startup'] = { ...s, loadAverage1m: load() };
      process.stdout.write(`start-up, 10 Receipts: compiled ${s.compiledMedianMs ?? 'n/a (npm run build)'} ms wall / ${s.compiledCpuMedianMs ?? '?'} ms CPU, from source (tsx) ${s.sourceMedianMs} / ${s.sourceCpuMedianMs ?? '?'} ms, bare node ${s.nodeStartMedianMs} / ${s.nodeStartCpuMedianMs ?? '?'} ms (median of ${s.runs}; target < 300 ms wall); load ${load()}\n`);
    }
    if (!skip.has('memory')) {
      const memory: Record<string, unknown>[] = [];
      for (const count of values.counts.split(',').map(Number)) {
        const file = join(dir, `chain-${count}.jsonl`);
        const g0 = performance.now();
        await writeChainStreaming(file, count);
        const generateSeconds = Number(((performance.now() - g0) / 1000).toFixed(1));
        const jobsArg = values.jobs === undefined ? [] : ['--jobs', values.jobs];
        // What a user runs: the compiled CLI under /usr/bin/time (peak RSS, CPU); else a tsx child (tsx adds its own memory).
        const compiled = existsSync(join(ROOT, 'dist/src/cli/entry.js')) && existsSync('/usr/bin/time');
        let r: { count: number; valid: boolean; seconds: number; cpuSeconds: number; maxRssMiB: number };
        if (compiled) {
          const child = spawnSync('/usr/bin/time', ['-f', 'BENCH %M %U %S %e', process.execPath, join(ROOT, 'bin/iari.js'), 'receipts', 'verify', file, '--trust', ISSUER.keyref, ...jobsArg], { encoding: 'utf8', maxBuffer: 1 << 20 });
          const m = /BENCH (\d+) ([0-9.]+) ([0-9.]+) ([0-9.]+)\s*$/.exec(child.stderr);
          const c = /VALID\s+(\d+) receipts/.exec(child.stdout);
          if (child.status !== 0 || m === null || c === null) throw new Error(`iari receipts verify failed (${child.status}): ${child.stdout}${child.stderr}`);
          r = { count: Number(c[1]), valid: true, seconds: Number(m[4]), cpuSeconds: Number((Number(m[2]) + Number(m[3])).toFixed(1)), maxRssMiB: Number((Number(m[1]) / 1024).toFixed(1)) };
        } else {
          const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--verify-only', file, ...jobsArg], { encoding: 'utf8', maxBuffer: 1 << 20 });
          if (child.status !== 0) throw new Error(`verifier child failed: ${child.stderr}`);
          r = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as typeof r;
        }
        memory.push({ count: r.count, jobs: values.jobs === undefined ? cpus().length : Number(values.jobs), runner: compiled ? 'node bin/iari.js receipts verify (compiled)' : 'tsx child', fileMiB: Number((statSync(file).size / 2 ** 20).toFixed(1)), generateSeconds, verifySeconds: r.seconds, cpuSeconds: r.cpuSeconds, perSec: Math.round(r.count / r.seconds), perCpuSec: Math.round(r.count / r.cpuSeconds), maxRssMiB: r.maxRssMiB, valid: r.valid, loadAverage1m: load() });
        process.stdout.write(`memory: ${r.count} Receipts (${memory.at(-1)?.['fileMiB']} MiB file) verified in ${r.seconds} s wall / ${r.cpuSeconds} s CPU (${compiled ? 'compiled CLI' : 'tsx'}), valid=${r.valid}, peak RSS ${r.maxRssMiB} MiB (target < 256 MiB at 1,000,000); load ${load()}\n`);
        rmSync(file, { force: true });
      }
      report['memory'] = memory;
      report['peakRssTargetMiB'] = 256;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote ${values.out}\n`);
}

await main();
