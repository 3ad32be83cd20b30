// The library form of `iari load`: the same engines, metrics and SLO verdicts, options named as the
// CLI's flags (camelCase) and validated by the same code, without terminal output or report files.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { planFromFlags } from '../load/load-options.ts';
import type { LoadResult, RequestRecord } from '../load/load-result.ts';
import { runLoad as runEngine } from '../load/run-load.ts';
import { newRunId } from '../report/run-dir.ts';
// The bundled mock's pacing for load runs is the CLI's, so both measure the same server.
import { MOCK_LOAD_OPTIONS } from '../load/mock-pacing.ts';
import { firstModel } from '../load/first-model.ts';
import { resolveWorkload } from '../load/workload-options.ts';
import type { loadFlagSpec } from '../load/load-options.ts';
import { connectionFromOptions, type ConnectionNames } from '../client/connection-options.ts';

/** How runLoad's messages name its connection options. */
const RUN_LOAD_NAMES: ConnectionNames = { who: 'runLoad', header: 'headers', caFile: 'caFile', insecure: 'insecure' };

/**
 * Every option and the `iari load` flag it stands for: runLoad validates them with the CLI's own
 * planner, so both accept and refuse alike (src/library/options-parity.test.ts holds every flag
 * to a place here or in CLI_ONLY_FLAGS).
 */
export const OPTION_FLAGS = {
  model: 'model',
  concurrency: 'concurrency',
  rate: 'rate',
  arrival: 'arrival',
  burstiness: 'burstiness',
  maxConcurrency: 'max-concurrency',
  ramp: 'ramp',
  rampShape: 'ramp-shape',
  engine: 'engine',
  duration: 'duration',
  requests: 'requests',
  warmup: 'warmup',
  timeout: 'timeout',
  requestTimeout: 'request-timeout',
  maxTokens: 'max-tokens',
  stream: 'no-stream',
  prompts: 'prompts',
  inputTokens: 'input-tokens',
  outputTokens: 'output-tokens',
  maxTokensField: 'max-tokens-field',
  extraBody: 'extra-body',
  dataset: 'dataset',
  datasetSize: 'dataset-size',
  prefixTokens: 'prefix-tokens',
  prefixGroups: 'prefix-groups',
  turns: 'turns',
  thinkTime: 'think-time',
  trace: 'trace',
  traceFormat: 'trace-format',
  traceSpeed: 'trace-speed',
  traceWindow: 'trace-window',
  tools: 'tools',
  toolShare: 'tool-share',
  shard: 'shard',
  slo: 'slo',
  seed: 'seed',
  caFile: 'ca-file',
  insecure: 'insecure',
  headers: 'header',
} as const satisfies Record<Exclude<keyof LoadOptions, 'baseUrl' | 'token' | 'signal'>, keyof typeof loadFlagSpec>;

/** Flags with no runLoad option, and why. */
export const CLI_ONLY_FLAGS: Record<string, string> = {
  'base-url': 'the baseUrl option',
  'token-env': 'the token option (never the environment)',
  'token-file': 'the token option (never a file)',
  stream: 'the stream option (true is the default)',
  sweep: 'the CLI steps runs; a program calls runLoad per level',
  'sweep-steps': 'with --sweep',
  repeat: 'the CLI repeats runs; a program calls runLoad again',
  'find-capacity': 'the CLI searches levels (capacity-search.ts); a program calls runLoad per level',
  tolerance: 'with --find-capacity',
  budget: 'with --find-capacity',
  report: 'runLoad writes no files',
  json: 'runLoad returns the result',
  quiet: 'runLoad prints nothing',
  help: 'the CLI help',
};

/** The connection options: validated as typed values (connection-options.ts), never as flag strings. */
const CONNECTION_OPTIONS = new Set<keyof LoadOptions>(['caFile', 'insecure', 'headers']);
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

export interface LoadOptions {
  /** Server to load, with or without `/v1`, accepted or refused as `iari load --base-url` does. Absent: the bundled mock with realistic pacing. */
  baseUrl?: string;
  /** Bearer token for `baseUrl` (required with it). */
  token?: string;
  /** Model to request (default: the first one GET /v1/models lists). */
  model?: string;
  /** Closed loop: this many requests in flight (default 8). */
  concurrency?: number;
  /** Open loop: arrivals per second (exclusive with `concurrency`). */
  rate?: number;
  arrival?: 'constant' | 'poisson' | 'gamma';
  /** Gamma arrivals: the shape K of the gaps (vLLM's --burstiness), as `--burstiness`. */
  burstiness?: number;
  /** Open loop capped at N requests in flight (reported as its own mode), as `--max-concurrency`. */
  maxConcurrency?: number;
  /** Open loop: the rate rises to `rate` over this long, e.g. `'30s'`, as `--ramp`. */
  ramp?: string;
  rampShape?: 'linear' | 'exponential';
  engine?: 'autocannon' | 'undici';
  /** Measured time, e.g. `'10s'` (default 10 s unless `requests` is given). */
  duration?: string;
  /** Stop after this many requests instead of a duration. */
  requests?: number;
  /** Unmeasured warmup before the window, e.g. `'2s'`. */
  warmup?: string;
  /** Idle timeout of one request, reset on every byte, e.g. `'30s'` (default 30 s). */
  timeout?: string;
  /** Total deadline of one request, body included, e.g. `'2m'` (default 120 s), as `--request-timeout`. */
  requestTimeout?: string;
  maxTokens?: number;
  /** Streamed requests (default true). */
  stream?: boolean;
  /** JSONL or ShareGPT prompts file (default: built-in prompts). */
  prompts?: string;
  /** Synthetic prompts of MEAN[,STDEV] tokens, e.g. `'512,64'`, as `--input-tokens`. */
  inputTokens?: string;
  /** Output length per request MEAN[,STDEV], sent as max_tokens, as `--output-tokens`. */
  outputTokens?: string;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens' | 'both';
  /** Object merged into every request body (JSON text or `@FILE`), as `--extra-body`. */
  extraBody?: string;
  /** ShareGPT or iari JSONL dataset file, as `--dataset`; `datasetSize` conversations sampled. */
  dataset?: string;
  datasetSize?: number;
  /** Every request starts with one of `prefixGroups` shared prefixes of this many tokens, as `--prefix-tokens`. */
  prefixTokens?: number;
  prefixGroups?: number;
  /** Multi-turn conversations of N[,SD] turns, e.g. `'4'`, as `--turns`; `thinkTime` between turns, e.g. `'2s'`. */
  turns?: string;
  thinkTime?: string;
  /** Mooncake JSONL or BurstGPT CSV trace replayed on the open loop, as `--trace`. */
  trace?: string;
  traceFormat?: 'mooncake' | 'burstgpt';
  /** Replay X times as fast, as `--trace-speed`. */
  traceSpeed?: number;
  /** Part of the trace replayed, in trace time, e.g. `'60s-120s'`, as `--trace-window`. */
  traceWindow?: string;
  /** Requests declare tools (`'builtin'` or a JSON file of definitions) and every call is judged, as `--tools`; `toolShare` of them (default 1). */
  tools?: string;
  toolShare?: number;
  /** Share i of n of the load, e.g. `'0/4'`, as `--shard` (merge the results with `iari report merge`). */
  shard?: string;
  /** Thresholds such as `'ttft.p95<800ms'`; a breach sets `slosPassed` false. */
  slo?: readonly string[];
  seed?: number;
  /** A private CA (PEM file) trusted besides the system's, as `--ca-file`; refused when unreadable or not PEM. */
  caFile?: string;
  /** Do not verify TLS certificates, as `--insecure` (not with `caFile`). */
  insecure?: boolean;
  /**
   * Extra request headers for `baseUrl` (a gateway's), as `--header`: refused alike (not a valid
   * field name, one iari sets itself such as Authorization or Content-Type, a control character
   * such as CR or LF, empty, or given twice in another case). Values are literal: a program keeps
   * its secrets in memory, so there is no `env:VAR` form. Only with `baseUrl`.
   */
  headers?: Readonly<Record<string, string>>;
  /** Stops the run early; the result covers what was measured. */
  signal?: AbortSignal;
}

export interface LoadOutcome {
  /** The same object `iari load --json` prints (load.json). */
  result: LoadResult;
  /** One record per measured request. */
  records: RequestRecord[];
}

/**
 * Runs a load test (default: 10 s at concurrency 8 against the bundled mock) and returns its metrics and SLO verdicts.
 *
 * @example
 * const { result } = await runLoad({ rate: 20, arrival: 'poisson', duration: '30s', slo: ['ttft.p95<800ms'] });
 * console.log(result.slosPassed);
 */
export async function runLoad(options: LoadOptions = {}): Promise<LoadOutcome> {
  const flags: Record<string, string | boolean | string[] | undefined> = {};
  for (const [key, flag] of Object.entries(OPTION_FLAGS) as [keyof typeof OPTION_FLAGS, string][]) {
    const v = options[key];
    if (v === undefined || CONNECTION_OPTIONS.has(key)) continue;
    if (key === 'stream') flags['no-stream'] = v === false ? true : undefined;
    else flags[flag] = Array.isArray(v) ? [...(v as readonly string[])] : String(v);
  }
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  // The CLI's own validation of every option, the base URL and the token included; the token and
  // the connection options are handed over as they are, never through flag strings or the environment.
  const connection = connectionFromOptions(RUN_LOAD_NAMES, { caFile: options.caFile, insecure: options.insecure, headers: options.headers });
  const plan = planFromFlags(options.baseUrl === undefined ? given : { ...given, 'base-url': options.baseUrl }, options.baseUrl === undefined ? { who: 'runLoad', connection } : { token: options.token ?? '', who: 'runLoad', connection });
  const target = plan.baseUrl === null || plan.token === null ? undefined : { v1: plan.baseUrl, token: plan.token };
  let mock: MockServer | undefined;
  try {
    if (target === undefined) mock = await startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed });
    const baseUrl = target?.v1 ?? mock!.url;
    // Datasets and traces are read (and refused, exit-2 errors) before any traffic, as the CLI does.
    const workload = await resolveWorkload(plan.workloadPlan, plan.seed);
    return await runEngine({
      ...plan,
      ...(workload === undefined ? {} : { workload }),
      runId: newRunId(),
      baseUrl,
      token: target?.token ?? mock!.tokens.default,
      model: plan.model ?? (await firstModel('runLoad', baseUrl, target?.token ?? mock!.tokens.default, plan.connection)),
      target: mock === undefined ? 'external' : 'bundled-mock',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } finally {
    await mock?.close();
  }
}
