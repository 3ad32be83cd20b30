/**
 * Peak resident memory of `iari test` and `iari load` against a valid server (the bundled mock,
 * in-process), run as a user runs them (the compiled CLI), sampled from /proc every 50 ms
 * (suites/hostile/run-child.ts). Target (issue 14): each under 250 MiB. Prints the figures and
 * writes reports/bench/rss.json.
 *
 *   npm run build && npx tsx scripts/bench-rss.ts [--repeat 3] [--duration 10s]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { iariCommand, ROOT, runIari } from '../suites/hostile/run-child.ts';

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '3' }, duration: { type: 'string', default: '10s' } } });
const repeat = Number(values.repeat);
const dir = mkdtempSync(join(tmpdir(), 'iari-rss-'));
const commands: { name: string; args: string[] }[] = [
  { name: 'iari test', args: ['test'] },
  { name: `iari load --duration ${values.duration}`, args: ['load', '--duration', values.duration, '--quiet'] },
];
const rows: { command: string; run: number; exit: number | null; wallS: number; peakRssMiB: number; peakTreeRssMiB: number }[] = [];
for (const c of commands) {
  for (let i = 0; i < repeat; i++) {
    const r = await runIari([...c.args, '--report', join(dir, `${c.args[0]}-${i}`)], {}, 600_000);
    rows.push({ command: c.name, run: i + 1, exit: r.code, wallS: Number((r.wallMs / 1000).toFixed(1)), peakRssMiB: Number(r.peakRssMiB.toFixed(1)), peakTreeRssMiB: Number(r.peakTreeRssMiB.toFixed(1)) });
    process.stdout.write(`${c.name.padEnd(26)} run ${i + 1}: exit ${r.code}, ${(r.wallMs / 1000).toFixed(1)} s, peak ${r.peakRssMiB.toFixed(1)} MiB (process tree ${r.peakTreeRssMiB.toFixed(1)} MiB)\n`);
  }
}
rmSync(dir, { recursive: true, force: true });
const summary = commands.map((c) => {
  const mine = rows.filter((r) => r.command === c.name);
  const max = Math.max(...mine.map((r) => r.peakRssMiB));
  return { command: c.name, maxPeakRssMiB: max, maxPeakTreeRssMiB: Math.max(...mine.map((r) => r.peakTreeRssMiB)), target: 250, met: max < 250 };
});
const out = { from: iariCommand().from, loadAverage: loadavg().map((x) => Number(x.toFixed(2))), summary, rows };
mkdirSync(join(ROOT, 'reports/bench'), { recursive: true });
writeFileSync(join(ROOT, 'reports/bench/rss.json'), `${JSON.stringify(out, null, 2)}\n`);
for (const s of summary) process.stdout.write(`${s.command}: highest peak ${s.maxPeakRssMiB} MiB of one process (tree ${s.maxPeakTreeRssMiB} MiB); target < 250 MiB ${s.met ? 'met' : 'NOT met'}\n`);
process.stdout.write(`CLI from ${out.from}; load average ${out.loadAverage.join(' ')}; reports/bench/rss.json\n`);
