import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { FuzzTarget } from '../target.ts';
import { jazzerLaunch, type JazzerLaunch } from './jazzer-compat.ts';

const require = createRequire(import.meta.url);

export interface JazzerRun {
  target: string;
  engine: 'jazzer';
  seconds: number;
  /** Wall time of the fuzzing process (startup included; short of `seconds` when it stopped at a finding). */
  ranSeconds: number;
  executions: number;
  /** libFuzzer's coverage counters at the end: edges of the instrumented code and features (edges with hit counts, comparisons). */
  coverage: { edges: number; features: number } | null;
  corpus: { before: number; after: number };
  peakRssMb: number | null;
  /** The input that broke an invariant (or hung, or ran out of memory), kept under .fuzz/<target>/findings. */
  finding: { file: string; error: string } | null;
  note: string | null;
}

/** Compiles the targets and the parsers with tsc: Jazzer.js instruments JavaScript as it loads, not TypeScript. */
export function buildForJazzer(root: string, out: string): void {
  const tsc = tscBin();
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'fuzz/tsconfig.jazzer.json'), '--outDir', out], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('fuzz: tsc could not compile the targets for Jazzer.js');
  // The files the modules read beside themselves (the Receipt schema and vectors, recorded streams).
  for (const dir of ['fixtures', 'spec', 'examples', 'src/server-metrics/fixtures']) symlinkSync(join(root, dir), join(out, dir));
}

/** The tsc command line of the installed TypeScript, from its package.json's bin (TypeScript 7 exports no `typescript/bin/tsc`). */
function tscBin(): string {
  const manifest = require.resolve('typescript/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | { tsc: string } };
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin.tsc);
}

const files = (dir: string): number => (existsSync(dir) ? readdirSync(dir).length : 0);

/** Jazzer.js's command line for a target: the entry, sync or not, what to instrument, the per-input timeout. */
function options(root: string, build: string, target: FuzzTarget): string[] {
  return [
    relative(root, entry(build, target)),
    ...(target.async === true ? [] : ['--sync']),
    '-i',
    `${relative(root, build)}/src/`,
    '-e',
    'node_modules',
    '--timeout',
    String(Math.max(10_000, target.timeBoundMs * 10)),
  ];
}

function entry(build: string, target: FuzzTarget): string {
  const file = join(build, `entry-${target.name}.mjs`);
  writeFileSync(
    file,
    `import { targetNamed } from './fuzz/targets/index.js';
import { execute } from './fuzz/execute.js';
const target = targetNamed(${JSON.stringify(target.name)});
export function fuzz(data) {
  return execute(target, data);
}
`,
  );
  return file;
}

interface Spawned {
  code: number | null;
  log: string;
  /** libFuzzer read the corpus and began (its INITED line): the target loaded. */
  started: boolean;
}

function jazzer(launch: Extract<JazzerLaunch, { ok: true }>, args: string[], logFile: string, killAfterMs: number): Promise<Spawned> {
  const cli = require.resolve('@jazzer.js/core/dist/cli.js');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...launch.nodeArgs, cli, ...args], { env: { ...process.env, ...launch.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(logFile);
    let tail = '';
    let started = false;
    const keep = (b: Buffer): void => {
      log.write(b);
      tail = (tail + b.toString('utf8')).slice(-64 * 1024);
      started ||= tail.includes('INITED');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(killer);
      log.end(() => resolve({ code, log: tail, started }));
    });
  });
}

/**
 * A coverage-guided run: libFuzzer (in Jazzer.js) mutates the inputs that reached new code, from
 * the target's corpus, for `seconds`. New inputs go to .fuzz/<target>/corpus (fuzz/minimise.ts then
 * folds them into the kept corpus: libFuzzer's own -merge=1 restarts the process, which Jazzer.js's
 * command line does not survive).
 */
/** Replays the kept corpus with Istanbul coverage (Jazzer.js --coverage, regression mode): what the corpus reaches of the target's sources. */
export async function jazzerCoverage(root: string, build: string, target: FuzzTarget): Promise<{ lines: number; branches: number; files: Record<string, { lines: number; branches: number }> } | null> {
  const launch = jazzerLaunch(join(root, '.fuzz'));
  if (!launch.ok) return null;
  const dir = join(root, '.fuzz', target.name, 'coverage');
  rmSync(dir, { recursive: true, force: true });
  const r = await jazzer(launch, [...options(root, build, target), join(root, 'fuzz/corpus', target.name), '--mode', 'regression', '--coverage', '--coverage_directory', dir, '--coverage_reporters', 'json-summary'], join(root, '.fuzz', target.name, 'coverage.log'), 1_800_000);
  if (r.code !== 0 || !existsSync(join(dir, 'coverage-summary.json'))) return null;
  const summary = JSON.parse(readFileSync(join(dir, 'coverage-summary.json'), 'utf8')) as Record<string, { lines: { total: number; covered: number }; branches: { total: number; covered: number } }>;
  const out: Record<string, { lines: number; branches: number }> = {};
  let lines = [0, 0];
  let branches = [0, 0];
  for (const source of target.sources) {
    const compiled = join(build, source.replace(/\.ts$/, '.js'));
    const s = summary[compiled];
    if (s === undefined) continue;
    out[source] = { lines: (100 * s.lines.covered) / Math.max(1, s.lines.total), branches: (100 * s.branches.covered) / Math.max(1, s.branches.total) };
    lines = [(lines[0] ?? 0) + s.lines.covered, (lines[1] ?? 0) + s.lines.total];
    branches = [(branches[0] ?? 0) + s.branches.covered, (branches[1] ?? 0) + s.branches.total];
  }
  return { lines: (100 * (lines[0] ?? 0)) / Math.max(1, lines[1] ?? 0), branches: (100 * (branches[0] ?? 0)) / Math.max(1, branches[1] ?? 0), files: out };
}

export async function runJazzer(target: FuzzTarget, o: { root: string; seconds: number; build: string }): Promise<JazzerRun> {
  const work = join(o.root, '.fuzz', target.name);
  const launch = jazzerLaunch(join(o.root, '.fuzz'));
  if (!launch.ok) throw new Error(`fuzz: Jazzer.js cannot run here: ${launch.why} (use --engine fast-check)`);
  const corpus = join(o.root, 'fuzz/corpus', target.name);
  const fresh = join(work, 'corpus');
  const findings = join(work, 'findings');
  for (const d of [corpus, fresh, findings]) mkdirSync(d, { recursive: true });
  const before = files(corpus);
  const common = options(o.root, o.build, target);
  const libFuzzer = [`-max_len=${target.maxLen}`, '-rss_limit_mb=3072', `-artifact_prefix=${findings}/`, '-print_final_stats=1'];
  const t0 = Date.now();
  const run = await jazzer(launch, [...common, fresh, corpus, '--', ...libFuzzer, `-max_total_time=${o.seconds}`], join(work, 'jazzer.log'), (o.seconds + 300) * 1000);
  const ranSeconds = Math.round((Date.now() - t0) / 1000);
  // A target that fails to load (a missing file, a compile error) never reaches INITED: the engine's error, not a finding.
  if (!run.started) throw new Error(`fuzz: Jazzer.js did not start ${target.name}: ${/^(\w*Error[^\n]*)/m.exec(run.log)?.[1] ?? `exit ${run.code}`} (log: ${join(work, 'jazzer.log')})`);
  // From the whole log: libFuzzer's recommended dictionary, printed after its DONE line, can fill the last 64 KiB.
  const stats = parseStats(readFileSync(join(work, 'jazzer.log'), 'utf8'));
  const finding = parseFinding(run.log, run.code);
  return { target: target.name, engine: 'jazzer', seconds: o.seconds, ranSeconds, executions: stats.executions, coverage: stats.coverage, corpus: { before, after: files(corpus) }, peakRssMb: stats.peakRssMb, finding, note: launch.note };
}

export function parseStats(log: string): { executions: number; coverage: JazzerRun['coverage']; peakRssMb: number | null } {
  // The final lines can be lost when Jazzer.js exits before its pipe drains: then the last progress line's count (a few seconds short).
  const executed = /stat::number_of_executed_units:\s*(\d+)/.exec(log) ?? /Done (\d+) runs in/.exec(log) ?? [...log.matchAll(/^#(\d+)\t/gm)].at(-1) ?? null;
  const covs = [...log.matchAll(/cov: (\d+) ft: (\d+)/g)].at(-1);
  const rss = /stat::peak_rss_mb:\s*(\d+)/.exec(log);
  return {
    executions: executed === null ? 0 : Number(executed[1]),
    coverage: covs === undefined ? null : { edges: Number(covs[1]), features: Number(covs[2]) },
    peakRssMb: rss === null ? null : Number(rss[1]),
  };
}

function parseFinding(log: string, code: number | null): JazzerRun['finding'] {
  const written = /Test unit written to (\S+)/.exec(log);
  if (code === 0 && written === null) return null;
  const error = /==\d+== (Uncaught Exception: [^\n]*(?:\n {4}at [^\n]*){0,6})/.exec(log)?.[1] ?? /(ALARM: [^\n]*|ERROR: libFuzzer: [^\n]*|==\d+== ERROR: [^\n]*)/.exec(log)?.[1] ?? `jazzer exited with ${code}`;
  return { file: written?.[1] ?? '(none written)', error };
}
