// How often `iari report compare` calls a change significant when there is none, and whether it
// finds a real one. Two bundled mocks run on loopback: A with --ttft 150 (the default) and B with
// --ttft 180 (20% higher). Each run is `iari load` at its defaults (closed loop, concurrency 8,
// 10 s). --pairs pairs of A-vs-A runs give the false-positive rate (per row and per pair); --regressions
// pairs of A-vs-B runs give the detection rate of the TTFT regression. Bounded: every run is a
// 10 s load run in this process (load-command.ts's run, as the CLI runs it); prints a table and
// writes reports/bench/compare-fp.json. --keep DIR keeps the runs; --from DIR analyses kept runs
// again without sending any traffic (the figures of a new test over the same runs).
//
//   npx tsx scripts/compare-false-positives.ts [--pairs 20] [--regressions 5] [--keep DIR | --from DIR]
import { spawn, type ChildProcess } from 'node:child_process';
import { run as runLoadCommand } from '../src/cli/load-command.ts';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readSide } from '../src/compare/compare-inputs.ts';
import { buildComparison } from '../src/compare/compare-report.ts';
import { DEFAULT_MIN_EFFECT } from '../src/compare/load-compare.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { pairs: { type: 'string' }, regressions: { type: 'string' }, keep: { type: 'string' }, from: { type: 'string' } } });
const pairs = Math.min(50, Number(values.pairs ?? 20));
const regressions = Math.min(20, Number(values.regressions ?? 5));
const token = 'iari_sk_compare_fp_local_0001';
const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-fp-'));
if (values.keep !== undefined) mkdirSync(values.keep, { recursive: true });
process.env['IARI_TOKEN'] = token;
process.env['GITHUB_ACTIONS'] = '';
const cli = ['--import', 'tsx', join(root, 'src/cli/entry.ts')];

// --keep DIR keeps every run's directory (load.json, requests.ndjson) for re-analysis offline.
function done(dir: string): void {
  if (values.from !== undefined) return;
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

async function load(port: number, name: string): Promise<string> {
  if (values.from !== undefined) return join(values.from, name);
  const dir = join(tmp, name);
  // One retry: on a shared machine a run can fail for reasons of its own.
  for (let attempt = 1; ; attempt++) {
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    let code: number;
    try {
      code = await runLoadCommand(['--base-url', `http://127.0.0.1:${port}/v1`, '--quiet', '--report', dir]);
    } finally {
      process.stdout.write = write;
    }
    if (code === 0) return dir;
    process.stderr.write(`load ${name} attempt ${attempt}: exit ${code}\n`);
    if (attempt === 2) throw new Error(`load ${name}: exit ${code}`);
  }
}

const started = Date.now();
const a = values.from === undefined ? await startMock(18801, 150) : null;
const b = values.from === undefined ? await startMock(18802, 180) : null;
try {
  // Every A/A row keeps compare's default decision (significant: the named test and the row's floor).
  const aa: { pair: number; key: string; relative: number | null; significant: boolean; stat: boolean; tested: boolean }[] = [];
  for (let i = 0; i < pairs; i++) {
    const x = await load(18801, `a${i}x`);
    const y = await load(18801, `a${i}y`);
    const rows = buildComparison(readSide(x), readSide(y)).report.load?.rows ?? [];
    for (const r of rows) aa.push({ pair: i, key: r.key, relative: r.relative, significant: r.significant, stat: r.statisticallySignificant, tested: r.test !== null });
    const sig = rows.filter((r) => r.significant).map((r) => `${r.key} ${((r.relative ?? 0) * 100).toFixed(1)}%`);
    process.stdout.write(`A/A pair ${i + 1}/${pairs}: ${sig.length === 0 ? 'nothing significant' : sig.join(', ')}\n`);
    done(x);
    done(y);
  }
  const tested = aa.filter((r) => r.tested);
  const keys = [...new Set(aa.map((r) => r.key))];
  // Per metric: the share of the pairs in which compare called that row significant.
  const perMetric = keys.map((key) => ({ key, flagged: tested.filter((r) => r.key === key && r.significant).length, statisticallySignificant: tested.filter((r) => r.key === key && r.stat).length, tested: tested.filter((r) => r.key === key).length }));
  const flaggedRows = tested.filter((r) => r.significant).length;
  const worst = perMetric.reduce((w, m) => (m.flagged > w.flagged ? m : w), perMetric[0] ?? { key: '-', flagged: 0, statisticallySignificant: 0, tested: 0 });
  const detections: { pair: number; ttftP50: boolean; ttftP95: boolean; relativeP50: number | null; relativeP95: number | null }[] = [];
  for (let i = 0; i < regressions; i++) {
    const x = await load(18801, `r${i}x`);
    const y = await load(18802, `r${i}y`);
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
    test: 'blocks (block bootstrap over 1 s timeslices) beyond the noise floor; Welch over timeslices for throughput; two proportions for ratios',
    falsePositives: { flaggedRows, testedRows: tested.length, perRowRate: flaggedRows / Math.max(1, tested.length), pairsWithAny: new Set(tested.filter((r) => r.significant).map((r) => r.pair)).size, worstMetric: worst, perMetric },
    regressionDetectedP50: detections.filter((d) => d.ttftP50).length,
    regressionDetectedP95: detections.filter((d) => d.ttftP95).length,
    detections,
    wallS: Math.round((Date.now() - started) / 1000),
    loadavg: loadavg(),
  };
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  if (values.from === undefined) writeFileSync(join(root, 'reports/bench/compare-fp.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`\nfalse positives over ${pairs} A/A pairs (rows tested per pair: ${Math.round(tested.length / Math.max(1, pairs))})\n`);
  const fp = figures.falsePositives;
  process.stdout.write(`rows called significant: ${fp.flaggedRows} of ${fp.testedRows} (${(fp.perRowRate * 100).toFixed(1)}%); pairs with any: ${fp.pairsWithAny}/${pairs}\n`);
  process.stdout.write(`worst metric: ${worst.key} ${worst.flagged}/${pairs} (${((worst.flagged / Math.max(1, pairs)) * 100).toFixed(0)}%)\n`);
  for (const m of perMetric.filter((x) => x.flagged > 0 || x.statisticallySignificant > 0)) process.stdout.write(`  ${m.key.padEnd(32)} significant ${m.flagged}/${m.tested}  (test alone, without the floor: ${m.statisticallySignificant}/${m.tested})\n`);
  process.stdout.write(`regression (--ttft 150 -> 180, ${regressions} pairs, default min-effect): ttft.p50 significant ${figures.regressionDetectedP50}/${regressions}, ttft.p95 significant ${figures.regressionDetectedP95}/${regressions}\nwall ${figures.wallS} s; reports/bench/compare-fp.json\n`);
} finally {
  a?.kill('SIGTERM');
  b?.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
