// How often `iari report compare` calls a change significant when there is none, and whether it
// finds a real one. Two bundled mocks run on loopback: A with --ttft 150 (the default) and B with
// --ttft 180 (20% higher). Each run is `iari load` at its defaults (closed loop, concurrency 8,
// 10 s). --pairs pairs of A-vs-A runs give the false-positive rate (per row and per pair); --regressions
// pairs of A-vs-B runs give the detection rate of the TTFT regression. Bounded: every run is a
// 10 s load with a 60 s process timeout; prints a table and writes reports/bench/compare-fp.json.
//
//   npx tsx scripts/compare-false-positives.ts [--pairs 20] [--regressions 5]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readSide } from '../src/compare/compare-inputs.ts';
import { buildComparison } from '../src/compare/compare-report.ts';
import { DEFAULT_MIN_EFFECT } from '../src/compare/load-compare.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { pairs: { type: 'string' }, regressions: { type: 'string' }, keep: { type: 'string' } } });
const pairs = Math.min(50, Number(values.pairs ?? 20));
const regressions = Math.min(20, Number(values.regressions ?? 5));
const token = 'iari_sk_compare_fp_local_0001';
const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-fp-'));
if (values.keep !== undefined) mkdirSync(values.keep, { recursive: true });
const cli = ['--import', 'tsx', join(root, 'src/cli/entry.ts')];

// --keep DIR keeps every run's directory (load.json, requests.ndjson) for re-analysis offline.
function done(dir: string): void {
  if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
  else renameSync(dir, join(values.keep, basename(dir)));
}

function startMock(port: number, ttft: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cli, 'mock', '--host', '127.0.0.1', '--port', String(port), '--ttft', String(ttft), '--no-limits'], { cwd: root, env: { ...process.env, IARI_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('mock did not start in 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('127.0.0.1')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

function load(port: number, name: string): string {
  const dir = join(tmp, name);
  // One retry: on a shared machine a run can fail for reasons of its own (it says why on stderr).
  for (let attempt = 1; ; attempt++) {
    const r = spawnSync(process.execPath, [...cli, 'load', '--base-url', `http://127.0.0.1:${port}/v1`, '--quiet', '--report', dir], { cwd: root, env: { ...process.env, IARI_TOKEN: token, GITHUB_ACTIONS: '' }, timeout: 60_000, encoding: 'utf8' });
    if (r.status === 0) return dir;
    process.stderr.write(`load ${name} attempt ${attempt}: exit ${r.status}: ${(r.stderr ?? '').slice(-400)}\n`);
    if (attempt === 2) throw new Error(`load ${name}: exit ${r.status}`);
  }
}

const started = Date.now();
const a = await startMock(18801, 150);
const b = await startMock(18802, 180);
try {
  // Every A/A row keeps its relative change, so the false-positive rate reads at several --min-effect floors.
  const aa: { pair: number; key: string; relative: number | null; stat: boolean; tested: boolean }[] = [];
  for (let i = 0; i < pairs; i++) {
    const x = load(18801, `a${i}x`);
    const y = load(18801, `a${i}y`);
    const rows = buildComparison(readSide(x), readSide(y), 1, 0).report.load?.rows ?? [];
    for (const r of rows) aa.push({ pair: i, key: r.key, relative: r.relative, stat: r.statisticallySignificant, tested: r.test !== null });
    const sig = rows.filter((r) => r.statisticallySignificant && (r.unit === 'ratio' || Math.abs(r.relative ?? 1) >= DEFAULT_MIN_EFFECT)).map((r) => `${r.key} ${((r.relative ?? 0) * 100).toFixed(1)}%`);
    process.stdout.write(`A/A pair ${i + 1}/${pairs}: ${sig.length === 0 ? 'nothing significant' : sig.join(', ')}\n`);
    done(x);
    done(y);
  }
  const floors = [0, 0.02, 0.05, 0.1];
  const isRatio = (key: string): boolean => /\.(rate|fraction)$/.test(key);
  const called = (r: (typeof aa)[number], floor: number): boolean => r.stat && (isRatio(r.key) || Math.abs(r.relative ?? 1) >= floor);
  const tested = aa.filter((r) => r.tested);
  const byFloor = floors.map((floor) => {
    const flagged = tested.filter((r) => called(r, floor));
    const pairsAny = new Set(flagged.map((r) => r.pair)).size;
    const keyRate = (key: string): number => tested.filter((r) => r.key === key && called(r, floor)).length;
    return { minEffect: floor, flaggedRows: flagged.length, testedRows: tested.length, perRowRate: flagged.length / Math.max(1, tested.length), pairsWithAny: pairsAny, ttftP50: keyRate('ttft.p50'), ttftP95: keyRate('ttft.p95'), e2eP95: keyRate('e2e.p95'), itlP95: keyRate('itl.p95'), throughputRps: keyRate('throughput.rps') };
  });
  const detections: { pair: number; ttftP50: boolean; ttftP95: boolean; relativeP50: number | null; relativeP95: number | null }[] = [];
  for (let i = 0; i < regressions; i++) {
    const x = load(18801, `r${i}x`);
    const y = load(18802, `r${i}y`);
    const rows = buildComparison(readSide(x), readSide(y)).report.load?.rows ?? [];
    const p50 = rows.find((r) => r.key === 'ttft.p50');
    const p95 = rows.find((r) => r.key === 'ttft.p95');
    detections.push({ pair: i, ttftP50: p50?.significant ?? false, ttftP95: p95?.significant ?? false, relativeP50: p50?.relative ?? null, relativeP95: p95?.relative ?? null });
    process.stdout.write(`A/B pair ${i + 1}/${regressions}: ttft.p50 ${((p50?.relative ?? 0) * 100).toFixed(1)}% ${p50?.significant === true ? 'significant' : 'not significant'}, ttft.p95 ${((p95?.relative ?? 0) * 100).toFixed(1)}% ${p95?.significant === true ? 'significant' : 'not significant'}\n`);
    done(x);
    done(y);
  }
  const figures = {
    pairs,
    regressions,
    defaultMinEffect: DEFAULT_MIN_EFFECT,
    falsePositives: byFloor,
    regressionDetectedP50: detections.filter((d) => d.ttftP50).length,
    regressionDetectedP95: detections.filter((d) => d.ttftP95).length,
    detections,
    wallS: Math.round((Date.now() - started) / 1000),
    loadavg: loadavg(),
  };
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  writeFileSync(join(root, 'reports/bench/compare-fp.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`\nfalse positives over ${pairs} A/A pairs (rows tested per pair: ${Math.round(tested.length / Math.max(1, pairs))})\n`);
  process.stdout.write('min-effect  rows flagged  per-row rate  pairs with any  ttft.p50  ttft.p95  e2e.p95  itl.p95  throughput.rps\n');
  for (const f of byFloor) {
    process.stdout.write(`${`${(f.minEffect * 100).toFixed(0)}%`.padEnd(10)}  ${String(f.flaggedRows).padStart(12)}  ${`${(f.perRowRate * 100).toFixed(1)}%`.padStart(12)}  ${`${f.pairsWithAny}/${pairs}`.padStart(14)}  ${`${f.ttftP50}/${pairs}`.padStart(8)}  ${`${f.ttftP95}/${pairs}`.padStart(8)}  ${`${f.e2eP95}/${pairs}`.padStart(7)}  ${`${f.itlP95}/${pairs}`.padStart(7)}  ${`${f.throughputRps}/${pairs}`.padStart(14)}\n`);
  }
  process.stdout.write(`regression (--ttft 150 -> 180, ${regressions} pairs, default min-effect): ttft.p50 significant ${figures.regressionDetectedP50}/${regressions}, ttft.p95 significant ${figures.regressionDetectedP95}/${regressions}\nwall ${figures.wallS} s; reports/bench/compare-fp.json\n`);
} finally {
  a.kill('SIGTERM');
  b.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
