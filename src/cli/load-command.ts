import { join } from 'node:path';
import { parseFlags } from './args.ts';
import { noTokenLine } from '../load/plan/plan-lines.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir, newRunId, shownPath } from '../report/run-dir.ts';
import { createRedactor, type Redactor } from '../report/redact.ts';
import { requestLine, writeLoadFiles, writeLoadGithubOutputs } from '../report/load-files.ts';
import { openRecordFile } from '../load/results/record-log.ts';
import { IN_MEMORY_MAX_S, type LoadPlan } from '../load/plan/load-options.ts';
import type { LoadNames } from '../load/plan/load-option-names.ts';
import type { LoadScenario } from '../load/plan/scenario.ts';
import { CLI_LOAD_NAMES, loadFlagSpec, scenarioFromFlags } from './load-flags.ts';
import type { LoadResult, RequestRecord, SweepStep } from '../load/results/load-result.ts';
import { repeatTable } from '../load/search/repeat.ts';
import { progressLine, summaryTable } from '../load/results/summary.ts';
import type { Collector } from '../load/results/collector.ts';
import type { AbSection } from '../load/search/ab-blocks.ts';
import { LOAD_HELP } from './load-help.ts';
import { loadRunPassed } from '../load/results/run-verdict.ts';
import { runPlan } from '../library/run-scenario.ts';
import { serverMetricsArgv, serverMetricsFromFlags } from '../server-metrics/flags.ts';
import { readToken } from '../client/token.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { ServerMetricsOptions } from '../server-metrics/session.ts';
import type { ShardClient } from '../load/coordination/shard-client.ts';
import { coordinationFromFlags, finishCoordinator, openCoordination } from './coordinated-load.ts';

const HELP = LOAD_HELP;

export { announceLine, capacityLine } from '../load/plan/plan-lines.ts';

export function exitCodeFor(result: LoadResult): number {
  return loadRunPassed(result) ? ExitCode.ok : ExitCode.thresholdBreached;
}

/** `deps.runId`: the run id of a caller that owns the run (iari start: one id for its three steps). */
export async function run(argv: string[], deps: { runId?: string } = {}): Promise<number> {
  const { values } = parseFlags('load', serverMetricsArgv(argv), loadFlagSpec);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const { plan, scenario } = scenarioFromFlags(values);
  const noToken = noTokenLine(plan);
  if (noToken !== null && !plan.json && !plan.quiet) process.stderr.write(noToken);
  const serverMetrics = serverMetricsFromFlags(values);
  // Its reads (two a second) and, with --cancel-rate, every request's span are kept for the end: not yet a soak's.
  if (serverMetrics !== null && plan.durationS !== null && plan.durationS > IN_MEMORY_MAX_S) throw new HarnessError(HarnessErrorCode.USAGE, 'iari load: --server-metrics keeps every read of /metrics (two a second) until the end: not with --duration over 1h');
  if (values['ab-token-env'] !== undefined && plan.ab === null) throw new HarnessError(HarnessErrorCode.USAGE, 'iari load: --ab-token-env names B\'s token: it needs --ab URL_B');
  const tokenB = values['ab-token-env'] === undefined ? undefined : readToken('iari load', { tokenEnv: values['ab-token-env'] });
  const coordination = coordinationFromFlags(values, plan.shard, plan.token);
  if (coordination === null) return runLoadCommand(plan, scenario, CLI_LOAD_NAMES, { ...deps, ...(serverMetrics === null ? {} : { serverMetrics }), ...(tokenB === undefined ? {} : { abTokenB: tokenB }) });
  if (plan.sweep || plan.findCapacity !== null || plan.repeat > 1 || plan.ab !== null) throw new HarnessError(HarnessErrorCode.USAGE, 'iari load: a coordinated run is one run of fixed level: not with --sweep, --find-capacity, --repeat or --ab');
  const runId = deps.runId ?? newRunId();
  const log = (line: string): void => {
    if (!plan.quiet) process.stderr.write(line);
  };
  const { coordinator, client } = await openCoordination(coordination, plan, log);
  const reportDir = plan.report ?? join('reports', runId);
  try {
    // --coordinate --shards N: this process runs no shard.
    if (client === null) return await finishCoordinator(coordinator!, plan, runId, reportDir, { stdout: (t) => process.stdout.write(t) });
    // Shard 0 that coordinates: with --json, stdout is the merged result alone (its own goes to stderr).
    const code = await runLoadCommand(plan, scenario, CLI_LOAD_NAMES, { ...deps, runId, ...(serverMetrics === null ? {} : { serverMetrics }), shard: client, ...(coordinator !== null && plan.json ? { stdout: (t: string) => void process.stderr.write(t) } : {}) });
    if (coordinator === null) return code;
    // Shard 0 coordinates too: the merged report beside its own.
    return await finishCoordinator(coordinator, plan, runId, join(reportDir, 'merged'), { stdout: (t) => process.stdout.write(t) });
  } finally {
    client?.close();
    await coordinator?.close();
  }
}

/**
 * Issue 43: "--ab shows only side A in the summary." load.json is side A with B in its ab section:
 * the summary shows B's table too, and the command that compares them pair by pair.
 */
export function abSideB(result: LoadResult, dir: string): string {
  const ab = (result as LoadResult & { ab?: AbSection }).ab;
  if (ab === undefined) return '';
  return `\n\nside A: ${result.meta.baseUrl}; side B: ${ab.baseUrlB}\n\nside B:\n${summaryTable(ab.b)}\n\nB against A, pair by pair: iari report compare ${dir}\n`;
}

/** Off a terminal, a progress line this often (s). */
export const PROGRESS_LOG_EVERY_S = 10;

/**
 * `iari load` around the one entry (runPlan, shared with runScenario and runLoad): progress on the
 * terminal, the reports, the summary, the exit code. `iari start` calls it with its own scenario.
 */
export async function runLoadCommand(plan: LoadPlan, scenario: LoadScenario, names: LoadNames = CLI_LOAD_NAMES, deps: { runId?: string; serverMetrics?: ServerMetricsOptions; abTokenB?: string; shard?: ShardClient; stdout?: (text: string) => void } = {}): Promise<number> {
  const ac = new AbortController();
  const shard = deps.shard;
  const onSigint = (): void => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const runId = deps.runId ?? newRunId();
    const tty = process.stderr.isTTY === true && !plan.json && !plan.quiet;
    // Issue 43: "When output is not a terminal (CI logs), iari load and iari test print nothing until
    // the end." Off a terminal the same progress line is logged every 10 s, one per line.
    let nextLogS = PROGRESS_LOG_EVERY_S;
    const logged = tty || plan.json || plan.quiet ? null : (c: Collector, elapsedS: number): void => {
      if (elapsedS < nextLogS) return;
      nextLogS = (Math.floor(elapsedS / PROGRESS_LOG_EVERY_S) + 1) * PROGRESS_LOG_EVERY_S;
      process.stderr.write(`${progressLine(c, elapsedS, plan)}\n`);
    };
    const step = (s: SweepStep, i: number): void => {
      if (!plan.json && !plan.quiet) process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${plan.sweep ? 'sweep step' : 'level'} ${i}: ${s.level} -> ${s.achievedRps.toFixed(2)} req/s, TTFT p95 ${s.ttftP95Us === null ? '-' : `${Math.round(s.ttftP95Us / 1000)} ms`}, SLOs ${s.slosMet ? 'met' : 'breached'}${s.saturated ? ', saturated' : ''}${s.phase === 'repeat' ? ' (run again to confirm)' : ''}\n`);
    };
    const { result, records, recordsFile, runs, secrets } = await runPlan(plan, names, scenario, {
      runId,
      // Issue 43: a run's records go to requests.ndjson as they finish (a soak run holds none of them).
      recordLog: (secrets) => {
        const redactor = createRedactor([...secrets]);
        return openRecordFile(createRunDir({ report: plan.report, id: runId }).path('requests.ndjson'), (r) => requestLine(r, redactor));
      },
      // A coordinated shard also stops when the coordinator says (another shard died or breached an abort SLO).
      signal: shard === undefined ? ac.signal : AbortSignal.any([ac.signal, shard.signal]),
      ...(shard === undefined ? {} : { startGate: () => shard.gate() }),
      notice: (line) => {
        if (!line.startsWith('repeat ') || (!plan.json && !plan.quiet)) process.stderr.write(line);
      },
      onStep: step,
      ...(deps.serverMetrics === undefined ? {} : { serverMetrics: deps.serverMetrics }),
      ...(plan.ab === null ? {} : { ab: { ...(deps.abTokenB === undefined ? {} : { tokenB: deps.abTokenB }), onBlock: (side: 'a' | 'b', k: number, n: number) => { if (!plan.json && !plan.quiet) process.stderr.write(`${tty ? '\r\x1b[2K' : ''}A/B pair ${k}/${n}: ${side.toUpperCase()}${tty ? '' : '\n'}`); } } }),
      ...(tty || shard !== undefined || logged !== null
        ? {
            onTick: (c: Collector, elapsedS: number) => {
              shard?.observe(c);
              if (tty) process.stderr.write('\r\x1b[2K' + progressLine(c, elapsedS, plan));
              else logged?.(c, elapsedS);
            },
          }
        : {}),
    });
    if (tty) process.stderr.write('\r\x1b[2K');
    const redactor = createRedactor(secrets);
    if (shard !== undefined) {
      // The shard's record in its own load.json, and its result to the coordinator (which merges).
      Object.assign(result, { coordination: shard.record() });
      // Redacted as load.json is: the result may cross machines, and the server's token never goes to another origin.
      await shard.finish(JSON.parse(redactor.string(JSON.stringify(result))) as LoadResult);
      // Again after finish(), which takes the end clock probe: the shard's own load.json gets its end offset too.
      Object.assign(result, { coordination: shard.record() });
    }
    // The first run is the report; the other repeats go to run-<i>/load.json.
    runs.slice(1).forEach((r, i) => writeLoadFiles(r, undefined, createRunDir({ report: join(plan.report ?? join('reports', runId), `run-${i + 2}`), id: r.meta.runId }), redactor));
    const dir = writeReports(plan, result, recordsFile === undefined ? records : undefined, runId, redactor);
    writeLoadGithubOutputs(result, redactor);
    const stdout = deps.stdout ?? ((text: string): void => void process.stdout.write(text));
    if (plan.json) stdout(redactor.string(JSON.stringify(result, null, 2)) + '\n');
    else stdout(summaryTable(result) + abSideB(result, dir) + (result.repeat === undefined ? '' : `\n${repeatTable(result.repeat)}\n`) + `\nreport: ${shownPath(plan.report ?? undefined, join(dir, 'report.html'))}\n`);
    if (ac.signal.aborted) return ExitCode.interrupted;
    return exitCodeFor(result);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** load.json, requests.ndjson, junit.xml (one case per SLO) and report.html, via the reports toolkit. */
export function writeReports(plan: Pick<LoadPlan, 'report'>, result: LoadResult, records: readonly RequestRecord[] | undefined, runId: string, redactor: Redactor): string {
  const dir = createRunDir({ report: plan.report, id: runId });
  writeLoadFiles(result, records, dir, redactor);
  return dir.dir;
}
