import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { configTiers, formatTierTimes, tierTimes } from './ci-durations.ts';

// test:all's time per tier, measured (issue 41 item 4): runs vitest on the named projects (all of
// them by default, in test:all's order), then prints each tier's wall time, the sum of its files and
// its slowest files (scripts/ci-durations.ts), the whole run's wall and CPU (its own and its
// children's, from /usr/bin/time where the machine has it) and the load average before and after,
// and writes them to reports/bench/tier-times.json.
//   npx tsx scripts/tier-times.ts [--project NAME ...] [vitest files or -t filters ...]

const root = join(import.meta.dirname, '..');
const out = join(root, 'reports/bench');
mkdirSync(out, { recursive: true });
const report = join(out, 'tier-times.vitest.json');
const args = process.argv.slice(2);
const vitest = ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
const timed = existsSync('/usr/bin/time');
const before = loadavg().map((x) => Number(x.toFixed(2)));
const started = Date.now();
const run = timed
  ? spawnSync('/usr/bin/time', ['-f', 'tier-times: %e %U %S', 'npx', ...vitest], { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' })
  : spawnSync('npx', vitest, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
const wallS = (Date.now() - started) / 1000;
const after = loadavg().map((x) => Number(x.toFixed(2)));
process.stderr.write(run.stderr.replace(/^tier-times: .*\n?/m, ''));
const cpu = /^tier-times: [\d.]+ ([\d.]+) ([\d.]+)/m.exec(run.stderr);
const cpuS = cpu === null ? null : Number(cpu[1]) + Number(cpu[2]);

const vitestReport = JSON.parse(readFileSync(report, 'utf8')) as { startTime: number; testResults: { name: string; startTime: number; endTime: number; assertionResults: { duration?: number | null }[] }[] };
const files = vitestReport.testResults
  .filter((t) => t.endTime > t.startTime)
  .map((t) => ({ file: t.name.startsWith(root) ? t.name.slice(root.length + 1) : t.name, startMs: t.startTime, endMs: t.endTime, testsMs: t.assertionResults.reduce((s, a) => s + (a.duration ?? 0), 0) }));
const tiers = tierTimes(vitestReport.startTime, files, await configTiers());
process.stdout.write(`${formatTierTimes(tiers)}\nwhole run: ${wallS.toFixed(0)} s wall, ${cpuS === null ? 'CPU not measured (no /usr/bin/time)' : `${cpuS.toFixed(0)} s CPU`}; load average ${before.join(' ')} before, ${after.join(' ')} after; vitest exit ${run.status ?? 'signal'}\n`);
writeFileSync(join(out, 'tier-times.json'), `${JSON.stringify({ args, node: process.version, wallS, cpuS, loadAverageBefore: before, loadAverageAfter: after, exit: run.status, tiers }, null, 2)}\n`);
process.exitCode = run.status ?? 1;
