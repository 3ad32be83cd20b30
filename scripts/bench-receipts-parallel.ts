// The --jobs section of scripts/bench-receipts.ts (issue 41 item 3): in one run and interleaved, for
// each round, node:crypto's raw Ed25519 verify loop on one thread, the same loop on two worker threads
// at once (the machine's raw 2-core rate), and `verifyReceiptFile` with --jobs 1 and --jobs 2 on a
// generated chain (and, with --baseline DIST, the same two from another build's dist/, for a
// before/after in one run). Wall rates say what this run got; on a shared machine the verifier may
// hold less than its 2 cores, so CPU figures (this thread's clock, process.threadCpuUsage) say what it
// would reach with them: a run cannot end before its main thread's CPU time, nor before the whole
// process's CPU time spread over 2 cores; that bound is set beside the raw rate per CPU-second.
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { verifyReceiptFile as VerifyFile, VerifyOptions } from '../src/receipts/index.ts';

export interface RawInput {
  sig: Uint8Array;
  msg: Uint8Array;
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const threadMicros = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

/** node:crypto's verify over the inputs on this thread: per wall-second and per CPU-second of this thread. */
function rawSingle(raw: readonly RawInput[], spki: Uint8Array): { wall: number; cpu: number } {
  const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  for (let k = 0; k < 200; k++) nodeVerify(null, (raw[k % raw.length] as RawInput).msg, key, (raw[k % raw.length] as RawInput).sig);
  const t0 = performance.now();
  const c0 = threadMicros();
  for (const x of raw) if (!nodeVerify(null, x.msg, key, x.sig)) throw new Error('raw verify failed');
  return { wall: raw.length / ((performance.now() - t0) / 1000), cpu: raw.length / ((threadMicros() - c0) / 1e6) };
}

const RAW_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createPublicKey, verify } = require('node:crypto');
const key = createPublicKey({ key: Buffer.from(workerData.spki), format: 'der', type: 'spki' });
const raw = workerData.raw;
for (let k = 0; k < 200; k++) verify(null, raw[k % raw.length].msg, key, raw[k % raw.length].sig);
parentPort.once('message', () => {
  for (const x of raw) if (!verify(null, x.msg, key, x.sig)) throw new Error('raw verify failed');
  parentPort.postMessage('done');
});
parentPort.postMessage('ready');
`;

/** The same loop on `threads` worker threads at once (started and warmed first, then told to go): verifies per wall-second in all. */
async function rawThreads(raw: readonly RawInput[], spki: Uint8Array, threads: number): Promise<number> {
  const workers = Array.from({ length: threads }, () => new Worker(RAW_WORKER, { eval: true, workerData: { raw, spki } }));
  try {
    await Promise.all(workers.map((w) => new Promise<void>((resolve, reject) => {
      w.once('error', reject);
      w.once('message', () => resolve());
    })));
    const t0 = performance.now();
    await Promise.all(workers.map((w) => {
      const done = new Promise<void>((resolve) => w.once('message', () => resolve()));
      w.postMessage('go');
      return done;
    }));
    return (threads * raw.length) / ((performance.now() - t0) / 1000);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

interface VerifierRun {
  perSec: number;
  cpuSeconds: number;
  mainThreadCpuSeconds: number;
  cpuBoundPerSec: number;
}

async function timed(verify: typeof VerifyFile, file: string, n: number, options: VerifyOptions, jobs: number): Promise<VerifierRun> {
  const t0 = performance.now();
  const c0 = cpuMicros();
  const m0 = threadMicros();
  const r = await verify(file, { ...options, jobs });
  if (!r.valid || r.count !== n) throw new Error(`--jobs ${jobs}: ${JSON.stringify(r.errors.slice(0, 3))}`);
  const wall = (performance.now() - t0) / 1000;
  const cpu = (cpuMicros() - c0) / 1e6;
  const main = (threadMicros() - m0) / 1e6;
  return { perSec: n / wall, cpuSeconds: cpu, mainThreadCpuSeconds: main, cpuBoundPerSec: n / Math.max(cpu / jobs, main) };
}

async function verifierOf(dist: string): Promise<typeof VerifyFile> {
  const compiled = join(dist, 'src/receipts/index.js');
  if (!existsSync(compiled)) throw new Error(`${compiled} does not exist (npm run build)`);
  return ((await import(compiled)) as { verifyReceiptFile: typeof VerifyFile }).verifyReceiptFile;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const r3 = (x: number) => Number(x.toFixed(3));

/**
 * Rounds of: raw 1 thread, raw 2 threads, this build's --jobs 2 and --jobs 1 (and the baseline's),
 * interleaved so that each ratio compares figures taken under the same load.
 */
export async function parallelRounds(args: { file: string; n: number; raw: readonly RawInput[]; spki: Uint8Array; options: VerifyOptions; rounds: number; dist: string | null; fallback: typeof VerifyFile; baseline: string | undefined; load: () => number }) {
  // The compiled verifier when dist/ exists (what `iari receipts verify` runs): from source every
  // worker thread compiles the TypeScript again through tsx, which is not the product's cost.
  const verify = args.dist !== null && existsSync(join(args.dist, 'src/receipts/index.js')) ? await verifierOf(args.dist) : args.fallback;
  const baseline = args.baseline === undefined ? undefined : await verifierOf(args.baseline);
  const rounds: Record<string, number | null>[] = [];
  for (let round = 0; round < args.rounds; round++) {
    const raw1 = rawSingle(args.raw, args.spki);
    const raw2 = await rawThreads(args.raw, args.spki, 2);
    const jobs2 = await timed(verify, args.file, args.n, args.options, 2);
    const jobs1 = await timed(verify, args.file, args.n, args.options, 1);
    const base2 = baseline === undefined ? undefined : await timed(baseline, args.file, args.n, args.options, 2);
    const base1 = baseline === undefined ? undefined : await timed(baseline, args.file, args.n, args.options, 1);
    const row: Record<string, number | null> = {
      rawSingleWallPerSec: Math.round(raw1.wall), rawSingleCpuPerSec: Math.round(raw1.cpu), raw2ThreadsWallPerSec: Math.round(raw2),
      jobs2PerSec: Math.round(jobs2.perSec), jobs1PerSec: Math.round(jobs1.perSec),
      ratioJobs2: r3(jobs2.perSec / raw1.wall), ratioJobs2ToRaw2: r3(jobs2.perSec / raw2), ratioJobs1: r3(jobs1.perSec / raw1.wall),
      jobs2CpuSeconds: r3(jobs2.cpuSeconds), jobs2MainThreadCpuSeconds: r3(jobs2.mainThreadCpuSeconds), jobs1CpuSeconds: r3(jobs1.cpuSeconds),
      jobs2CpuUsPerReceipt: Number(((jobs2.cpuSeconds * 1e6) / args.n).toFixed(1)), jobs2MainThreadUsPerReceipt: Number(((jobs2.mainThreadCpuSeconds * 1e6) / args.n).toFixed(1)),
      ratioJobs2CpuBound: r3(jobs2.cpuBoundPerSec / raw1.cpu), ratioJobs1Cpu: r3(args.n / jobs1.cpuSeconds / raw1.cpu),
      baselineJobs2PerSec: base2 === undefined ? null : Math.round(base2.perSec), baselineRatioJobs2: base2 === undefined ? null : r3(base2.perSec / raw1.wall),
      baselineJobs2CpuUsPerReceipt: base2 === undefined ? null : Number(((base2.cpuSeconds * 1e6) / args.n).toFixed(1)), baselineRatioJobs2CpuBound: base2 === undefined ? null : r3(base2.cpuBoundPerSec / raw1.cpu),
      baselineJobs1PerSec: base1 === undefined ? null : Math.round(base1.perSec), baselineJobs1CpuSeconds: base1 === undefined ? null : r3(base1.cpuSeconds),
      loadAverage1m: args.load(),
    };
    rounds.push(row);
    process.stdout.write(`round ${round + 1}: raw 1 thread ${row['rawSingleWallPerSec']}/s (${row['rawSingleCpuPerSec']}/CPU-s), raw 2 threads ${row['raw2ThreadsWallPerSec']}/s; --jobs 2 ${row['jobs2PerSec']}/s = ${row['ratioJobs2']}x raw 1 thread, ${row['ratioJobs2ToRaw2']}x raw 2 threads; ${row['jobs2CpuUsPerReceipt']} µs CPU a Receipt (main thread ${row['jobs2MainThreadUsPerReceipt']}), CPU bound ${row['ratioJobs2CpuBound']}x; --jobs 1 ${row['jobs1PerSec']}/s = ${row['ratioJobs1']}x${base2 === undefined ? '' : `; baseline --jobs 2 ${row['baselineJobs2PerSec']}/s = ${row['baselineRatioJobs2']}x, ${row['baselineJobs2CpuUsPerReceipt']} µs CPU, CPU bound ${row['baselineRatioJobs2CpuBound']}x`}; load ${row['loadAverage1m']}\n`);
  }
  const med = (key: string) => {
    const xs = rounds.map((r) => r[key]).filter((x): x is number => typeof x === 'number');
    return xs.length === 0 ? null : median(xs);
  };
  const keys = Object.keys(rounds[0] ?? {});
  return { receipts: args.n, verifier: verify === args.fallback ? 'source (tsx)' : 'compiled (dist/)', baseline: args.baseline ?? null, target: 1.2, median: Object.fromEntries(keys.map((k) => [k, med(k)])), rounds };
}
