// CLI start-up and `iari test` wall times, compiled (bin/iari.js -> dist/) beside running the
// TypeScript sources through tsx (how bin/iari.js ran before the build existed) and beside bare
// `node -e 0`, the floor no CLI can go under. Prints a table and writes reports/bench/cli.json.
//
//   npx tsx scripts/bench-cli.ts [--runs 20] [--test-runs 3] [--skip-test]
//
// Needs `npm run build` first. Wall time of whole processes on a shared machine: run it when the
// machine is quiet and read the floor beside the figures; uptime's load average is recorded too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string' }, 'test-runs': { type: 'string' }, 'skip-test': { type: 'boolean' } } });
const runs = Number(values.runs ?? 20);
const testRuns = Number(values['test-runs'] ?? 3);
const tsx = join(root, 'node_modules/.bin/tsx');

interface Figure {
  name: string;
  command: string;
  runs: number;
  meanMs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

function time(name: string, cmd: string, args: string[], n: number, warmup = 2): Figure {
  for (let i = 0; i < warmup; i++) spawnSync(cmd, args, { cwd: root, stdio: 'ignore' });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: root, stdio: 'ignore', env: { ...process.env, GITHUB_ACTIONS: '' } });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status}`);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const round = (x: number): number => Math.round(x * 10) / 10;
  return { name, command: [cmd === process.execPath ? 'node' : cmd.replace(root, ''), ...args].join(' '), runs: n, meanMs: round(mean), medianMs: round(samples[Math.floor(samples.length / 2)] as number), minMs: round(samples[0] as number), maxMs: round(samples[samples.length - 1] as number) };
}

const loadBefore = loadavg();
const figures: Figure[] = [
  time('node -e 0 (floor)', process.execPath, ['-e', '0'], runs),
  time('iari --help (dist)', process.execPath, ['bin/iari.js', '--help'], runs),
  time('iari --version (dist)', process.execPath, ['bin/iari.js', '--version'], runs),
  time('iari --help (tsx, sources)', tsx, ['src/cli/entry.ts', '--help'], runs),
];
if (values['skip-test'] !== true) {
  const reports = mkdtempSync(join(tmpdir(), 'iari-bench-cli-'));
  try {
    figures.push(time('iari test, bundled mock (dist)', process.execPath, ['bin/iari.js', 'test', '--report', join(reports, 'a')], testRuns, 1));
    figures.push(time('iari test, bundled mock (tsx, sources)', tsx, ['src/cli/entry.ts', 'test', '--report', join(reports, 'b')], testRuns, 1));
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}
const result = { date: new Date().toISOString(), node: process.version, loadAverage: { before: loadBefore, after: loadavg() }, figures };
for (const f of figures) process.stdout.write(`${f.name.padEnd(40)} median ${String(f.medianMs).padStart(8)} ms  mean ${String(f.meanMs).padStart(8)} ms  min ${String(f.minMs).padStart(8)} ms  (${f.runs} runs)\n`);
process.stdout.write(`load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} -> ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(join(root, 'reports/bench/cli.json'), `${JSON.stringify(result, null, 2)}\n`);
