// One load run as one typed value: what to load (target), how requests arrive (executor), what each
// request asks for (workload), what runs around the run (search), and the thresholds (slos). A
// scenario file (`iari load --scenario FILE`), `iari load`'s flags and `runScenario()` all describe
// this value; each is turned into the typed LoadOptions and validated by the one validator
// (validateLoadOptions), so they accept, refuse and default alike.
import type { LoadNames, LoadOptionName, LoadOptions, ShellLoadOptions } from './load-option-names.ts';
import { WORKLOAD_KINDS, type WorkloadPart } from './scenario-workloads.ts';

export type { WorkloadPart } from './scenario-workloads.ts';

export interface TargetPart {
  /** The server, with or without /v1; absent: the bundled mock. The token is never in a scenario. */
  baseUrl?: string;
  model?: string;
  caFile?: string;
  insecure?: boolean;
  /** Literal header values (a secret one is redacted in load.json, so give it again to reproduce). */
  headers?: Record<string, string>;
  /** --connection-reuse: kept-alive connections (default) or a new connection per request. */
  connectionReuse?: 'reuse' | 'never';
}

interface ArrivalFields {
  rate: number;
  arrival?: 'constant' | 'poisson' | 'gamma';
  burstiness?: number;
  ramp?: string;
  rampShape?: 'linear' | 'exponential';
}

/** How requests are issued: a closed loop, an open loop (optionally capped), or a trace's own arrivals. */
export type ExecutorPart =
  | { kind: 'closed'; concurrency?: number; engine?: 'autocannon' | 'undici' }
  | ({ kind: 'open' } & ArrivalFields)
  | ({ kind: 'capped'; maxConcurrency: number } & ArrivalFields)
  | { kind: 'trace'; speed?: number; window?: string; maxConcurrency?: number };

/** What every request carries whatever the workload. */
export interface RequestPart {
  /** The API the requests go to, by its protocol's name (`responses`); independent of the workload's kind. */
  api?: string;
  maxTokens?: number;
  outputTokens?: string;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens' | 'both';
  stream?: boolean;
  timeout?: string;
  requestTimeout?: string;
  /** An object merged into every body, or JSON text, or `@FILE`. */
  extraBody?: Record<string, unknown> | string;
}

/** --cancel-rate and --cancel-after: the client cuts a seeded share of the requests. */
export interface CancellationPart {
  rate: number;
  /** A duration from the send (`500ms`), `16tokens`, `prefill` or `decode` (default). */
  after?: string;
}

export interface RunPart {
  duration?: string;
  requests?: number;
  warmup?: string;
  seed?: number;
  shard?: string;
}

/** What runs around the run: nothing, a sweep of levels, a capacity search, repeats of one level, or A/B against a second server. */
export type SearchPart =
  | { kind: 'none' }
  | { kind: 'sweep'; steps?: number }
  | { kind: 'capacity'; tolerance?: string; budget?: string }
  | { kind: 'repeat'; times: number }
  | { kind: 'ab'; baseUrl: string; block?: string | number; blockRequests?: number; assign?: 'blocks' | 'random' };

export interface LoadScenario {
  target?: TargetPart;
  executor?: ExecutorPart;
  /** The workload's parts, each of one kind (scenario-workloads.ts); none: the built-in prompts. */
  workload?: WorkloadPart[];
  request?: RequestPart;
  run?: RunPart;
  search?: SearchPart;
  cancellation?: CancellationPart;
  slos?: string[];
}

/** The scenario options: LoadOptions without what a scenario never holds (the token, the signal). */
export type ScenarioOptions = Omit<LoadOptions, 'token' | 'signal'>;
export type ScenarioShell = Pick<ShellLoadOptions, 'sweep' | 'sweepSteps' | 'findCapacity' | 'tolerance' | 'budget' | 'repeat' | 'ab' | 'abBlock' | 'abBlockRequests' | 'abAssign'>;

/** Where each option sits in a scenario: the one table behind the mapping both ways and the names in messages. */
const PATHS: Record<Exclude<LoadOptionName, 'token' | 'report' | 'json' | 'quiet'>, string> = {
  baseUrl: 'target.baseUrl',
  model: 'target.model',
  caFile: 'target.caFile',
  insecure: 'target.insecure',
  headers: 'target.headers',
  connectionReuse: 'target.connectionReuse',
  cancelRate: 'cancellation.rate',
  cancelAfter: 'cancellation.after',
  concurrency: 'executor.concurrency',
  engine: 'executor.engine',
  rate: 'executor.rate',
  arrival: 'executor.arrival',
  burstiness: 'executor.burstiness',
  maxConcurrency: 'executor.maxConcurrency',
  ramp: 'executor.ramp',
  rampShape: 'executor.rampShape',
  traceSpeed: 'executor.speed',
  traceWindow: 'executor.window',
  api: 'request.api',
  maxTokens: 'request.maxTokens',
  outputTokens: 'request.outputTokens',
  maxTokensField: 'request.maxTokensField',
  stream: 'request.stream',
  timeout: 'request.timeout',
  requestTimeout: 'request.requestTimeout',
  extraBody: 'request.extraBody',
  duration: 'run.duration',
  requests: 'run.requests',
  warmup: 'run.warmup',
  seed: 'run.seed',
  shard: 'run.shard',
  slo: 'slos',
  sweep: 'search.kind sweep',
  sweepSteps: 'search.steps',
  findCapacity: 'search.kind capacity',
  tolerance: 'search.tolerance',
  budget: 'search.budget',
  repeat: 'search.times',
  ab: 'search.kind ab (search.baseUrl)',
  abBlock: 'search.block',
  abBlockRequests: 'search.blockRequests',
  abAssign: 'search.assign',
  // The workload parts name their own fields (scenario-workloads.ts).
  prompts: 'workload prompts.file',
  inputTokens: 'workload synthetic.inputTokens',
  dataset: 'workload dataset.file',
  datasetSize: 'workload dataset.size',
  turns: 'workload conversations.turns',
  thinkTime: 'workload conversations.thinkTime',
  chain: 'workload conversations.chain',
  prefixTokens: 'workload prefixes.tokens',
  prefixGroups: 'workload prefixes.groups',
  tools: 'workload tools.tools',
  toolShare: 'workload tools.share',
  trace: 'workload trace.file',
  traceFormat: 'workload trace.format',
  embeddingsBatch: 'workload embeddings.batch',
  embeddingsFormat: 'workload embeddings.encodingFormat',
};

/** runScenario names each option by its place in the scenario (`executor.rate`). */
export function scenarioNames(who: string): LoadNames {
  return {
    who,
    name: (option) => (option in PATHS ? PATHS[option as keyof typeof PATHS] : option),
    connection: { who, header: 'target.headers', caFile: 'target.caFile', insecure: 'target.insecure' },
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** The entries that are not undefined (exactOptionalPropertyTypes: an absent value is an absent key). */
const defined = <T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };

/** The scenario as typed options and the search around it (the scenario was checked against its schema). */
export function scenarioToOptions(s: LoadScenario): { options: ScenarioOptions; shell: ScenarioShell } {
  const o: Mutable<ScenarioOptions> = {};
  const t = s.target ?? {};
  Object.assign(o, defined({ baseUrl: t.baseUrl, model: t.model, caFile: t.caFile, insecure: t.insecure, headers: t.headers, connectionReuse: t.connectionReuse }));
  const e = s.executor;
  if (e !== undefined) {
    if (e.kind === 'closed') Object.assign(o, defined({ concurrency: e.concurrency, engine: e.engine }));
    else if (e.kind === 'trace') Object.assign(o, defined({ traceSpeed: e.speed, traceWindow: e.window, maxConcurrency: e.maxConcurrency }));
    else {
      Object.assign(o, defined({ rate: e.rate, arrival: e.arrival, burstiness: e.burstiness, ramp: e.ramp, rampShape: e.rampShape }));
      if (e.kind === 'capped') o.maxConcurrency = e.maxConcurrency;
    }
  }
  for (const part of s.workload ?? []) Object.assign(o, WORKLOAD_KINDS[part.kind].toOptions(part as never));
  const r = s.request ?? {};
  Object.assign(o, defined({ api: r.api, maxTokens: r.maxTokens, outputTokens: r.outputTokens, maxTokensField: r.maxTokensField, stream: r.stream, timeout: r.timeout, requestTimeout: r.requestTimeout, extraBody: typeof r.extraBody === 'object' ? JSON.stringify(r.extraBody) : r.extraBody }));
  const run = s.run ?? {};
  Object.assign(o, defined({ duration: run.duration, requests: run.requests, warmup: run.warmup, seed: run.seed, shard: run.shard }));
  if (s.slos !== undefined) o.slo = [...s.slos];
  if (s.cancellation !== undefined) Object.assign(o, defined({ cancelRate: s.cancellation.rate, cancelAfter: s.cancellation.after }));
  const q = s.search ?? { kind: 'none' };
  const shell: ScenarioShell =
    q.kind === 'sweep' ? defined({ sweep: true, sweepSteps: q.steps })
      : q.kind === 'capacity' ? defined({ findCapacity: true, tolerance: q.tolerance, budget: q.budget })
        : q.kind === 'repeat' ? { repeat: q.times }
          : q.kind === 'ab' ? defined({ ab: q.baseUrl, abBlock: q.block === undefined ? undefined : String(q.block), abBlockRequests: q.blockRequests, abAssign: q.assign })
            : {};
  return { options: o, shell };
}

/**
 * The options (and search) as a scenario: what load.json records so that `--scenario` on it runs
 * the same again. Written from what was given; defaults are the validator's.
 */
export function optionsToScenario(o: ScenarioOptions, shell: ScenarioShell = {}): LoadScenario {
  const s: LoadScenario = {};
  const target = defined({ baseUrl: o.baseUrl, model: o.model, caFile: o.caFile, insecure: o.insecure, headers: o.headers === undefined ? undefined : { ...o.headers }, connectionReuse: o.connectionReuse });
  if (Object.keys(target).length > 0) s.target = target;
  const arrival = defined({ arrival: o.arrival, burstiness: o.burstiness, ramp: o.ramp, rampShape: o.rampShape });
  if (o.trace !== undefined) s.executor = defined({ kind: 'trace' as const, speed: o.traceSpeed, window: o.traceWindow, maxConcurrency: o.maxConcurrency });
  else if (o.rate !== undefined && o.maxConcurrency !== undefined) s.executor = { kind: 'capped', rate: o.rate, maxConcurrency: o.maxConcurrency, ...arrival };
  else if (o.rate !== undefined) s.executor = { kind: 'open', rate: o.rate, ...arrival };
  else s.executor = defined({ kind: 'closed' as const, concurrency: o.concurrency, engine: o.engine });
  const workload = Object.values(WORKLOAD_KINDS).map((k) => k.fromOptions(o)).filter((p): p is WorkloadPart => p !== undefined);
  if (workload.length > 0) s.workload = workload;
  const request = defined({ api: o.api, maxTokens: o.maxTokens, outputTokens: o.outputTokens, maxTokensField: o.maxTokensField, stream: o.stream, timeout: o.timeout, requestTimeout: o.requestTimeout, extraBody: o.extraBody === undefined ? undefined : bodyOf(o.extraBody) });
  if (Object.keys(request).length > 0) s.request = request;
  const run = defined({ duration: o.duration, requests: o.requests, warmup: o.warmup, seed: o.seed, shard: o.shard });
  if (Object.keys(run).length > 0) s.run = run;
  s.search =
    shell.findCapacity === true ? defined({ kind: 'capacity' as const, tolerance: shell.tolerance, budget: shell.budget })
      : shell.sweep === true ? defined({ kind: 'sweep' as const, steps: shell.sweepSteps })
        : shell.repeat !== undefined ? { kind: 'repeat', times: shell.repeat }
          : shell.ab !== undefined ? defined({ kind: 'ab' as const, baseUrl: shell.ab, block: shell.abBlock, blockRequests: shell.abBlockRequests, assign: shell.abAssign })
            : { kind: 'none' };
  // A cancelAfter without a rate is the validator's to refuse; it is kept so the refusal names it.
  if (o.cancelRate !== undefined || o.cancelAfter !== undefined) s.cancellation = defined({ rate: o.cancelRate as number, after: o.cancelAfter });
  if (o.slo !== undefined && o.slo.length > 0) s.slos = [...o.slo];
  return s;
}

/** `--extra-body` text that is a JSON object reads better in a scenario as the object; `@FILE` stays. */
function bodyOf(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}

const EXECUTOR_KEYS = ['concurrency', 'engine', 'rate', 'arrival', 'burstiness', 'maxConcurrency', 'ramp', 'rampShape', 'traceSpeed', 'traceWindow'] as const;
const SEARCH_KEYS = ['sweep', 'sweepSteps', 'findCapacity', 'tolerance', 'budget', 'repeat', 'ab', 'abBlock', 'abBlockRequests', 'abAssign'] as const;

/**
 * Flags over a scenario file: a value given by flag wins, key by key. A flag that chooses the kind
 * of executor (`--concurrency`, `--rate`) or of search (`--sweep`, `--find-capacity`, `--repeat`, `--ab`)
 * replaces that whole part of the file, so `--concurrency 4` on a file with an open loop runs a
 * closed loop rather than refusing both; the other flags refine it (`--budget 2m`, `--arrival poisson`).
 */
export function overlay(base: { options: ScenarioOptions; shell: ScenarioShell }, over: { options: ScenarioOptions; shell: ScenarioShell }): { options: ScenarioOptions; shell: ScenarioShell } {
  const options: Mutable<ScenarioOptions> = { ...base.options };
  if (over.options.concurrency !== undefined || over.options.rate !== undefined) for (const k of EXECUTOR_KEYS) delete options[k];
  const shell: Mutable<ScenarioShell> = { ...base.shell };
  if (over.shell.sweep !== undefined || over.shell.findCapacity !== undefined || over.shell.repeat !== undefined || over.shell.ab !== undefined) for (const k of SEARCH_KEYS) delete shell[k];
  return { options: { ...options, ...defined(over.options) }, shell: { ...shell, ...defined(over.shell) } };
}
