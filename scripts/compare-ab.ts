// What an A/B run (`iari load --ab`) decides: --regressions runs against two bundled mocks with
// --ttft-a (default 40 ms) and --ttft-b (default 48 ms, +20%), and --identical runs against two
// mocks both at --ttft-a. Each run is `iari load --base-url A --ab B --duration D` (closed loop,
// concurrency 8, blocks of --ab-block) in this process; then `iari report compare RUN` with a gate
// on every load row (latencies KEY>+10%, rates KEY<-10%, errors.rate>+0.5pp,
// goodput.fraction<-0.5pp). Counts how often ttft.p95>+10% trips on the regression and how often
// any row trips between identical mocks. Loopback only, bounded (each run is its --duration plus
// its blocks' grace). Writes reports/bench/compare-ab.json; --keep DIR keeps the runs, --from DIR
// analyses kept runs again (reg{i}, same{i}).
//
//   npx tsx scripts/compare-ab.ts [--regressions 10] [--identical 20] [--duration 60s] [--ab-block 3s]
//     [--ttft-a 40] [--ttft-b 48] [--keep DIR | --from DIR]
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { run as runLoadCommand } from '../src/cli/load-command.ts';
import { readAbSides } from '../src/compare/compare-inputs.ts';
import { buildComparison } from '../src/compare/compare-report.ts';
import { evaluateGates, runContext } from '../src/compare/gate-outcome.ts';
import { parseGate } from '../src/compare/gates.ts';
import { root, rowGate, startMock } from './compare-bench.ts';

const { values } = parseArgs({
  options: {
    regressions: { type: 'string' },
    identical: { type: 'string' },
    duration: { type: 'string' },
    'ab-block': { type: 'string' },
    'ttft-a': { type: 'string' },
    'ttft-b': { type: 'string' },
    keep: { type: 'string' },
    from: { type: 'string' },
  },
});
const regressions = Math.min(20, Number(values.regressions ?? 10));
const identical = Math.min(40, Number(values.identical ?? 20));
const duration = values.duration ?? '60s';
const block = values['ab-block'] ?? '3s';
const ttftA = Number(values['ttft-a'] ?? 40);
const ttftB = Number(values['ttft-b'] ?? 48);
const token = 'iari_sk_compare_ab_local_0001';
const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-ab-'));
if (values.keep !== undefined) mkdirSync(values.keep, { recursive: true });
process.env['IARI_TOKEN'] = token;
process.env['GITHUB_ACTIONS'] = '';


async function abRun(portA: number, portB: number, name: string): Promise<string> {
  if (values.from !== undefined) return join(values.from, name);
  const dir = join(tmp, name);
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let code: number;
  try {
    code = await runLoadCommand(['--base-url', `http://127.0.0.1:${portA}/v1`, '--ab', `http://127.0.0.1:${portB}/v1`, '--ab-token-env', 'IARI_TOKEN', '--ab-block', block, '--duration', duration, '--quiet', '--report', dir]);
  } finally {
    process.stdout.write = write;
  }
  if (code !== 0) throw new Error(`load ${name}: exit ${code}`);
  return dir;
}

function judge(dir: string): { p95: string; p50: string; trips: string[]; p95Change: number | null } {
  const sides = readAbSides(dir);
  if (sides === null) throw new Error(`${dir} is not an A/B run`);
  const { report } = buildComparison(sides.base, sides.next);
  const rows = report.load?.rows ?? [];
  const keys = new Set(rows.map((r) => r.key));
  const gates = evaluateGates(rows.map((r) => parseGate(rowGate(r), keys)), rows, null, runContext(sides.base.load, sides.next.load));
  const of = (k: string): string => gates.find((g) => g.key === k)?.outcome ?? 'missing';
  return { p95: of('ttft.p95'), p50: of('ttft.p50'), trips: gates.filter((g) => g.outcome === 'trip').map((g) => g.key), p95Change: rows.find((r) => r.key === 'ttft.p95')?.relative ?? null };
}

function keep(dir: string): void {
  if (values.from !== undefined) return;
  if (values.keep !== undefined) renameSync(dir, join(values.keep, dir.slice(tmp.length + 1)));
  else rmSync(dir, { recursive: true, force: true });
}

const started = Date.now();
const mocks = values.from === undefined ? [await startMock(18811, ttftA, token), await startMock(18812, ttftB, token), await startMock(18813, ttftA, token)] : [];
const reg: ReturnType<typeof judge>[] = [];
const same: ReturnType<typeof judge>[] = [];
try {
  // Interleaved, so a run cut short still has figures of both kinds.
  for (let i = 0; i < Math.max(regressions, identical); i++) {
    if (i < regressions) {
      const d = await abRun(18811, 18812, `reg${i}`);
      const j = judge(d);
      reg.push(j);
      process.stdout.write(`A/B ${ttftA} vs ${ttftB} ms, run ${i + 1}/${regressions}: ttft.p95 ${j.p95} (${((j.p95Change ?? 0) * 100).toFixed(1)}%), ttft.p50 ${j.p50}, rows tripped: ${j.trips.join(', ') || 'none'}\n`);
      keep(d);
    }
    if (i < identical) {
      const d = await abRun(18811, 18813, `same${i}`);
      const j = judge(d);
      same.push(j);
      process.stdout.write(`A/A ${ttftA} vs ${ttftA} ms, run ${i + 1}/${identical}: ttft.p95 ${j.p95} (${((j.p95Change ?? 0) * 100).toFixed(1)}%), rows tripped: ${j.trips.join(', ') || 'none'}\n`);
      keep(d);
    }
  }
} finally {
  for (const m of mocks) m.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
  const count = (xs: ReturnType<typeof judge>[], f: (x: ReturnType<typeof judge>) => boolean): number => xs.filter(f).length;
  const figures = {
    duration,
    block,
    ttftA,
    ttftB,
    regression: { runs: reg.length, ttftP95Trip: count(reg, (x) => x.p95 === 'trip'), ttftP95Hold: count(reg, (x) => x.p95 === 'hold'), ttftP50Trip: count(reg, (x) => x.p50 === 'trip'), runs_: reg },
    identical: { runs: same.length, noRowTripped: count(same, (x) => x.trips.length === 0), runs_: same },
    wallS: Math.round((Date.now() - started) / 1000),
    loadavg: loadavg(),
  };
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  writeFileSync(join(root, 'reports/bench/compare-ab.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`\nA/B ${ttftA} -> ${ttftB} ms (${duration}, blocks of ${block}): ttft.p95>+10% tripped in ${figures.regression.ttftP95Trip} of ${reg.length} runs (held ${figures.regression.ttftP95Hold}); ttft.p50>+10% tripped in ${figures.regression.ttftP50Trip}\n`);
  process.stdout.write(`identical mocks (${ttftA} ms): no row tripped in ${figures.identical.noRowTripped} of ${same.length} runs\nwall ${figures.wallS} s; reports/bench/compare-ab.json\n`);
}
