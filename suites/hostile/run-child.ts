/**
 * Runs one `iari` command as a child process the way a user does (`node bin/iari.js`, compiled from
 * dist/), and measures it: exit code, wall time, and peak resident memory from /proc every 25 ms,
 * for the child itself and for its whole process tree (the contract suites' vitest worker is a
 * grandchild). The peak of one process is the kernel's own high-water mark (VmHWM), so a spike
 * between two samples counts; only one in the last 25 ms before the process exits can be missed.
 * A hard kill at `killAfterMs` keeps a hung child from hanging the suite.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  wallMs: number;
  /** Highest RSS of any one process of the tree (its VmHWM: what /usr/bin/time -v reports), MiB. */
  peakRssMiB: number;
  /** Highest sum of the RSS of the tree's processes at one sample, MiB. */
  peakTreeRssMiB: number;
  /**
   * Time the child's main thread was ready to run but waited for a CPU (its run-queue delay,
   * /proc/PID/schedstat), ms: what a machine busier than the product's bound assumes adds to the
   * wall time. The last sample before the child exits.
   */
  cpuWaitMs: number;
  stdout: string;
  stderr: string;
  killed: boolean;
}

/** The process's resident set now and its high-water mark, KiB (0 once it is gone). */
function rssKiB(pid: number): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
    return { now: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return { now: 0, peak: 0 };
  }
}

/** The main thread's run-queue delay so far, ns (0 when /proc cannot say). */
function runDelayNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

function tree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length && all.length < 64; i++) all.push(...childrenOf(all[i] as number));
  return all;
}

/**
 * The command line that runs the CLI: compiled (bin/iari.js) when dist/ is at least as new as the
 * sources, else from source with the type-stripping hooks (scripts/register-ts.mjs), so a stale
 * build never tests old code. CI builds dist/ on `npm ci`.
 */
let decided: { argv: string[]; from: 'dist' | 'source' } | undefined;

export function iariCommand(): { argv: string[]; from: 'dist' | 'source' } {
  // Decided once per suite (after ensureBuilt): an edit to the sources during the run must not switch later runs to source.
  decided ??= whichCommand();
  return decided;
}

function whichCommand(): { argv: string[]; from: 'dist' | 'source' } {
  const entry = join(ROOT, 'dist/src/cli/entry.js');
  if (existsSync(entry)) {
    const built = statSync(entry).mtimeMs;
    const newest = (dir: string): number =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .reduce((m, f) => Math.max(m, statSync(join(ROOT, dir, f)).mtimeMs), 0);
    if (Math.max(newest('src'), newest('mock-server')) <= built) return { argv: [join(ROOT, 'bin/iari.js')], from: 'dist' };
  }
  return { argv: ['--import', join(ROOT, 'scripts/register-ts.mjs'), join(ROOT, 'src/cli/entry.ts')], from: 'source' };
}

/**
 * Builds dist/ when it is older than the sources (`npm run build`, as `npm ci` does on a fresh clone),
 * so the suite judges the CLI users run: from source, the type-stripping hooks load every module
 * through a hooks thread of their own, which added 60 MiB and seconds of startup to every run
 * (issue 42). A failed build leaves the runs from source (the suite's output says which).
 */
export async function ensureBuilt(): Promise<'dist' | 'source'> {
  if (whichCommand().from === 'dist') return 'dist';
  await new Promise<void>((resolve) => {
    const child = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  return iariCommand().from;
}

export function runIari(args: string[], env: Record<string, string>, killAfterMs: number): Promise<ChildRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...iariCommand().argv, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, FORCE_COLOR: '0', GITHUB_ACTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    let peakTree = 0;
    let waitNs = 0;
    let killed = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const sample = (): void => {
      if (child.pid === undefined) return;
      waitNs = Math.max(waitNs, runDelayNs(child.pid));
      let sum = 0;
      for (const pid of tree(child.pid)) {
        const kib = rssKiB(pid);
        sum += kib.now;
        if (kib.peak > peak) peak = kib.peak;
      }
      if (sum > peakTree) peakTree = sum;
    };
    const sampler = setInterval(sample, 25);
    const killer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(killer);
      resolve({ code, signal, wallMs: performance.now() - started, peakRssMiB: peak / 1024, peakTreeRssMiB: peakTree / 1024, cpuWaitMs: waitNs / 1e6, stdout, stderr, killed });
    });
  });
}

/** Every file under a directory (the run's report directory). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

/** A stack trace line, as Node prints them. */
export const STACK_LINE = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;
