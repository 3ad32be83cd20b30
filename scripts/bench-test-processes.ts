/**
 * `iari test` on the bundled mock, process by process (issue 41): the wall time, and the CPU time
 * and peak RSS of the main process and of each helper it starts (the JS client libraries' process,
 * openai-python's driver) apart, with their sum. Runs A and B alternately when --vs is given.
 * Prints the medians and writes reports/bench/test-processes.json.
 *
 *   npx tsx scripts/bench-test-processes.ts [--runs 5] [--vs /path/to/other/bin/iari.js]
 *
 * The main process is measured by /usr/bin/time (its rusage); a helper, which the main process
 * kills rather than waits for, by /proc/PID/stat and /proc/PID/status (VmHWM) sampled every 20 ms
 * until it ends: it is idle by then, so the last sample is its total. Linux only.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, vs: { type: 'string' }, bin: { type: 'string', default: join(root, 'bin/iari.js') } } });
const TICK_S = 0.01; // USER_HZ 100 on Linux
const HELPERS: Record<string, RegExp> = { 'client process': /client-child\.js/, 'openai-python': /openai-python-driver\.py/ };

interface Sample {
  cpuS: number;
  peakMiB: number;
}
interface RunFigures {
  wallS: number;
  main: Sample;
  helpers: Record<string, Sample>;
  totalCpuS: number;
}

function procOf(pid: string): { cmd: string; ppid: string; cpuS: number; peakMiB: number } | undefined {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = fields[1] ?? '';
    const cpuS = (Number(fields[11]) + Number(fields[12])) * TICK_S;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { cmd, ppid, cpuS, peakMiB: Number(hwm ?? 0) / 1024 };
  } catch {
    return undefined;
  }
}

async function once(bin: string): Promise<RunFigures> {
  const before = new Set(readdirSync('/proc').filter((p) => /^\d+$/.test(p)));
  const report = mkdtempSync(join(tmpdir(), 'iari-bench-'));
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, 'test', '--report', report], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const seen = new Map<string, { helper: string; last: Sample }>();
  // Only this run's processes (descendants of /usr/bin/time): the machine may run other iari tests at the same time.
  const ours = new Set([String(child.pid)]);
  const timer = setInterval(() => {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || before.has(pid)) continue;
      const known = seen.get(pid);
      const p = procOf(pid);
      if (p === undefined) continue;
      if (!ours.has(pid)) {
        if (!ours.has(p.ppid)) continue;
        ours.add(pid);
      }
      const helper = known?.helper ?? Object.entries(HELPERS).find(([, re]) => re.test(p.cmd))?.[0];
      if (helper === undefined) continue;
      // A process that has ended (a zombie) shows no VmHWM and its CPU may read 0: the largest sample counts.
      seen.set(pid, { helper, last: { cpuS: Math.max(p.cpuS, known?.last.cpuS ?? 0), peakMiB: Math.max(p.peakMiB, known?.last.peakMiB ?? 0) } });
    }
  }, 20);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const wallS = (performance.now() - started) / 1000;
  // Helpers end when the main process does: a last look after they had time to go.
  await new Promise((r) => setTimeout(r, 100));
  clearInterval(timer);
  rmSync(report, { recursive: true, force: true });
  const timeLine = stderr.trim().split('\n').pop() ?? '';
  const [u, s, m] = timeLine.split(' ').map(Number);
  if (code !== 0 || u === undefined || s === undefined || m === undefined || Number.isNaN(u)) throw new Error(`iari test exited ${String(code)}: ${stderr.slice(-500)}`);
  const helpers: Record<string, Sample> = {};
  for (const { helper, last } of seen.values()) {
    const h = helpers[helper] ?? { cpuS: 0, peakMiB: 0 };
    helpers[helper] = { cpuS: h.cpuS + last.cpuS, peakMiB: Math.max(h.peakMiB, last.peakMiB) };
  }
  const main = { cpuS: u + s, peakMiB: m / 1024 };
  return { wallS, main, helpers, totalCpuS: main.cpuS + Object.values(helpers).reduce((t, h) => t + h.cpuS, 0) };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

const sides: [string, string][] = [['A', resolve(values.bin)]];
if (values.vs !== undefined) sides.push(['B', resolve(values.vs)]);
const results = new Map<string, RunFigures[]>(sides.map(([name]) => [name, []]));
const loadBefore = loadavg();
for (let i = 0; i < Number(values.runs); i++) {
  for (const [name, bin] of i % 2 === 0 ? sides : [...sides].reverse()) results.get(name)?.push(await once(bin));
}
const loadAfter = loadavg();

const summary = sides.map(([name, bin]) => {
  const runs = results.get(name) ?? [];
  const helperNames = [...new Set(runs.flatMap((r) => Object.keys(r.helpers)))];
  return {
    side: name,
    bin,
    runs: runs.length,
    wallS: median(runs.map((r) => r.wallS)),
    totalCpuS: median(runs.map((r) => r.totalCpuS)),
    main: { cpuS: median(runs.map((r) => r.main.cpuS)), peakMiB: median(runs.map((r) => r.main.peakMiB)) },
    helpers: Object.fromEntries(helperNames.map((h) => [h, { cpuS: median(runs.map((r) => r.helpers[h]?.cpuS ?? 0)), peakMiB: median(runs.map((r) => r.helpers[h]?.peakMiB ?? 0)) }])),
    all: runs,
  };
});
const out = { date: new Date().toISOString(), node: process.version, loadAverage: { before: loadBefore.map((x) => Number(x.toFixed(2))), after: loadAfter.map((x) => Number(x.toFixed(2))) }, summary };
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(join(root, 'reports/bench/test-processes.json'), `${JSON.stringify(out, null, 2)}\n`);

const f = (x: number, d = 2): string => x.toFixed(d);
for (const s of summary) {
  process.stdout.write(`${s.side} ${s.bin} (${s.runs} runs, medians)\n`);
  process.stdout.write(`  wall ${f(s.wallS)} s; CPU ${f(s.totalCpuS)} s in all\n`);
  process.stdout.write(`  main process: CPU ${f(s.main.cpuS)} s, peak RSS ${f(s.main.peakMiB, 1)} MiB\n`);
  for (const [h, v] of Object.entries(s.helpers)) process.stdout.write(`  ${h}: CPU ${f(v.cpuS)} s, peak RSS ${f(v.peakMiB, 1)} MiB\n`);
}
process.stdout.write(`load average ${out.loadAverage.before.map((x) => f(x)).join(' ')} before, ${out.loadAverage.after.map((x) => f(x)).join(' ')} after; reports/bench/test-processes.json\n`);
