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
import { run as runLoadCommand } from '../src/cli/load-command.ts';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { readSide } from '../src/compare/compare-inputs.ts';
import { buildComparison } from '../src/compare/compare-report.ts';
import { evaluateGates, runContext, type GateOutcome } from '../src/compare/gate-outcome.ts';
import { parseGate } from '../src/compare/gates.ts';
import { root, rowGate, startMock } from './compare-bench.ts';
import { calibrate, type NoiseCalibration } from '../src/compare/noise-calibration.ts';

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

// --keep DIR keeps every run's directory (load.json, requests.ndjson) for re-analysis offline.
function done(dir: string): void {
  if (values.from !== undefined) return;
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
  else renameSync(dir, join(values.keep, basename(dir)));
}


async function load(port: number, name: string): Promise<string> {
  if (values.from !== undefined) return join(values.from, name);
  const dir = join(tmp, name);
  // One retry: on a shared machine a run can fail for reasons of its own.
  for (let attempt = 1; ; attempt++) {
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    let code: number;
    try {
      code = await runLoadCommand(['--base-url', `http://127.0.0.1:${port}/v1`, '--quiet', '--duration', duration, '--report', dir]);
    } finally {
      process.stdout.write = write;
    }
    if (code === 0) return dir;
    process.stderr.write(`load ${name} attempt ${attempt}: exit ${code}\n`);
    if (attempt === 2) throw new Error(`load ${name}: exit ${code}`);
  }
}


type Tally = Record<GateOutcome, number>;
const tally = (): Tally => ({ trip: 0, hold: 0, inconclusive: 0 });

function outcomes(x: string, y: string, calibration: NoiseCalibration | null): Map<string, { outcome: GateOutcome; code: string | null }> {
  const sx = readSide(x);
  const sy = readSide(y);
  const { report } = buildComparison(sx, sy, 1, 0.05, calibration);
  const rows = report.load?.rows ?? [];
  const keys = new Set(rows.map((r) => r.key));
  const gates = evaluateGates(rows.map((r) => parseGate(rowGate(r), keys)), rows, null, runContext(sx.load, sy.load));
  return new Map(gates.map((g) => [g.key, { outcome: g.outcome, code: g.inconclusive?.code ?? null }]));
}

const started = Date.now();
const a = values.from === undefined ? await startMock(18801, ttftA, token) : null;
const b = values.from === undefined ? await startMock(18802, ttftB, token) : null;
try {
  let calibration: NoiseCalibration | null = null;
  const calDirs: string[] = [];
  for (let i = 0; i < calibrationRuns; i++) calDirs.push(await load(18801, `cal${i}`));
  if (calDirs.length > 0) calibration = calibrate(calDirs.map((d) => readSide(d).load).filter((l) => l !== null));
  const modes = calibration === null ? ([['within runs', null]] as const) : ([['within runs', null], ['with --noise-floors', calibration]] as const);
  const aa = modes.map(() => ({ pairsWithTrip: 0, pairsAllDecided: 0, perRow: new Map<string, Tally>(), ttftP95: tally(), reasons: new Map<string, number>() }));
  for (let i = 0; i < pairs; i++) {
    const x = await load(18801, `a${i}x`);
    const y = await load(18801, `a${i}y`);
    const line: string[] = [];
    modes.forEach(([name, cal], m) => {
      const s = aa[m]!;
      const o = outcomes(x, y, cal);
      const trips = [...o].filter(([, v]) => v.outcome === 'trip').map(([k]) => k);
      if (trips.length > 0) s.pairsWithTrip++;
      for (const [k, v] of o) {
        const t = s.perRow.get(k) ?? tally();
        t[v.outcome]++;
        s.perRow.set(k, t);
        if (v.code !== null) s.reasons.set(v.code, (s.reasons.get(v.code) ?? 0) + 1);
      }
      const p95 = o.get('ttft.p95')?.outcome ?? 'inconclusive';
      s.ttftP95[p95]++;
      line.push(`${name}: ttft.p95 ${p95}, ${trips.length === 0 ? 'no row tripped' : `tripped ${trips.join(', ')}`}`);
    });
    process.stdout.write(`A/A pair ${i + 1}/${pairs}: ${line.join('; ')}\n`);
    done(x);
    done(y);
  }
  const ab = modes.map(() => ({ ttftP95: tally(), ttftP50: tally() }));
  for (let i = 0; i < regressions; i++) {
    const x = await load(18801, `r${i}x`);
    const y = await load(18802, `r${i}y`);
    const line: string[] = [];
    modes.forEach(([name, cal], m) => {
      const o = outcomes(x, y, cal);
      const p95 = o.get('ttft.p95')?.outcome ?? 'inconclusive';
      const p50 = o.get('ttft.p50')?.outcome ?? 'inconclusive';
      ab[m]!.ttftP95[p95]++;
      ab[m]!.ttftP50[p50]++;
      line.push(`${name}: ttft.p50>+10% ${p50}, ttft.p95>+10% ${p95}`);
    });
    process.stdout.write(`A/B pair ${i + 1}/${regressions}: ${line.join('; ')}\n`);
    done(x);
    done(y);
  }
  for (const d of calDirs) done(d);
  const figures = {
    pairs,
    regressions,
    duration,
    ttftA,
    ttftB,
    calibrationRuns,
    modes: modes.map(([name], m) => ({
      name,
      aa: { pairsWithTrip: aa[m]!.pairsWithTrip, ttftP95: aa[m]!.ttftP95, perRow: Object.fromEntries(aa[m]!.perRow), inconclusiveReasons: Object.fromEntries(aa[m]!.reasons) },
      ab: ab[m],
    })),
    wallS: Math.round((Date.now() - started) / 1000),
    loadavg: loadavg(),
  };
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  writeFileSync(join(root, 'reports/bench/compare-fp.json'), `${JSON.stringify(figures, null, 2)}\n`);
  for (const m of figures.modes) {
    const rows = Object.entries(m.aa.perRow);
    const sum = rows.reduce((t, [, v]) => ({ trip: t.trip + v.trip, hold: t.hold + v.hold, inconclusive: t.inconclusive + v.inconclusive }), tally());
    process.stdout.write(`\n${m.name}: ${pairs} A/A pairs (--ttft ${ttftA}, ${duration}), a gate on each of ${rows.length} rows\n`);
    process.stdout.write(`  gates tripped ${sum.trip}, held ${sum.hold}, inconclusive ${sum.inconclusive}; pairs with any row tripped: ${m.aa.pairsWithTrip}/${pairs}\n`);
    process.stdout.write(`  ttft.p95>+10%: tripped ${m.aa.ttftP95.trip}, held ${m.aa.ttftP95.hold}, inconclusive ${m.aa.ttftP95.inconclusive}\n`);
    process.stdout.write(`  inconclusive by reason: ${Object.entries(m.aa.inconclusiveReasons).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
    for (const [k, v] of rows.filter(([, v]) => v.trip > 0)) process.stdout.write(`  tripped: ${k} ${v.trip}/${pairs}\n`);
    if (regressions > 0) process.stdout.write(`  A/B (--ttft ${ttftA} -> ${ttftB}, ${regressions} pairs): ttft.p50>+10% trip ${m.ab?.ttftP50.trip} hold ${m.ab?.ttftP50.hold} inconclusive ${m.ab?.ttftP50.inconclusive}; ttft.p95>+10% trip ${m.ab?.ttftP95.trip} hold ${m.ab?.ttftP95.hold} inconclusive ${m.ab?.ttftP95.inconclusive}\n`);
  }
  process.stdout.write(`wall ${figures.wallS} s; reports/bench/compare-fp.json\n`);
} finally {
  a?.kill('SIGTERM');
  b?.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
