/**
 * Hostile servers (issues 14 and 22): for every mode of suites/hostile/hostile-server.ts, both
 * `iari test --only …` and `iari load --concurrency 4 --duration 5s` with an errors SLO, run as a
 * user runs them (a child process, compiled CLI), the load WITH DEFAULT SETTINGS (no deadline flag),
 * must end within their bounds (25 s for the load), exit 1 (test) / 3 (load), fail the relevant
 * requirement with a message naming it, stay under 300 MiB RSS, print no stack trace and leave the
 * canary token nowhere; and a 307 to another origin never carries the token there.
 *
 * Memory is measured the way it is judged (issue 42): every run goes while a busy sibling spins on
 * every core (busy-sibling.ts), beside the other runs of the suite, and the peak of each run is the
 * kernel's high-water mark of its process. The output and reports/bench/hostile.json give each
 * run's peak and its margin under the bound. The runs are of the compiled CLI, as users run it
 * (dist/ is built first when older than the sources).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/load/results/load-result.ts';
import { hostileModes, modeBehaviour, prepareHostileModes, startHostileServer, type HostileMode } from './hostile-server.ts';
import { ensureBuilt, filesUnder, iariCommand, ROOT, runIari, STACK_LINE, type ChildRun } from './run-child.ts';
import { startBusySibling } from './busy-sibling.ts';

const secret = randomBytes(16).toString('hex');
const CANARY = `sk-iari-canary-${secret}`;
const dir = mkdtempSync(join(tmpdir(), 'iari-hostile-'));

const LOAD_S = 5;
/** Default settings (issue 22): no deadline flag; the SLO only adds a breach to the failed run. */
const LOAD_ARGS = ['--concurrency', '4', '--duration', `${LOAD_S}s`, '--slo', 'errors.rate<0.01', '--quiet'];
const RSS_BOUND_MIB = 300;
/** Issue 42: what every run should stay under, busy machine included, for a clear margin under the bound (reported, not asserted). */
const RSS_TARGET_MIB = 250;
/** Runs at once: the servers hang, so the children mostly wait. */
const PARALLEL = 4;

/**
 * The bounds scale with how long the CLI takes to start on this machine (measured first: `iari test
 * --help`, net of its wait for a CPU): about a second on an idle two-core box, a few on a slow one.
 * Every wall time is judged net of its main thread's wait for a CPU (run-queue delay, run-child.ts),
 * so a machine far busier than the suite's own runs and sibling (other jobs on a shared host) does
 * not fail a bound that is about iari; the table and reports/bench/hostile.json give both.
 */
let startupS = 0;
/**
 * Per mode, `iari test` judges the bounds and the requirement the mode breaks (--only: the other
 * checks are not selected), with default settings (issue 22 part 6: no deadline flag; the
 * never-ending modes but one with SHORT_DEADLINE, below). The
 * whole-run deadline against a server that hangs is proven by a full run with short deadlines,
 * and the default bound (issue 22 part 3: under 3 minutes) by a full run with none (below).
 */
const ONLY = 'HDR-012,HDR-013,HDR-014,HDR-015,HDR-016,CHAT-STREAM-046,AUTH-005';
const TEST_ARGS = (only: string): string[] => ['--only', only];
/**
 * The answers that never end are caught by the request deadline: the endless stream shows it at the
 * default (1 min), here and in the whole default run below; the other never-ending modes show the
 * same deadline at 10 s, the shortest the checks keep (stalls.ts), so the suite does not wait out the
 * default minute three more times. Their bound is the default run's all the same.
 */
const SHORT_DEADLINE = ['--request-timeout', '10s'];
/** Issue 22 part 3: with default settings, `iari test` against a server whose answers never end is over within 3 minutes. */
const DEFAULT_TEST_BOUND_S = 180;
/**
 * The full run against the endless stream with short deadlines: the checks get at least 15 s after
 * startup, and each request a third of the run, so the run needs more than its deadline whatever
 * the machine's speed (the preflight, the first stream and two more kinds of request each wait a
 * whole request deadline: stalls.ts shortens nothing below 10 s) and must be cut by it.
 */
let fullRunS = 20;
const fullArgs = (): string[] => ['--request-timeout', `${Math.ceil(fullRunS / 3)}s`, '--check-timeout', `${Math.ceil(fullRunS / 2)}s`, '--run-timeout', `${fullRunS}s`];
/** --run-timeout, the 30 s backstop after it, and startup and report writing. */
const testBoundS = (runS: number): number => runS + 30 + 2 * startupS;
/**
 * Issue 22 part 2: a 5 s run with default settings ends within 25 s of its start against any
 * server (pre-window deadline 5 s + 5 s + 5 s grace, and writing its reports), plus startup.
 */
const loadBoundS = (): number => 25 + 2 * startupS;

/** The requirement each mode must fail, the message that must say why, and the load error class it must produce. */
/** A never-ending answer: HDR-012 fails on the first one that passed the whole request deadline (the preflight's /v1/me, or a stream). */
const UNENDED = /(request deadline of 1 min|do not complete|streams do not end).*\(HDR-012/;
const expected: Record<HostileMode, { id: string; message: RegExp; loadClass: string; loadDetail: RegExp; loadArgs?: string[]; only?: string; testArgs?: string[] }> = {
  'endless-stream': { id: 'HDR-012', message: UNENDED, loadClass: 'timeout', loadDetail: /whole measured window|request deadline/ },
  'ping-only': { id: 'HDR-012', message: UNENDED, loadClass: 'timeout', loadDetail: /whole measured window|request deadline/, testArgs: SHORT_DEADLINE },
  dribble: { id: 'HDR-012', message: UNENDED, loadClass: 'timeout', loadDetail: /whole measured window|request deadline/, testArgs: SHORT_DEADLINE },
  'gzip-bomb': { id: 'HDR-014', message: /inflates past 16 MiB.*\(HDR-014\)/, loadClass: 'stream_nonconforming', loadDetail: /Content-Encoding gzip/ },
  'huge-json': { id: 'HDR-013', message: /longer than 16 MiB.*\(HDR-013\)/, loadClass: 'stream_nonconforming', loadDetail: /text\/event-stream/ },
  // Whole bodies: only a read past 16 MiB shows the size, so the load process reads and drops it.
  'huge-json-chunked': { id: 'HDR-013', message: /longer than 16 MiB.*\(HDR-013\)/, loadClass: 'body_invalid', loadDetail: /longer than 16 MiB; iari stopped reading/, loadArgs: ['--no-stream'] },
  'deep-json': { id: 'HDR-015', message: /nested deeper than 64 levels/, loadClass: 'stream_nonconforming', loadDetail: /HDR-015/ },
  // Issue 22 part 4: refused on the main thread, never copied to the check worker.
  'deep-bare': { id: 'HDR-015', message: /nested deeper than 64 levels/, loadClass: 'stream_nonconforming', loadDetail: /HDR-015 JSON nested deeper than 64 levels; iari stopped reading the stream before copying it/ },
  // Valid JSON just under the event limit: what fails is the chunk's missing role; the bound is memory.
  'huge-event': { id: 'CHAT-STREAM-014', message: /role/, loadClass: 'stream_nonconforming', loadDetail: /CHAT-STREAM-014/, only: 'CHAT-STREAM-014' },
  // autocannon's parser ignores the bad size: each stream ends cut. The server closes each connection after its answer
  // without saying so: the request written next on it is a connection reuse race, sent again, not a reset (docs/load.md).
  'bad-chunk-size': { id: 'HDR-016', message: /not well-formed HTTP\/1\.1.*\(HDR-016\)/, loadClass: 'stream_nonconforming', loadDetail: /CHAT-STREAM-002/ },
  'reset-mid-body': { id: 'HDR-016', message: /ended before the response did.*\(HDR-016\)/, loadClass: 'reset', loadDetail: /./ },
  'garbage-status': { id: 'HDR-016', message: /not well-formed HTTP\/1\.1.*\(HDR-016\)/, loadClass: 'reset', loadDetail: /./ },
  'bad-content-length': { id: 'HDR-016', message: /ended before the response did.*\(HDR-016\)/, loadClass: 'reset', loadDetail: /./ },
  'redirect-loop': { id: 'AUTH-005', message: /307/, loadClass: 'http_status', loadDetail: /307/ },
  http10: { id: 'HDR-012', message: UNENDED, loadClass: 'timeout', loadDetail: /./, testArgs: SHORT_DEADLINE },
  'token-reflect': { id: 'AUTH-005', message: /401/, loadClass: 'stream_nonconforming', loadDetail: /./ },
  'redirect-other-origin': { id: 'AUTH-005', message: /307/, loadClass: 'http_status', loadDetail: /307/ },
};

interface ModeRuns {
  test: ChildRun;
  load: ChildRun;
  testDir: string;
  loadDir: string;
  otherOrigin: { requests: number; withAuthorization: number };
}
const runs = new Map<HostileMode, ModeRuns>();
let fullRun: { run: ChildRun; dir: string } | undefined;
let defaultRun: { run: ChildRun; dir: string } | undefined;

/** A whole `iari test` (every check) against the endless stream: it must end at --run-timeout. */
async function runFull(): Promise<void> {
  const server = await startHostileServer('endless-stream');
  const dir2 = join(dir, 'test-full');
  try {
    fullRun = { run: await runIari(['test', '--base-url', server.url, ...fullArgs(), '--report', dir2], { IARI_TOKEN: CANARY }, (testBoundS(fullRunS) + 60) * 1000), dir: dir2 };
  } finally {
    await server.close();
  }
}

/** A whole `iari test` with default settings against the endless stream (issue 22 part 3). */
async function runDefault(): Promise<void> {
  const server = await startHostileServer('endless-stream');
  const dir2 = join(dir, 'test-default');
  try {
    defaultRun = { run: await runIari(['test', '--base-url', server.url, '--report', dir2], { IARI_TOKEN: CANARY }, (DEFAULT_TEST_BOUND_S + 2 * startupS + 120) * 1000), dir: dir2 };
  } finally {
    await server.close();
  }
}

async function runMode(mode: HostileMode): Promise<void> {
  const server = await startHostileServer(mode);
  const testDir = join(dir, `test-${mode}`);
  const loadDir = join(dir, `load-${mode}`);
  try {
    const env = { IARI_TOKEN: CANARY };
    const test = await runIari(['test', '--base-url', server.url, ...TEST_ARGS(expected[mode].only ?? ONLY), ...(expected[mode].testArgs ?? []), '--report', testDir], env, (DEFAULT_TEST_BOUND_S + 2 * startupS + 60) * 1000);
    const load = await runIari(['load', '--base-url', server.url, ...LOAD_ARGS, ...(expected[mode].loadArgs ?? []), '--report', loadDir], env, (loadBoundS() + 60) * 1000);
    runs.set(mode, { test, load, testDir, loadDir, otherOrigin: { ...server.otherOrigin } });
  } finally {
    await server.close();
  }
}

/** The machine while the runs went: the busy sibling's threads and the load average before and after. */
const contention = { siblingThreads: 0, loadAverageBefore: [0, 0, 0], loadAverageAfter: [0, 0, 0] };

beforeAll(async () => {
  await ensureBuilt();
  prepareHostileModes();
  contention.loadAverageBefore = loadavg().map((x) => Number(x.toFixed(2)));
  // Started first, so the startup measured below (and the bounds scaled from it) is the busy machine's too.
  const sibling = startBusySibling(590_000);
  contention.siblingThreads = sibling.threads;
  try {
    const help = await runIari(['test', '--help'], {}, 120_000);
    // Net of its wait for a CPU, as the runs' wall times are (common()).
    startupS = (help.wallMs - help.cpuWaitMs) / 1000;
    // The run's clock starts with the command: leave the checks at least 15 s after startup.
    fullRunS = Math.max(20, Math.ceil(2 * startupS + 15));
    // The longest runs first: the default full run (about 2.5 min), then the short-deadline one.
    const queue: (HostileMode | 'full' | 'default')[] = ['default', 'full', ...hostileModes];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let m = queue.shift(); m !== undefined; m = queue.shift()) await (m === 'full' ? runFull() : m === 'default' ? runDefault() : runMode(m));
      }),
    );
  } finally {
    contention.loadAverageAfter = loadavg().map((x) => Number(x.toFixed(2)));
    await sibling.stop();
  }
}, 600_000);

afterAll(() => {
  const row = (mode: HostileMode, command: string, c: ChildRun) => ({
    mode,
    command,
    exit: c.code,
    wallS: Number((c.wallMs / 1000).toFixed(1)),
    cpuWaitS: Number((c.cpuWaitMs / 1000).toFixed(1)),
    peakRssMiB: Number(c.peakRssMiB.toFixed(1)),
    marginMiB: Number((RSS_BOUND_MIB - c.peakRssMiB).toFixed(1)),
    peakTreeRssMiB: Math.round(c.peakTreeRssMiB),
  });
  const rows = hostileModes.flatMap((m) => {
    const r = runs.get(m);
    return r === undefined ? [] : [row(m, 'test', r.test), row(m, 'load', r.load)];
  });
  if (defaultRun !== undefined) rows.push(row('endless-stream', 'test (defaults)', defaultRun.run));
  if (fullRun !== undefined) rows.push(row('endless-stream', 'test (all checks)', fullRun.run));
  if (rows.length > 0) {
    const highest = rows.reduce((a, b) => (b.peakRssMiB > a.peakRssMiB ? b : a));
    const summary = { boundMiB: RSS_BOUND_MIB, targetMiB: RSS_TARGET_MIB, highest: { mode: highest.mode, command: highest.command, peakRssMiB: highest.peakRssMiB, marginMiB: highest.marginMiB }, overTarget: rows.filter((r) => r.peakRssMiB >= RSS_TARGET_MIB).length };
    const out = join(ROOT, 'reports/bench');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'hostile.json'), `${JSON.stringify({ from: iariCommand().from, node: process.version, startupS, parallel: PARALLEL, contention, testArgs: TEST_ARGS(ONLY), fullArgs: fullArgs(), loadArgs: LOAD_ARGS, summary, rows }, null, 2)}\n`);
    process.stdout.write(
      `\nhostile servers (${iariCommand().from}, node ${process.version}, ${PARALLEL} runs at once beside a busy sibling on ${contention.siblingThreads} threads, load average ${contention.loadAverageBefore[0]} before, ${contention.loadAverageAfter[0]} after; startup ${startupS.toFixed(1)} s; load with default settings; test ${TEST_ARGS(ONLY).join(' ')}):\n` +
        `${'mode'.padEnd(22)} ${'command'.padEnd(17)} exit  wall s  cpu wait s  peak MiB  margin MiB (bound ${RSS_BOUND_MIB}, target < ${RSS_TARGET_MIB})\n` +
        `${rows.map((r) => `${r.mode.padEnd(22)} ${r.command.padEnd(17)} ${String(r.exit).padEnd(4)} ${String(r.wallS).padStart(6)} ${String(r.cpuWaitS).padStart(11)} ${r.peakRssMiB.toFixed(1).padStart(9)} ${r.marginMiB.toFixed(1).padStart(11)}${r.peakRssMiB >= RSS_TARGET_MIB ? '  over the target' : ''}`).join('\n')}\n` +
        `highest: ${highest.mode} ${highest.command} ${highest.peakRssMiB.toFixed(1)} MiB, margin ${highest.marginMiB.toFixed(1)} MiB; ${summary.overTarget} run(s) at or over ${RSS_TARGET_MIB} MiB\n`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Every form in which the token would count as leaked: raw, URL-encoded, base64, and any 12-character fragment of its random part. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const f of [CANARY, encodeURIComponent(CANARY), Buffer.from(CANARY).toString('base64').replace(/=+$/, '')]) if (text.includes(f)) found.push(`form ${f.slice(0, 6)}…`);
  for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return [...found, 'a fragment'];
  return found;
}

function common(run: ChildRun, reportDir: string, bound: number, rssBound = RSS_BOUND_MIB): void {
  expect(run.killed, 'killed by the suite: the run did not end').toBe(false);
  // The bounds are the product's (its deadlines, grace and work on a machine it shares with the suite's own runs):
  // time its main thread stood ready while other processes held every CPU is the machine's, not iari's.
  expect((run.wallMs - run.cpuWaitMs) / 1000, `wall seconds (${(run.wallMs / 1000).toFixed(1)}) less the main thread's wait for a CPU (${(run.cpuWaitMs / 1000).toFixed(1)})`).toBeLessThan(bound);
  expect(run.peakRssMiB, 'peak RSS of one process, MiB').toBeLessThan(rssBound);
  expect(`${run.stdout}\n${run.stderr}`, 'a stack trace was printed').not.toMatch(STACK_LINE);
  expect(leaks(`${run.stdout}\n${run.stderr}`), 'canary in stdout/stderr').toEqual([]);
  const files = filesUnder(reportDir);
  expect(files.length, `report files (exit ${run.code}; stderr: ${run.stderr.slice(0, 400)})`).toBeGreaterThan(0);
  for (const f of files) expect(leaks(readFileSync(f, 'latin1')), `canary in ${f}`).toEqual([]);
}

describe('hostile servers', () => {
  for (const mode of hostileModes) {
    const e = expected[mode];
    it(`${e.id}: iari test --only … with ${e.testArgs === undefined ? 'default settings' : e.testArgs.join(' ')} against ${modeBehaviour[mode]} ends within 3 minutes (plus startup), exits 1 and fails ${e.id} saying why, in bounded memory, leaking nothing`, () => {
      const r = runs.get(mode);
      if (r === undefined) throw new Error(`mode ${mode} did not run`);
      common(r.test, r.testDir, DEFAULT_TEST_BOUND_S + 2 * startupS);
      expect(r.test.code, r.test.stderr).toBe(1);
      const report = JSON.parse(readFileSync(join(r.testDir, 'conformance.json'), 'utf8')) as { results: { id: string; verdict: string; failures?: { message: string; received?: unknown }[] }[] };
      const messages = report.results.flatMap((x) => (x.verdict === 'fail' ? (x.failures ?? []).map((f) => `${x.id}: ${f.message}${f.received === undefined ? '' : ` (received ${JSON.stringify(f.received)})`}`) : []));
      // The bounds run first (src/checks/runner/catalog.ts), so the requirement is decided before the run's deadline.
      const own = report.results.find((x) => x.id === e.id);
      expect(own?.verdict, JSON.stringify(own)).toBe('fail');
      expect(messages.filter((m) => m.startsWith(`${e.id}: `) && e.message.test(m) && !/not decided/.test(m)).length, messages.slice(0, 8).join('\n')).toBeGreaterThan(0);
    });

    it(`${e.id}: iari load --duration 5s${e.loadArgs === undefined ? '' : ` ${e.loadArgs.join(' ')}`} with default settings against ${modeBehaviour[mode]} ends within 25 s (plus startup), exits 3 with ${e.loadClass} errors and says the run failed on its first line, in bounded memory, leaking nothing`, () => {
      const r = runs.get(mode);
      if (r === undefined) throw new Error(`mode ${mode} did not run`);
      common(r.load, r.loadDir, loadBoundS());
      expect(r.load.code, r.load.stderr).toBe(3);
      const result = JSON.parse(readFileSync(join(r.loadDir, 'load.json'), 'utf8')) as LoadResult;
      expect(result.counts.ok).toBe(0);
      expect(result.errors.byClass[e.loadClass as keyof LoadResult['errors']['byClass']], JSON.stringify(result.errors.byClass)).toBeGreaterThan(0);
      expect(result.errors.examples.map((x) => x.detail).join('\n')).toMatch(e.loadDetail);
      // Issue 22 part 1: no request succeeded, so no SLO is met and the run is failed.
      expect(result.slosPassed).toBe(false);
      expect(r.load.stdout.split('\n')[0]).toMatch(/^iari load: FAILED: no request (succeeded|finished)/);
    });
  }

  it('HDR-012: a whole iari test (every check) against an endless stream ends at its --run-timeout, exits 1 and says how many requirements are undecided (not failed) by the deadline', () => {
    if (fullRun === undefined) throw new Error('the full run did not run');
    common(fullRun.run, fullRun.dir, testBoundS(fullRunS));
    expect(fullRun.run.code, fullRun.run.stderr).toBe(1);
    expect(fullRun.run.stderr).toMatch(/the run's deadline \(--run-timeout [^)]+\) passed: \d+ requirement\(s\) are undecided, not failed/);
  });

  it('HDR-012: a whole iari test with default settings against an endless stream is over within 3 minutes (plus startup), exits 1, fails HDR-012 on the answer that passed the whole request deadline, and prints each root cause with what it blocked, never an INFO requirement as FAIL', () => {
    if (defaultRun === undefined) throw new Error('the default run did not run');
    common(defaultRun.run, defaultRun.dir, DEFAULT_TEST_BOUND_S + 2 * startupS);
    expect(defaultRun.run.code, defaultRun.run.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(defaultRun.dir, 'conformance.json'), 'utf8')) as { results: { id: string; grade: string; verdict: string; failures?: { message: string }[] }[] };
    const hdr012 = report.results.find((x) => x.id === 'HDR-012');
    expect(hdr012?.verdict, JSON.stringify(hdr012)).toBe('fail');
    expect(hdr012?.failures?.some((f) => /do not complete|streams do not end|request deadline of 1 min/.test(f.message) && !/ either, /.test(f.message)), JSON.stringify(hdr012?.failures)).toBe(true);
    expect(report.results.filter((x) => x.grade === 'INFO' && x.verdict === 'fail').map((x) => x.id)).toEqual([]);
    expect(defaultRun.run.stdout).toMatch(/^ROOT CAUSE .*HDR-012.*: \d+ requirement\(s\) not decided$/m);
    expect(defaultRun.run.stderr, 'no run deadline was needed').not.toMatch(/the run's deadline .* passed/);
  });

  it('a 307 to another origin never carries the token there (RFC 9110 §15.4: no redirect is followed)', () => {
    const r = runs.get('redirect-other-origin');
    if (r === undefined) throw new Error('mode redirect-other-origin did not run');
    expect(r.otherOrigin.withAuthorization).toBe(0);
  });
});
