// The one entry of a load run. `iari load` (flags, a scenario file or both), `iari start`, the
// GitHub Action (through `iari load`), runLoad and runScenario all come here with a validated plan:
// the target checks, the workload read before anything starts, the bundled mock, one pre-window
// deadline shared by choosing the model and priming, then one run, a sweep, a capacity search or
// repeats, and the effective scenario recorded in the result.
import type { Collector } from '../load/results/collector.ts';
import type { LoadResult, RequestRecord, SweepStep } from '../load/results/load-result.ts';
import { runLoadConfig, type LoadConfig, type LoadRun } from '../load/run-load.ts';
import type { RecordLog } from '../load/results/record-log.ts';
import { runSweep } from '../load/search/sweep.ts';
import { runCapacitySearch } from '../load/search/capacity-search.ts';
import { repeatSection, type RepeatSection } from '../load/search/repeat.ts';
import { resolveWorkload } from '../load/plan/workload-options.ts';
import { defaultLoadModel } from '../load/plan/default-load-model.ts';
import { announceLine, capacityLine, levelBoundS, preWindowS } from '../load/plan/plan-lines.ts';
import { validateLoadOptions, type LoadPlan } from '../load/plan/load-options.ts';
import { loadUsage, type LoadNames } from '../load/plan/load-option-names.ts';
import { checkScenario } from '../load/plan/scenario-file.ts';
import { scenarioNames, scenarioToOptions, type LoadScenario } from '../load/plan/scenario.ts';
import { effectiveScenario } from '../load/plan/effective-scenario.ts';
import { MOCK_LOAD_OPTIONS } from '../load/executors/mock-pacing.ts';
import { connectionSecrets, isLoopbackHost } from '../client/connection-options.ts';
import { preflightTarget } from '../client/reachable.ts';
import { assertApiServed } from '../client/api-path.ts';
import { normalizeBaseUrl } from '../client/base-url.ts';
import { apiOf } from '../load/workloads/request-source.ts';
import type { ServerMetricsOptions } from '../server-metrics/session.ts';
import { runAb } from '../load/search/ab-blocks.ts';
import { runAbRandom } from '../load/search/ab-random.ts';
import { abToken } from '../load/plan/ab-plan.ts';
import { dispatcherFor } from '../client/dispatcher.ts';
import { newRunId } from '../report/run-dir.ts';
import { refuseUnknownKeys } from '../option-keys.ts';
import type { MockServer } from '../../mock-server/index.ts';
import { defaultProtocols, protocolNamed, type ProtocolList } from '../protocols/registry.ts';
import { loadSections } from '../load/results/load-sections.ts';

export type { LoadScenario } from '../load/plan/scenario.ts';

/** What a shell does while the run goes: print, show progress. The library's callers may leave all out. */
export interface RunHooks {
  signal?: AbortSignal;
  /** Lines said before any traffic (the target and bound of a host that is not loopback, a capacity search's bound) and between repeats. */
  notice?: (line: string) => void;
  /** Each level of a sweep or capacity search as it ends. */
  onStep?: (step: SweepStep, index: number) => void;
  /** About once a second during each run. */
  onTick?: (collector: Collector, elapsedS: number) => void;
  /** The run id (default: a new one). */
  runId?: string;
  /** --server-metrics: read the server's /metrics during each run (src/server-metrics/). */
  serverMetrics?: ServerMetricsOptions;
  /** A/B (search kind ab, --ab URL_B): B's token (absent: A's, and only on A's origin) and each block as it starts. */
  ab?: AbHooks;
  /** The APIs the run knows (default: every API iari ships): the bundled mock serves them, the checker checks them. */
  protocols?: ProtocolList;
  /** The API the requests go to, by its protocol's name (default: the one the workload needs, else the list's first). */
  api?: string;
  /** A coordinated shard's start (LoadConfig.startGate). */
  startGate?: LoadConfig['startGate'];
  /**
   * `iari load`: where a single run's records stream (requests.ndjson, each line redacted of
   * `secrets`), so memory holds none (issue 43, soak runs). Searches, A/B and repeats keep theirs
   * in memory (they are refused over an hour).
   */
  recordLog?: (secrets: readonly string[]) => RecordLog;
}

export interface AbHooks {
  tokenB?: string;
  onBlock?: (side: 'a' | 'b', pair: number, pairs: number) => void;
}

export interface ScenarioOutcome {
  /** The same object `iari load --json` prints (load.json), with the effective `scenario`. */
  result: LoadResult & { repeat?: RepeatSection };
  /** One record per measured request of the (first) run; empty when they streamed to `recordsFile`. */
  records: RequestRecord[];
  /** The records' file when they streamed there (RunHooks.recordLog). */
  recordsFile?: string;
  /** search repeat: every run, the first being `result`. */
  runs: LoadResult[];
  /** What reports must redact: the token and the connection's secret header values. */
  secrets: string[];
}

/** Runs a validated plan: everything the CLI and the library share, in one place. */
export async function runPlan(plan: LoadPlan, names: LoadNames, scenario: LoadScenario, hooks: RunHooks = {}): Promise<ScenarioOutcome> {
  // Datasets and traces are read (and refused, exit 2) before any traffic and before the mock starts.
  const workload = await resolveWorkload(plan.workloadPlan, plan.seed, names);
  // An API no protocol of the run serves is a usage error naming the known ones, before any traffic.
  const protocol = apiOf(hooks.protocols ?? defaultProtocols, hooks.api ?? plan.api, workload);
  // The run's output bound (or the mean of its drawn lengths) under what the API accepts would make every request its 400.
  const asked = workload?.output?.mean ?? plan.maxTokens;
  if (protocol.minOutputTokens !== undefined && asked < protocol.minOutputTokens) throw loadUsage(names, `${names.name(workload?.output === undefined || workload.output === null ? 'maxTokens' : 'outputTokens')} ${asked} is under the least output bound the ${protocol.title} accepts (${protocol.minOutputTokens}): every request would be refused`);
  if (workload?.conversation?.chain !== undefined && protocol.chains !== true) throw loadUsage(names, `${names.name('chain')} previous-response-id continues an answer the server kept: the ${protocol.title} API cannot (give ${names.name('api')} responses, or leave ${names.name('chain')} out)`);
  if (plan.baseUrl !== null) {
    // The loopback guard, then one connection: an unreachable server is one line and exit 2, before anything is judged.
    await preflightTarget(new URL(plan.baseUrl).origin, plan.connection);
    if (!isLoopbackHost(new URL(plan.baseUrl).hostname)) hooks.notice?.(announceLine(plan, plan.baseUrl));
  }
  const ab = plan.ab;
  // B's token before any traffic: A's is never sent to another origin unasked.
  const tokenB = ab === null ? null : abToken(ab, plan, names, hooks.ab?.tokenB ?? null);
  if (ab !== null) {
    await preflightTarget(new URL(ab.baseUrlB).origin, plan.connection);
    if (!isLoopbackHost(new URL(ab.baseUrlB).hostname)) hooks.notice?.(announceLine(plan, ab.baseUrlB));
  }
  let mock: MockServer | undefined;
  try {
    if (plan.baseUrl === null) mock = await (await import('../../mock-server/index.ts')).startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed, ...(hooks.protocols === undefined ? {} : { protocols: hooks.protocols }) });
    const baseUrl = plan.baseUrl ?? mock!.url;
    if (plan.findCapacity !== null && isLoopbackHost(new URL(baseUrl).hostname)) hooks.notice?.(capacityLine(plan));
    const token = plan.token ?? mock!.tokens.default;
    // Everything before the measured window shares one deadline: choosing the model, then priming (run-load.ts).
    const preMs = preWindowS(plan) * 1000;
    const preStart = performance.now();
    // A path with nothing behind it is one line and exit 2, not thousands of 404s (issue 43). Without
    // --model the model list's own answer is the first probe (one request, the whole pre-window);
    // with it, the probe runs first.
    const route = plan.baseUrl === null ? undefined : protocol.routes[0].path;
    if (plan.model !== null && route !== undefined) await assertApiServed(normalizeBaseUrl(baseUrl).root, route, token, plan.connection, preMs);
    const model = plan.model ?? (await defaultLoadModel(names.who, baseUrl, token, plan.connection, preMs, route));
    const preWindowMs = Math.max(0, preMs - (performance.now() - preStart));
    const runId = hooks.runId ?? newRunId();
    const cfg: LoadConfig = {
      ...configOf(plan),
      runId,
      baseUrl,
      token,
      model,
      target: mock === undefined ? 'external' : 'bundled-mock',
      preWindowMs,
      serverCounts: new Map(),
      ...(workload === undefined ? {} : { workload }),
      ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
      ...(hooks.onTick === undefined ? {} : { onTick: hooks.onTick }),
      ...(hooks.serverMetrics === undefined ? {} : { serverMetrics: hooks.serverMetrics }),
      ...(hooks.protocols === undefined ? {} : { protocols: hooks.protocols }),
      ...(hooks.api === undefined ? {} : { api: hooks.api }),
      ...(hooks.startGate === undefined ? {} : { startGate: hooks.startGate }),
    };
    const onStep = hooks.onStep ?? ((): void => undefined);
    const secrets = [token, ...connectionSecrets(plan.connection, new URL(baseUrl).origin), ...(hooks.serverMetrics?.headers.map((h) => h.value) ?? []), ...(tokenB === null ? [] : [tokenB])];
    const recordLog = hooks.recordLog;
    const single = plan.findCapacity === null && !plan.sweep && ab === null;
    const { result, records, recordsFile }: LoadRun =
      plan.findCapacity !== null
        ? await runCapacitySearch(cfg, { ...plan.findCapacity, levelBoundS: levelBoundS(plan), onStep })
        : plan.sweep
          ? await runSweep(cfg, { maxSteps: plan.sweepSteps, onStep })
          : ab !== null && tokenB !== null
            ? ab.assign === 'random'
              ? await runAbRandom({ config: cfg, baseUrlB: ab.baseUrlB, tokenB, blockS: ab.blockS, run: runLoadConfig, dispatcherFor: (origin, pool) => dispatcherFor(plan.connection, origin, pool) })
              : await runAb({ config: cfg, baseUrlB: ab.baseUrlB, tokenB, blockS: ab.blockS, blockRequests: ab.blockRequests, run: runLoadConfig, ...(hooks.ab?.onBlock === undefined ? {} : { onBlock: hooks.ab.onBlock }) })
            : await runLoadConfig(single && recordLog !== undefined ? { ...cfg, records: () => recordLog(secrets) } : cfg);
    const runs: LoadResult[] = [result];
    const out = result as ScenarioOutcome['result'];
    if (plan.repeat > 1) {
      // The first run is the report; each run's figures go into repeat.values.
      for (let i = 2; i <= plan.repeat && hooks.signal?.aborted !== true; i++) {
        hooks.notice?.(`repeat ${i}/${plan.repeat}\n`);
        runs.push((await runLoadConfig({ ...cfg, runId: `${runId}-r${i}` })).result);
      }
      out.repeat = repeatSection(runs);
    }
    for (const r of runs) r.scenario = scenario as Record<string, unknown>;
    return { result: out, records, ...(recordsFile === undefined ? {} : { recordsFile }), runs, secrets };
  } finally {
    await mock?.close();
  }
}

function configOf(plan: LoadPlan): Omit<LoadConfig, 'runId' | 'baseUrl' | 'token' | 'model' | 'target'> {
  return {
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
    ...(plan.connectionReuse === undefined ? {} : { connectionReuse: plan.connectionReuse }),
    ...(plan.cancellation === undefined ? {} : { cancellation: plan.cancellation }),
    ...(plan.api === undefined ? {} : { api: plan.api }),
    ...(plan.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: plan.requestTimeoutMs }),
    slos: plan.slos,
    sloExprs: plan.sloExprs,
    shard: plan.shard,
  };
}

export interface ScenarioRunOptions {
  /** Bearer token for `scenario.target.baseUrl` (a scenario never holds one). */
  token?: string;
  /** Stops the run early; the result covers what was measured. */
  signal?: AbortSignal;
  /** Each level of a sweep or capacity search as it ends. */
  onStep?: (step: SweepStep, index: number) => void;
  /** search kind ab: the bearer token for its second server (absent: the target's token, and only on the target's origin). */
  abTokenB?: string;
  /** The APIs the run knows (default: every API iari ships); a list of your own adds an API (src/protocols/protocol.ts). */
  protocols?: ProtocolList;
  /** The API the requests go to, by name (default: the one the workload needs, else the list's first). */
  api?: string;
}

/** The plan a scenario describes, as the library validates it (exported for the CLI parity test). */
export function scenarioPlan(scenario: LoadScenario, token?: string, protocols?: ProtocolList): { plan: LoadPlan; scenario: LoadScenario } {
  const s = checkScenario(scenario, 'runScenario');
  const { options, shell } = scenarioToOptions(s);
  const names = scenarioNames('runScenario');
  // The APIs' own sections name SLO metrics too (Protocol.resultSections).
  const plan = validateLoadOptions({ ...options, ...(token === undefined ? {} : { token }) }, names, protocols === undefined ? shell : { ...shell, sections: loadSections({ protocols }) });
  return { plan, scenario: effectiveScenario(options, shell, plan) };
}

/**
 * Runs a load scenario: target, executor, workload, search and SLOs in one value (the format of
 * `iari load --scenario FILE`, checked against the same schema). Returns the result, as load.json
 * holds it, with the scenario it ran.
 *
 * @example
 * const { result } = await runScenario({ executor: { kind: 'open', rate: 20, arrival: 'poisson' }, run: { duration: '30s' }, slos: ['ttft.p95<800ms'] });
 */
export async function runScenario(scenario: LoadScenario, options: ScenarioRunOptions = {}): Promise<ScenarioOutcome> {
  refuseUnknownKeys('runScenario', options, ['token', 'signal', 'onStep', 'abTokenB', 'protocols', 'api']);
  const { plan, scenario: effective } = scenarioPlan(scenario, options.token, options.protocols);
  if (options.api !== undefined) protocolNamed(options.protocols ?? defaultProtocols, options.api);
  return runPlan(plan, scenarioNames('runScenario'), effective, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
    ...(options.abTokenB === undefined ? {} : { ab: { tokenB: options.abTokenB } }),
    ...(options.protocols === undefined ? {} : { protocols: options.protocols }),
    ...(options.api === undefined ? {} : { api: options.api }),
  });
}
