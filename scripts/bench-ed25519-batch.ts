// Ed25519 batch verification against node:crypto's single verify (issue 41 item 3; run by hand):
//   npx tsx scripts/bench-ed25519-batch.ts [--batch 64] [--rounds 5] [--out reports/bench/ed25519-batch.json]
// A batch is checked the way Bernstein et al. 2012 ("High-speed high-security signatures", §5) and
// Chalkias, Garillot, Nikolaenko 2020 ("Taming the many EdDSAs", cofactored batch) describe:
//   [8]( [sum z_i S_i] B - sum [z_i] R_i - sum [z_i k_i] A_i ) = 0, z_i random 128-bit scalars,
// with @noble/curves' Pippenger multi-scalar multiplication (pure JS bigints). Each figure is CPU time
// of this thread per signature, in the same run, interleaved, so the machine's load cancels out.
import { createPublicKey, hash, randomBytes, sign, verify as nodeVerify, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { ed25519 } from '@noble/curves/ed25519.js';

const { values } = parseArgs({ options: { batch: { type: 'string', default: '64' }, rounds: { type: 'string', default: '5' }, out: { type: 'string', default: 'reports/bench/ed25519-batch.json' } } });
const n = Number(values.batch);
const rounds = Number(values.rounds);
const Point = ed25519.Point;
const L = Point.Fn.ORDER;
const le = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).reverse().toString('hex')}`);

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const pk = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
const keyObject = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pk]), format: 'der', type: 'spki' });
const msgs = Array.from({ length: n }, (_, i) => randomBytes(700 + (i % 7)));
const sigs: Uint8Array[] = msgs.map((m) => new Uint8Array(sign(null, m, privateKey)));

/** The cofactored batch equation; true when every signature in the batch verifies (probability 2^-128 of a wrong true). */
function batchVerify(): boolean {
  const A = Point.fromBytes(pk);
  const points: (typeof Point.BASE)[] = [];
  const scalars: bigint[] = [];
  let sB = 0n;
  let kA = 0n;
  for (let i = 0; i < n; i++) {
    const sig = sigs[i] as Uint8Array;
    const s = le(sig.subarray(32));
    if (s >= L) return false;
    const z = le(randomBytes(16));
    const k = le(hash('sha512', Buffer.concat([sig.subarray(0, 32), pk, msgs[i] as Uint8Array]), 'buffer')) % L;
    points.push(Point.fromBytes(sig.subarray(0, 32)));
    scalars.push(L - z);
    sB = (sB + z * s) % L;
    kA = (kA + z * k) % L;
  }
  points.push(Point.BASE, A);
  scalars.push(sB, (L - kA) % L);
  return pippenger(Point, points, scalars).clearCofactor().is0();
}

function singles(): boolean {
  for (let i = 0; i < n; i++) if (!nodeVerify(null, msgs[i] as Uint8Array, keyObject, sigs[i] as Uint8Array)) return false;
  return true;
}

const cpu = () => process.threadCpuUsage().user + process.threadCpuUsage().system;
function timed(f: () => boolean): number {
  const c0 = cpu();
  if (!f()) throw new Error('a valid batch did not verify');
  return cpu() - c0;
}
// A forged signature must fail the batch (the check can fail).
const saved = sigs[3] as Uint8Array;
sigs[3] = Uint8Array.from(saved, (b, i) => (i === 40 ? b ^ 1 : b));
if (batchVerify()) throw new Error('a batch with one bad signature verified');
sigs[3] = saved;
timed(batchVerify);
timed(singles);
const batchUs: number[] = [];
const singleUs: number[] = [];
for (let r = 0; r < rounds; r++) {
  batchUs.push(timed(batchVerify) / n);
  singleUs.push(timed(singles) / n);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const report = {
  benchmark: 'ed25519-batch', date: new Date().toISOString(), node: process.version, openssl: process.versions.openssl, batch: n, rounds,
  clock: 'CPU time of this thread, µs per signature, interleaved rounds',
  nobleBatchUsPerSig: Number(median(batchUs).toFixed(1)), nodeSingleUsPerSig: Number(median(singleUs).toFixed(1)),
  ratio: Number((median(batchUs) / median(singleUs)).toFixed(2)), batchRounds: batchUs.map(Math.round), singleRounds: singleUs.map(Math.round), loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
};
process.stdout.write(`batch of ${n}: @noble/curves cofactored batch ${report.nobleBatchUsPerSig} µs/signature, node:crypto single verify ${report.nodeSingleUsPerSig} µs/signature (CPU, median of ${rounds}); the batch costs ${report.ratio}x; load ${report.loadAverage1m}\n`);
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
