import { join, relative } from 'node:path';
import { parseFlags } from './args.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir, newRunId } from '../report/run-dir.ts';
import { createRedactor, type Redactor } from '../report/redact.ts';
import { writeLoadFiles, writeLoadGithubOutputs } from '../report/load-files.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';
import type { LoadNames } from '../load/plan/load-option-names.ts';
import type { LoadScenario } from '../load/plan/scenario.ts';
import { CLI_LOAD_NAMES, loadFlagSpec, scenarioFromFlags } from './load-flags.ts';
import type { LoadResult, RequestRecord, SweepStep } from '../load/results/load-result.ts';
import { repeatTable } from '../load/search/repeat.ts';
import { progressLine, summaryTable } from '../load/results/summary.ts';
import { sloHelp } from '../load/results/slo.ts';
import { workloadHelp } from '../load/plan/workload-options.ts';
import { connectionHelp } from '../client/connection-options.ts';
import { loadRunPassed } from '../load/results/run-verdict.ts';
import { runPlan } from '../library/run-scenario.ts';

const HELP = `Usage: iari load [options]

Streaming load test with honest clocks: TTFT, per-token inter-token latency, tokens/s,
goodput against SLOs. Without --base-url it starts the bundled mock in-process.

Scenario:
  --scenario FILE        a run as one YAML or JSON file (target, executor, workload, request, run,
                         search, slos; docs/load.md "Scenario files", examples/*.yaml), or a
                         load.json (the scenario it recorded: the same run again); the flags
                         below win over it
Load:
  --concurrency N        closed loop: N requests in flight (default 8; engine autocannon)
  --rate R               open loop: R arrivals per second, latency from the intended send time
  --arrival constant|poisson|gamma   open-loop arrival process (default constant; seeded;
                         Poisson holds exactly R x duration arrivals in the measured window)
  --burstiness K         gamma arrivals: gaps of shape K and mean 1/R (vLLM's --burstiness);
                         K < 1 burstier than Poisson, K = 1 Poisson, K > 1 more regular (default 1)
  --max-concurrency N    open loop capped at N requests in flight (as vLLM's): a due arrival
                         waits for a slot; reported as its own mode, since the cap reintroduces
                         coordinated omission (latency still counts from the intended time; the
                         wait shows as schedule lag)
  --ramp D               open loop: the rate rises to --rate over the first D (e.g. 30s), then
                         stays; the same seeded arrivals, sent on a ramped clock (time rescaling)
  --ramp-shape linear|exponential   linear from 0 (default), or exponential from 1% of the rate
  --engine autocannon|undici   closed-loop engine (default autocannon)
  --duration D           measured time, e.g. 10s, 500ms, 2m, 1m30s; a bare number is seconds
                         (every D below alike) (default 10s unless --requests)
  --requests N           stop after N measured requests (bounded by 600 s)
  --warmup D             time before measuring; its requests are excluded (default 0)
  --sweep                step the rate/concurrency up (x2 per step, each --duration long)
  --sweep-steps N        at most N steps (default 6)
  --find-capacity        search for the highest rate (with --rate) or concurrency meeting every
                         --slo: doubles (or halves) from the given level until one breaks, then
                         interpolates between the last level that held and the first that broke
                         until the interval is within --tolerance; a level that breaks an SLO or
                         is within 10% of a threshold is run again (best of 3); each run lasts
                         --duration; report.html plots the runs' Pareto view
  --tolerance P          relative width of the final interval (default 5%; 0.1%..50%)
  --budget D             total time of the search (default 10m): no level starts that could end
                         past it; the bound is printed before any traffic
  --repeat N             run the same configuration N times (2..20): each metric's mean, t-based
                         95% interval and coefficient of variation, CV > 10% flagged unstable;
                         load.json (the first run) gains repeat.values, which iari report compare
                         tests by Welch's t over the runs; the other runs go to run-<i>/
  --shard i/n            run share i of n (0 <= i < n); merge with: iari report merge DIR...
Requests:
  --prompts FILE         JSONL: {"messages":[...]} or {"prompt":"..."} per line (default: built-in mix)
  --max-tokens N         max_tokens of every request (default 64)
  --model ID             model to ask for (default: the first of GET /v1/models)
  --stream | --no-stream streamed (default) or whole responses
  --timeout D            idle timeout, reset on every byte (default 30s)
  --request-timeout D    total deadline of one request, body included (default 120s); a response
                         still arriving then (an endless or dribbled stream) is a timeout error.
                         The run itself ends at its bound: in-flight requests get 5s after it,
                         then are aborted and counted as "aborted at end"
  --seed N               seed for arrivals and prompt order (default 1)
Target:
  --base-url URL         the server to load, http(s)://host[:port][/v1] (default: the bundled
                         mock); before any traffic to a host that is not loopback, a line
                         names the target, the mode and the bound
  --token-env NAME       environment variable holding the bearer token (default IARI_TOKEN)
  --token-file PATH      file holding the bearer token
${connectionHelp}${workloadHelp}Thresholds (exit 3 when one is breached; a malformed one exits 2 before any traffic):
  --slo EXPR             repeatable, e.g. 'ttft.p95<800ms' 'itl.p99<50ms' 'errors.rate<0.01'
Output:
  --report DIR           write load.json, requests.ndjson, junit.xml, report.html there
                         (default reports/<run-id>/)
  --json                 print load.json to stdout instead of the summary table
  --quiet                no progress line

SLO metrics:
${sloHelp()}

Examples:
  # a real deployment: https with a private CA, token and a gateway header from the environment,
  # synthetic prompts of 512±64 tokens and answers of 128±16 (exact where ignore_eos works)
  export IARI_TOKEN=... ORG_ID=...
  iari load --base-url https://llm.internal.example:8443/v1 --ca-file private-ca.pem \\
    --header 'OpenAI-Organization: env:ORG_ID' \\
    --input-tokens 512,64 --output-tokens 128,16 --extra-body '{"ignore_eos":true}' \\
    --rate 4 --arrival poisson --duration 2m --slo 'ttft.p95<800ms'
  # a ShareGPT dataset (vLLM's format), 500 conversations sampled with --seed
  iari load --base-url https://llm.internal.example:8443/v1 \\
    --dataset ShareGPT_V3_unfiltered_cleaned_split.json --dataset-size 500 --concurrency 16 --duration 5m

Exit codes: 0 thresholds met, 2 usage or configuration error, 3 a threshold was breached, 130 interrupted.
`;

export { announceLine, capacityLine } from '../load/plan/plan-lines.ts';

export function exitCodeFor(result: LoadResult): number {
  return loadRunPassed(result) ? ExitCode.ok : ExitCode.thresholdBreached;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('load', argv, loadFlagSpec);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const { plan, scenario } = scenarioFromFlags(values);
  return runLoadCommand(plan, scenario);
}

/**
 * `iari load` around the one entry (runPlan, shared with runScenario and runLoad): progress on the
 * terminal, the reports, the summary, the exit code. `iari start` calls it with its own scenario.
 */
export async function runLoadCommand(plan: LoadPlan, scenario: LoadScenario, names: LoadNames = CLI_LOAD_NAMES): Promise<number> {
  const ac = new AbortController();
  const onSigint = (): void => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const runId = newRunId();
    const tty = process.stderr.isTTY === true && !plan.json && !plan.quiet;
    const step = (s: SweepStep, i: number): void => {
      if (!plan.json && !plan.quiet) process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${plan.sweep ? 'sweep step' : 'level'} ${i}: ${s.level} -> ${s.achievedRps.toFixed(2)} req/s, TTFT p95 ${s.ttftP95Us === null ? '-' : `${Math.round(s.ttftP95Us / 1000)} ms`}, SLOs ${s.slosMet ? 'met' : 'breached'}${s.saturated ? ', saturated' : ''}${s.phase === 'repeat' ? ' (run again to confirm)' : ''}\n`);
    };
    const { result, records, runs, secrets } = await runPlan(plan, names, scenario, {
      runId,
      signal: ac.signal,
      notice: (line) => {
        if (!line.startsWith('repeat ') || (!plan.json && !plan.quiet)) process.stderr.write(line);
      },
      onStep: step,
      ...(tty ? { onTick: (c, elapsedS) => process.stderr.write('\r\x1b[2K' + progressLine(c, elapsedS, plan)) } : {}),
    });
    if (tty) process.stderr.write('\r\x1b[2K');
    const redactor = createRedactor(secrets);
    // The first run is the report; the other repeats go to run-<i>/load.json.
    runs.slice(1).forEach((r, i) => writeLoadFiles(r, undefined, createRunDir({ report: join(plan.report ?? join('reports', runId), `run-${i + 2}`), id: r.meta.runId }), redactor));
    const dir = writeReports(plan, result, records, runId, redactor);
    writeLoadGithubOutputs(result, redactor);
    if (plan.json) process.stdout.write(redactor.string(JSON.stringify(result, null, 2)) + '\n');
    else process.stdout.write(summaryTable(result) + (result.repeat === undefined ? '' : `\n${repeatTable(result.repeat)}\n`) + `\nreport: ${relative(process.cwd(), dir) || '.'}/report.html\n`);
    if (ac.signal.aborted) return ExitCode.interrupted;
    return exitCodeFor(result);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** load.json, requests.ndjson, junit.xml (one case per SLO) and report.html, via the reports toolkit. */
export function writeReports(plan: Pick<LoadPlan, 'report'>, result: LoadResult, records: readonly RequestRecord[], runId: string, redactor: Redactor): string {
  const dir = createRunDir({ report: plan.report, id: runId });
  writeLoadFiles(result, records, dir, redactor);
  return dir.dir;
}
