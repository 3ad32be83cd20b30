/**
 * Where `iari test`'s wall time and memory go on the bundled mock (issue 41): the start-up phases
 * (importing iari, starting the mock, the first request) and each check's start, end, resident
 * memory and event-loop utilisation (the share of its wall time the main thread was busy: a check
 * near 0 % is a wait, one near 100 % is CPU), summed per area. Runs the compiled library in this
 * process, as the CLI does. Prints the timeline's heaviest checks and writes
 * reports/bench/test-profile.json.
 *
 *   npm run build && npx tsx scripts/profile-test.ts [--runs 3] [--top 20] [--python PATH]
 *   npm run build && node --expose-gc --import tsx scripts/profile-test.ts --runs 10   (adds the heap after GC per run)
 *
 * Event-loop utilisation does not depend on how busy the machine is the way wall time does: a wait
 * stays idle on a loaded machine. Pair wall times with farm-bench or bench-cli.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' }, top: { type: 'string', default: '20' }, python: { type: 'string' } } });
const mib = (x: number): number => Math.round(x / 2 ** 20);
const ms = (x: number): number => Math.round(x);

interface CheckRow {
  title: string;
  area: string;
  startMs: number;
  endMs: number;
  busyPct: number;
  rssMiB: number;
}

const t0 = performance.now();
const rssAtStart = process.memoryUsage().rss;
const { runConformance } = (await import(pathToFileURL(join(root, 'dist/src/index.js')).href)) as typeof import('../src/index.ts');
const importedMs = performance.now() - t0;
const rssImported = process.memoryUsage().rss;

const runs: { wallMs: number; setupMs: number; peakRssMiB: number; heapAfterGcMiB?: number; checks: CheckRow[] }[] = [];
for (let i = 0; i < Number(values.runs); i++) {
  const start = performance.now();
  let last = start;
  let elu = performance.eventLoopUtilization();
  let peak = process.memoryUsage().rss;
  let setupMs = 0;
  const checks: CheckRow[] = [];
  const { report } = await runConformance({
    ...(values.python === undefined ? {} : { python: values.python }),
    onResult: (run) => {
      const now = performance.now();
      const began = checks.length === 0 ? now - run.durationMs : last;
      if (checks.length === 0) setupMs = began - start;
      const e = performance.eventLoopUtilization(elu);
      elu = performance.eventLoopUtilization();
      const rss = process.memoryUsage().rss;
      peak = Math.max(peak, rss);
      // The area is the first ID's prefix (CLIENT-RESP-003 -> CLIENT-RESP).
      const area = (run.ids[0] ?? '?').replace(/-\d+$/, '');
      checks.push({ title: run.title, area, startMs: ms(began - start), endMs: ms(now - start), busyPct: Math.round(e.utilization * 100), rssMiB: mib(rss) });
      last = now;
    },
  });
  if (report.summary.fail > 0) throw new Error(`the run against the bundled mock failed ${report.summary.fail} requirements`);
  const wallMs = ms(performance.now() - start);
  // Under node --expose-gc: the live heap after each run, collected twice (repeated runs: does it grow? issue 41).
  const gc = (globalThis as { gc?: () => void }).gc;
  let heapAfterGcMiB: number | undefined;
  if (gc !== undefined) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    heapAfterGcMiB = Number((process.memoryUsage().heapUsed / 2 ** 20).toFixed(1));
  }
  runs.push({ wallMs, setupMs: ms(setupMs), peakRssMiB: mib(peak), ...(heapAfterGcMiB === undefined ? {} : { heapAfterGcMiB }), checks });
}

const first = runs[0]!;
const byArea = new Map<string, { ms: number; idleMs: number; checks: number }>();
for (const c of first.checks) {
  const a = byArea.get(c.area) ?? { ms: 0, idleMs: 0, checks: 0 };
  const d = c.endMs - c.startMs;
  a.ms += d;
  a.idleMs += (d * (100 - c.busyPct)) / 100;
  a.checks++;
  byArea.set(c.area, a);
}
const areas = [...byArea].map(([area, a]) => ({ area, ms: ms(a.ms), idleMs: ms(a.idleMs), checks: a.checks })).sort((x, y) => y.ms - x.ms);
const out = {
  date: new Date().toISOString(),
  node: process.version,
  loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
  importMs: ms(importedMs),
  rssMiB: { start: mib(rssAtStart), imported: mib(rssImported) },
  runs: runs.map((r) => ({ wallMs: r.wallMs, setupMs: r.setupMs, peakRssMiB: r.peakRssMiB, ...(r.heapAfterGcMiB === undefined ? {} : { heapAfterGcMiB: r.heapAfterGcMiB }), checks: r.checks.length, idleMs: ms(r.checks.reduce((s, c) => s + ((c.endMs - c.startMs) * (100 - c.busyPct)) / 100, 0)) })),
  areas,
  timeline: first.checks,
};
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(join(root, 'reports/bench/test-profile.json'), `${JSON.stringify(out, null, 2)}\n`);

const p = (s: string | number, n: number): string => String(s).padStart(n);
process.stdout.write(`import ${out.importMs} ms (RSS ${out.rssMiB.start} -> ${out.rssMiB.imported} MiB)\n`);
for (const [i, r] of out.runs.entries()) process.stdout.write(`run ${i + 1}: ${r.wallMs} ms in the run (setup before the first check ${r.setupMs} ms), ${r.checks} checks, ${r.idleMs} ms of it the main thread idle, peak RSS ${r.peakRssMiB} MiB${r.heapAfterGcMiB === undefined ? '' : `, heap after GC ${r.heapAfterGcMiB} MiB`}\n`);
process.stdout.write(`\n${'area'.padEnd(14)} ${p('ms', 6)} ${p('idle', 6)} checks\n`);
for (const a of areas.slice(0, 14)) process.stdout.write(`${a.area.padEnd(14)} ${p(a.ms, 6)} ${p(a.idleMs, 6)} ${p(a.checks, 6)}\n`);
process.stdout.write(`\nheaviest checks (run 1): start-end ms, busy %, RSS after\n`);
for (const c of [...first.checks].sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs)).slice(0, Number(values.top))) {
  process.stdout.write(`${p(c.startMs, 5)}-${p(c.endMs, 5)} ${p(c.endMs - c.startMs, 5)} ms ${p(c.busyPct, 3)}% ${p(c.rssMiB, 4)} MiB  ${c.title.slice(0, 90)}\n`);
}
process.stdout.write(`load average ${out.loadAverage.join(' ')}; reports/bench/test-profile.json\n`);
