// What `iari report compare`'s gates decide between runs of one configuration (A/A: a trip is a
// false alarm, a hold is a claim, an inconclusive is honest) and between a slower and a faster
// first token (A/B: a hold would pass a regression). Two bundled mocks run on loopback: A with
// --ttft-a (default 40 ms) and B with --ttft-b (default 60 ms). Each run is `iari load` at its
// defaults (closed loop, concurrency 8) for --duration (default 10s), in this process. Every load
// row gets a gate (latencies KEY>+10%, rates KEY<-10%, errors.rate>+0.5pp, goodput.fraction<-0.5pp)
// and each gate's outcome is counted; --calibrate N first runs N identical A runs and compares
// every pair with --noise-floors from them (iari report noise), a second set of figures.
// Prints a table and writes reports/bench/compare-fp.json. --keep DIR keeps the runs; --from DIR
// analyses kept runs again without traffic (a{i}x, a{i}y, r{i}x, r{i}y, cal{i}).
//
//   npx tsx scripts/compare-false-positives.ts [--pairs 20] [--regressions 5] [--duration 10s]
//     [--ttft-a 40] [--ttft-b 60] [--calibrate 5] [--keep DIR | --from DIR]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readSide } from '../src/compare/compare-inputs.ts';
import { calibrate, type NoiseCalibration } from '../src/compare/noise-calibration.ts';
import { finish, LoadSampler, quietLoad, root, rowOutcomes, RowTallies, startMock, tally } from './compare-bench.ts';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string' },
    regressions: { type: 'string' },
    duration: { type: 'string' },
    'ttft-a': { type: 'string' },
    'ttft-b': { type: 'string' },
    calibrate: { type: 'string' },
    keep: { type: 'string' },
    from: { type: 'string' },
  },
});
const pairs = Math.min(50, Number(values.pairs ?? 20));
const regressions = Math.min(20, Number(values.regressions ?? 5));
const calibrationRuns = Math.min(20, Number(values.calibrate ?? 0));
const duration = values.duration ?? '10s';
const ttftA = Number(values['ttft-a'] ?? 40);
const ttftB = Number(values['ttft-b'] ?? 60);
const token = 'iari_sk_compare_fp_local_0001';
const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-fp-'));
if (values.keep !== undefined) mkdirSync(values.keep, { recursive: true });
process.env['IARI_TOKEN'] = token;
process.env['GITHUB_ACTIONS'] = '';

function load(port: number, name: string): Promise<string> {
  if (values.from !== undefined) return Promise.resolve(join(values.from, name));
  return quietLoad(['--base-url', `http://127.0.0.1:${port}/v1`, '--duration', duration], join(tmp, name));
}

const outcomes = (x: string, y: string, calibration: NoiseCalibration | null): ReturnType<typeof rowOutcomes> => rowOutcomes(readSide(x), readSide(y), calibration);

const started = Date.now();
const sampler = new LoadSampler();
const a = values.from === undefined ? await startMock(18801, ttftA, token) : null;
const b = values.from === undefined ? await startMock(18802, ttftB, token) : null;
try {
  let calibration: NoiseCalibration | null = null;
  const calDirs: string[] = [];
  for (let i = 0; i < calibrationRuns; i++) calDirs.push(await load(18801, `cal${i}`));
  if (calDirs.length > 0) calibration = calibrate(calDirs.map((d) => readSide(d).load).filter((l) => l !== null));
  const modes = calibration === null ? ([['within runs', null]] as const) : ([['within runs', null], ['with --noise-floors', calibration]] as const);
  const aa = modes.map(() => ({ rows: new RowTallies(), ttftP95: tally() }));
  for (let i = 0; i < pairs; i++) {
    const x = await load(18801, `a${i}x`);
    const y = await load(18801, `a${i}y`);
    const line = modes.map(([name, cal], m) => {
      const s = aa[m]!;
      const o = outcomes(x, y, cal);
      const trips = s.rows.add(o);
      const p95 = o.get('ttft.p95')?.outcome ?? 'inconclusive';
      s.ttftP95[p95]++;
      return `${name}: ttft.p95 ${p95}, ${trips.length === 0 ? 'no row tripped' : `tripped ${trips.join(', ')}`}`;
    });
    process.stdout.write(`A/A pair ${i + 1}/${pairs}: ${line.join('; ')}\n`);
    finish(x, values);
    finish(y, values);
  }
  const ab = modes.map(() => ({ ttftP95: tally(), ttftP50: tally() }));
  for (let i = 0; i < regressions; i++) {
    const x = await load(18801, `r${i}x`);
    const y = await load(18802, `r${i}y`);
    const line = modes.map(([name, cal], m) => {
      const o = outcomes(x, y, cal);
      const p95 = o.get('ttft.p95')?.outcome ?? 'inconclusive';
      const p50 = o.get('ttft.p50')?.outcome ?? 'inconclusive';
      ab[m]!.ttftP95[p95]++;
      ab[m]!.ttftP50[p50]++;
      return `${name}: ttft.p50>+10% ${p50}, ttft.p95>+10% ${p95}`;
    });
    process.stdout.write(`A/B pair ${i + 1}/${regressions}: ${line.join('; ')}\n`);
    finish(x, values);
    finish(y, values);
  }
  for (const d of calDirs) finish(d, values);
  const figures = {
    pairs,
    regressions,
    duration,
    ttftA,
    ttftB,
    calibrationRuns,
    modes: modes.map(([name], m) => {
      const t = aa[m]!.rows.toJSON() as { withAnyTrip: number; perRow: object; inconclusiveReasons: object };
      return { name, aa: { pairsWithTrip: t.withAnyTrip, ttftP95: aa[m]!.ttftP95, perRow: t.perRow, inconclusiveReasons: t.inconclusiveReasons }, ab: ab[m] };
    }),
    wallS: Math.round((Date.now() - started) / 1000),
    loadavg1m: sampler.stop(),
  };
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  writeFileSync(join(root, 'reports/bench/compare-fp.json'), `${JSON.stringify(figures, null, 2)}\n`);
  modes.forEach(([name], m) => {
    const rows = aa[m]!.rows;
    const sum = rows.total();
    process.stdout.write(`\n${name}: ${pairs} A/A pairs (--ttft ${ttftA}, ${duration}), a gate on each of ${rows.perRow.size} rows\n`);
    process.stdout.write(`  gates tripped ${sum.trip}, held ${sum.hold}, inconclusive ${sum.inconclusive}; pairs with any row tripped: ${rows.withTrip}/${pairs}\n`);
    process.stdout.write(`  ttft.p95>+10%: tripped ${aa[m]!.ttftP95.trip}, held ${aa[m]!.ttftP95.hold}, inconclusive ${aa[m]!.ttftP95.inconclusive}\n`);
    process.stdout.write(`  inconclusive by reason: ${[...rows.reasons].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
    for (const [k, v] of [...rows.perRow].filter(([, v]) => v.trip > 0)) process.stdout.write(`  tripped: ${k} ${v.trip}/${pairs}\n`);
    if (regressions > 0) process.stdout.write(`  A/B (--ttft ${ttftA} -> ${ttftB}, ${regressions} pairs): ttft.p50>+10% trip ${ab[m]?.ttftP50.trip} hold ${ab[m]?.ttftP50.hold} inconclusive ${ab[m]?.ttftP50.inconclusive}; ttft.p95>+10% trip ${ab[m]?.ttftP95.trip} hold ${ab[m]?.ttftP95.hold} inconclusive ${ab[m]?.ttftP95.inconclusive}\n`);
  });
  process.stdout.write(`wall ${figures.wallS} s; load average (1 min) min ${figures.loadavg1m.min}, mean ${figures.loadavg1m.mean}, max ${figures.loadavg1m.max}; reports/bench/compare-fp.json\n`);
} finally {
  a?.kill('SIGTERM');
  b?.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
