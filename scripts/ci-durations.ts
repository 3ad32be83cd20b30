import { readFileSync } from 'node:fs';
import { dirname, matchesGlob, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Where test:all's time goes (issue 41): the vitest JSON report .ci/run writes
// (reports/ci/vitest.json), each file dealt to its tier by vitest.config.ts's projects, printed as
// each tier's wall time, the sum of its files' times (above the wall where files run side by side)
// and its slowest files. `npx tsx scripts/ci-durations.ts [report.json]`.
// vitest's JSON leaves a file's beforeAll out of its span (the hostile suite, whose runs are all in
// its beforeAll, shows 0 s): the tiers run one after another (sequence.groupOrder), so a tier's wall
// is from the previous tier's last end (the run's start for the first) to its own last end.

export interface TierGlobs {
  name: string;
  include: readonly string[];
  exclude: readonly string[];
}
export interface FileTime {
  file: string;
  startMs: number;
  endMs: number;
  /** The sum of its tests' durations: vitest's JSON gives some files (a failed collection, some long suites) a start and end that span none of their tests. */
  testsMs: number;
}

const fileMs = (f: FileTime): number => Math.max(f.endMs - f.startMs, f.testsMs);
export interface TierTime {
  tier: string;
  files: number;
  wallS: number;
  sumS: number;
  slowest: { file: string; s: number }[];
}

/** The tier whose include matches the file and whose exclude does not; the first such, as vitest deals them. */
export function tierOf(file: string, tiers: readonly TierGlobs[]): string {
  const t = tiers.find((p) => p.include.some((g) => matchesGlob(file, g)) && !p.exclude.some((g) => matchesGlob(file, g)));
  return t?.name ?? 'none';
}

export function tierTimes(runStartMs: number, files: readonly FileTime[], tiers: readonly TierGlobs[], top = 5): TierTime[] {
  const by = new Map<string, FileTime[]>();
  for (const f of files) {
    const tier = tierOf(f.file, tiers);
    by.set(tier, [...(by.get(tier) ?? []), f]);
  }
  const rows = [...by].map(([tier, fs]) => ({
    tier,
    endMs: Math.max(...fs.map((f) => f.endMs)),
    files: fs.length,
    sumS: fs.reduce((s, f) => s + fileMs(f), 0) / 1000,
    slowest: [...fs].sort((a, b) => fileMs(b) - fileMs(a)).slice(0, top).map((f) => ({ file: f.file, s: fileMs(f) / 1000 })),
  }));
  rows.sort((a, b) => a.endMs - b.endMs);
  return rows.map(({ endMs, ...r }, i) => ({ ...r, wallS: (endMs - (rows[i - 1]?.endMs ?? runStartMs)) / 1000 }));
}

export function formatTierTimes(rows: readonly TierTime[]): string {
  const lines = ['tier      files   wall s    sum s  slowest files (s)'];
  for (const r of rows) {
    lines.push(`${r.tier.padEnd(9)} ${String(r.files).padStart(5)} ${r.wallS.toFixed(0).padStart(8)} ${r.sumS.toFixed(0).padStart(8)}  ${r.slowest.map((s) => `${s.file} ${s.s.toFixed(0)}`).join(', ')}`);
  }
  return lines.join('\n');
}

/** The tiers of vitest.config.ts's projects, in the order they are listed. */
export async function configTiers(): Promise<TierGlobs[]> {
  const config = (await import('../vitest.config.ts')).default as { test?: { projects?: { test?: { name?: string; include?: string[]; exclude?: string[] } }[] } };
  return (config.test?.projects ?? []).map((p) => ({ name: p.test?.name ?? '?', include: p.test?.include ?? [], exclude: p.test?.exclude ?? [] }));
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? 'reports/ci/vitest.json';
  const report = JSON.parse(readFileSync(file, 'utf8')) as { startTime: number; testResults: { name: string; startTime: number; endTime: number; assertionResults: { duration?: number | null }[] }[] };
  const tiers = await configTiers();
  // The report names files absolutely, in the checkout that ran them: reports/ci/ sits two levels below it.
  const checkout = resolve(dirname(file), '../..');
  // A file that ran no test (a failed collection) has no times: left out, and counted.
  const timed = report.testResults.filter((t) => t.endTime > t.startTime);
  const files = timed.map((t) => ({ file: relative(checkout, t.name), startMs: t.startTime, endMs: t.endTime, testsMs: t.assertionResults.reduce((s, a) => s + (a.duration ?? 0), 0) }));
  const untimed = report.testResults.length - timed.length;
  process.stdout.write(`${formatTierTimes(tierTimes(report.startTime, files, tiers))}\n${untimed === 0 ? '' : `(${untimed} files without times left out)\n`}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
