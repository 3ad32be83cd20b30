import { join, relative } from 'node:path';
import { parseFlags } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import type { MockServer } from '../../mock-server/index.ts';
import { createRunDir, newRunId } from '../report/run-dir.ts';
import { createRedactor, type Redactor } from '../report/redact.ts';
import { writeLoadFiles, writeLoadGithubOutputs } from '../report/load-files.ts';
import type { LoadPlan } from '../load/load-options.ts';
import { loadFlagSpec, planFromFlags } from './load-flags.ts';
import type { LoadResult, RequestRecord, SweepStep } from '../load/load-result.ts';
import { runLengthS, runLoad, type LoadConfig } from '../load/run-load.ts';
import { runSweep } from '../load/sweep.ts';
import { capacityBound, runCapacitySearch } from '../load/capacity-search.ts';
import { repeatSection, repeatTable, type RepeatSection } from '../load/repeat.ts';
import { progressLine, summaryTable } from '../load/summary.ts';
import { sloHelp } from '../load/slo.ts';
import { resolveWorkload, workloadHelp } from '../load/workload-options.ts';
import { assertTargetAllowed, connectionHelp, connectionSecrets, displayUrl, isLoopbackHost, proxyFor } from '../client/connection-options.ts';
import { firstModel } from '../load/first-model.ts';
import { MOCK_LOAD_OPTIONS } from '../load/mock-pacing.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, END_GRACE_MS, preWindowBudgetMs } from '../load/engine.ts';
import { loadRunPassed } from '../load/run-verdict.ts';
import { AB_HELP, checkAbPlan, takeAbFlags } from './ab-flags.ts';
import { runAb } from '../load/ab-blocks.ts';

const HELP = `Usage: iari load [options]

Streaming load test with honest clocks: TTFT, per-token inter-token latency, tokens/s,
goodput against SLOs. Without --base-url it starts the bundled mock in-process.

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
  --duration D           measured time, e.g. 10s, 500ms, 2m (default 10s unless --requests)
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
${connectionHelp}${workloadHelp}${AB_HELP}Thresholds (exit 3 when one is breached; a malformed one exits 2 before any traffic):
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

/**
 * Printed before any traffic to a host that is not loopback: what is about to be loaded, how hard
 * and for how long, so a wrong URL or level can be stopped (Ctrl-C) before it matters.
 */
export function announceLine(plan: LoadPlan, baseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const proxy = proxyFor(baseUrl, env);
  const m = plan.mode;
  const level = m.kind === 'open' && m.arrival === 'trace' ? `open loop, trace replay (${plan.workloadPlan.trace?.file ?? ''}, speed x${plan.workloadPlan.trace?.options.speed ?? 1})` : m.kind === 'open' ? `open loop, ${m.rate} requests/s (${m.arrival} arrivals${m.ramp === undefined ? '' : `, ramped ${m.ramp.shape} over ${m.ramp.durationS} s`})` : `closed loop, ${m.concurrency} concurrent requests`;
  const drainS = END_GRACE_MS / 1000;
  const preS = preWindowS(plan);
  const boundS = plan.sweep || plan.findCapacity !== null ? null : Math.ceil(preS + plan.warmupS + (plan.durationS ?? 600) + drainS);
  const bound = plan.findCapacity !== null
    ? `capacity search with levels of ${plan.durationS ?? 0} s, ${capacityBound(plan.findCapacity.budgetS, levelBoundS(plan)).line}`
    : plan.sweep
    ? `sweep of at most ${plan.sweepSteps} steps of ${plan.durationS ?? 0} s, level x2 per step`
    : plan.durationS !== null
      ? `for ${plan.warmupS > 0 ? `${plan.warmupS} s warmup + ` : ''}${plan.durationS} s`
      : plan.requests === null
        ? 'for the length of the trace (at most 1 h)'
        : `until ${plan.requests} measured requests (at most 600 s)`;
  return `iari load: sending load to ${baseUrl}${proxy === null ? '' : ` via proxy ${displayUrl(proxy)}`}: ${level}${plan.shard === null ? '' : ` (shard ${plan.shard.index}/${plan.shard.count})`}, ${bound}, then ${drainS} s of grace for requests in flight${boundS === null ? '' : `; ends within ${boundS} s (${preS} s to choose the model and prime, the run, the grace), then writes its reports`}; Ctrl-C stops it\n`;
}

/** The longest one level of a capacity search can take, s: pre-window, warmup, the run, the grace. */
function levelBoundS(plan: Pick<LoadPlan, 'warmupS' | 'durationS' | 'requestTimeoutMs'>): number {
  return preWindowS(plan) + plan.warmupS + (plan.durationS ?? 600) + END_GRACE_MS / 1000;
}

/** Said before any traffic, whatever the target: what the search does and when it ends at the latest. */
export function capacityLine(plan: LoadPlan): string {
  const f = plan.findCapacity;
  if (f === null) return '';
  const what = plan.mode.kind === 'open' ? `rate from ${plan.mode.rate} req/s` : `concurrency from ${plan.mode.concurrency}`;
  return `iari load: capacity search on ${what} against ${plan.sloExprs.join(', ')}, to within ${+(f.tolerance * 100).toFixed(2)}%: ${capacityBound(f.budgetS, levelBoundS(plan)).line}\n`;
}

/** The pre-window deadline of a plan, s (engine.ts preWindowBudgetMs). */
function preWindowS(plan: Pick<LoadPlan, 'warmupS' | 'durationS' | 'requestTimeoutMs'>): number {
  return preWindowBudgetMs(plan.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, runLengthS(plan)) / 1000;
}

export function exitCodeFor(result: LoadResult): number {
  return loadRunPassed(result) ? ExitCode.ok : ExitCode.thresholdBreached;
}

export async function run(argv: string[]): Promise<number> {
  const { rest, ab } = takeAbFlags(argv);
  const { values } = parseFlags('load', rest, loadFlagSpec);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const plan = planFromFlags(values);
  const abToken = ab === null ? null : checkAbPlan(ab, plan).tokenB;
  let mock: MockServer | undefined;
  const ac = new AbortController();
  const onSigint = (): void => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const workload = await resolveWorkload(plan.workloadPlan, plan.seed);
    if (plan.baseUrl !== null) {
      await assertTargetAllowed(new URL(plan.baseUrl).origin);
      if (!isLoopbackHost(new URL(plan.baseUrl).hostname)) process.stderr.write(announceLine(plan, plan.baseUrl));
    }
    if (ab !== null) await assertTargetAllowed(new URL(ab.baseUrlB).origin);
    if (ab !== null && !isLoopbackHost(new URL(ab.baseUrlB).hostname)) process.stderr.write(announceLine(plan, ab.baseUrlB));
    if (plan.baseUrl === null) mock = await (await import('../../mock-server/index.ts')).startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed });
    const baseUrl = plan.baseUrl ?? mock!.url;
    // Before any traffic (the announce line says it for a host that is not loopback).
    if (plan.findCapacity !== null && isLoopbackHost(new URL(baseUrl).hostname)) process.stderr.write(capacityLine(plan));
    const token = plan.token ?? mock!.tokens.default;
    const redactor = createRedactor([token, ...(abToken === null ? [] : [abToken]), ...connectionSecrets(plan.connection, new URL(baseUrl).origin)]);
    // Everything before the measured window shares one deadline: choosing the model, then priming (run-load.ts).
    const preMs = preWindowS(plan) * 1000;
    const preStart = performance.now();
    const model = plan.model ?? (await firstModel('iari load', baseUrl, token, plan.connection, preMs));
    const preWindowMs = Math.max(0, preMs - (performance.now() - preStart));
    const runId = newRunId();
    const tty = process.stderr.isTTY === true && !plan.json && !plan.quiet;
    const cfg = { ...configOf(plan, { runId, baseUrl, token, model, target: mock === undefined ? 'external' : 'bundled-mock', signal: ac.signal, tty }), preWindowMs, ...(workload === undefined ? {} : { workload }) };
    const step = (s: SweepStep, i: number): void => {
      if (!plan.json && !plan.quiet) process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${plan.sweep ? 'sweep step' : 'level'} ${i}: ${s.level} -> ${s.achievedRps.toFixed(2)} req/s, TTFT p95 ${s.ttftP95Us === null ? '-' : `${Math.round(s.ttftP95Us / 1000)} ms`}, SLOs ${s.slosMet ? 'met' : 'breached'}${s.saturated ? ', saturated' : ''}${s.phase === 'repeat' ? ' (run again to confirm)' : ''}\n`);
    };
    const { result, records } = plan.findCapacity !== null
      ? await runCapacitySearch(cfg, { ...plan.findCapacity, levelBoundS: levelBoundS(plan), onStep: step })
      : plan.sweep
        ? await runSweep(cfg, { maxSteps: plan.sweepSteps, onStep: step })
        : ab !== null && abToken !== null
          ? await runAb({ config: cfg, baseUrlB: ab.baseUrlB, tokenB: abToken, blockS: ab.blockS, run: runLoad, onBlock: (side, k, n) => !plan.json && !plan.quiet && process.stderr.write(`${tty ? '\r\x1b[2K' : ''}A/B pair ${k}/${n}: ${side.toUpperCase()}${tty ? '' : '\n'}`) })
          : await runLoad(cfg);
    if (tty) process.stderr.write('\r\x1b[2K');
    let repeat: RepeatSection | undefined;
    if (plan.repeat > 1) {
      // The first run is the report; each run's figures go into repeat.values and run-<i>/load.json.
      const runs: LoadResult[] = [result];
      for (let i = 2; i <= plan.repeat && !ac.signal.aborted; i++) {
        if (!plan.json && !plan.quiet) process.stderr.write(`repeat ${i}/${plan.repeat}\n`);
        const again = await runLoad({ ...cfg, runId: `${runId}-r${i}` });
        runs.push(again.result);
      }
      repeat = repeatSection(runs);
      (result as LoadResult & { repeat?: RepeatSection }).repeat = repeat;
      runs.slice(1).forEach((r, i) => writeLoadFiles(r, undefined, createRunDir({ report: join(plan.report ?? join('reports', runId), `run-${i + 2}`), id: r.meta.runId }), redactor));
    }
    const dir = writeReports(plan, result, records, runId, redactor);
    writeLoadGithubOutputs(result, redactor);
    if (plan.json) process.stdout.write(redactor.string(JSON.stringify(result, null, 2)) + '\n');
    else process.stdout.write(summaryTable(result) + (repeat === undefined ? '' : `\n${repeatTable(repeat)}\n`) + `\nreport: ${relative(process.cwd(), dir) || '.'}/report.html\n`);
    if (ac.signal.aborted) return ExitCode.interrupted;
    return exitCodeFor(result);
  } finally {
    process.removeListener('SIGINT', onSigint);
    await mock?.close();
  }
}

function configOf(plan: LoadPlan, o: { runId: string; baseUrl: string; token: string; model: string; target: LoadConfig['target']; signal: AbortSignal; tty: boolean }): LoadConfig {
  return {
    runId: o.runId,
    baseUrl: o.baseUrl,
    token: o.token,
    model: o.model,
    target: o.target,
    connection: plan.connection,
    mode: plan.mode,
    durationS: plan.durationS,
    requests: plan.requests,
    warmupS: plan.warmupS,
    maxTokens: plan.maxTokens,
    stream: plan.stream,
    prompts: plan.prompts,
    promptsSource: plan.promptsSource,
    seed: plan.seed,
    timeoutMs: plan.timeoutMs,
    ...(plan.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: plan.requestTimeoutMs }),
    slos: plan.slos,
    sloExprs: plan.sloExprs,
    shard: plan.shard,
    signal: o.signal,
    ...(o.tty ? { onTick: (c, elapsedS) => process.stderr.write('\r\x1b[2K' + progressLine(c, elapsedS, plan)) } : {}),
  };
}

/** load.json, requests.ndjson, junit.xml (one case per SLO) and report.html, via the reports toolkit. */
export function writeReports(plan: Pick<LoadPlan, 'report'>, result: LoadResult, records: readonly RequestRecord[], runId: string, redactor: Redactor): string {
  const dir = createRunDir({ report: plan.report, id: runId });
  writeLoadFiles(result, records, dir, redactor);
  return dir.dir;
}
