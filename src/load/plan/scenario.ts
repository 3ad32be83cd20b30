// One load run as one typed value: what to load (target), how requests arrive (executor), what each
// request asks for (workload), what runs around the run (search), and the thresholds (slos). A
// scenario file (`iari load --scenario FILE`), `iari load`'s flags and `runScenario()` all describe
// this value; each is turned into the typed LoadOptions and validated by the one validator
// (validateLoadOptions), so they accept, refuse and default alike.
import type { LoadNames, LoadOptionName, LoadOptions, ShellLoadOptions } from './load-option-names.ts';
import { WORKLOAD_KINDS, type WorkloadPart } from './scenario-workloads.ts';
import { LOAD_FLAGS, scenarioPathsOf, type LoadFlag } from './load-flag-table.ts';
import { EXECUTOR_KINDS, FIELD_PARTS, SEARCH_KINDS, partFromOptions, partToOptions, scenarioFieldsOf, workloadFieldsOf, workloadFromOptions, workloadToOptions, type FieldPart } from './scenario-fields.ts';

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

/** The client cuts a seeded share of the requests (the fields are the flag table's cancellation.* rows). */
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

/** Where each option sits in a scenario (the flag table's paths): the names in runScenario's messages. */
const PATHS: Readonly<Record<string, string>> = scenarioPathsOf(LOAD_FLAGS);

/** runScenario names each option by its place in the scenario (`executor.rate`). */
export function scenarioNames(who: string): LoadNames {
  return {
    who,
    name: (option) => PATHS[option] ?? option,
    connection: { who, header: 'target.headers', caFile: 'target.caFile', insecure: 'target.insecure' },
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** The entries that are not undefined (exactOptionalPropertyTypes: an absent value is an absent key). */
const defined = <T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };

/** The plain parts' and the workload parts' fields, from the flag table's paths (scenario-fields.ts). */
const FIELDS = scenarioFieldsOf(LOAD_FLAGS);
const WORKLOAD_FIELDS = workloadFieldsOf(LOAD_FLAGS);

/** The scenario as typed options and the search around it (the scenario was checked against its schema); `rows`: the flag table. */
export function scenarioToOptions(s: LoadScenario, rows: readonly LoadFlag[] = LOAD_FLAGS): { options: ScenarioOptions; shell: ScenarioShell } {
  const fields = rows === LOAD_FLAGS ? FIELDS : scenarioFieldsOf(rows);
  const workloads = rows === LOAD_FLAGS ? WORKLOAD_FIELDS : workloadFieldsOf(rows);
  const o: Record<string, unknown> = {};
  for (const part of FIELD_PARTS) partToOptions(fields, part, s[part], o, part === 'executor' && s.executor !== undefined ? EXECUTOR_KINDS[s.executor.kind].fields : undefined);
  for (const part of s.workload ?? []) workloadToOptions(workloads, part, o, WORKLOAD_KINDS[part.kind].defaults);
  if (s.slos !== undefined) o['slo'] = [...s.slos];
  const q = s.search ?? { kind: 'none' };
  const shell: Record<string, unknown> = {};
  const choose = SEARCH_KINDS[q.kind].flag;
  if (choose !== undefined) shell[choose] = true;
  if (q.kind === 'ab') shell['ab'] = q.baseUrl;
  partToOptions(fields, 'search', q, shell, SEARCH_KINDS[q.kind].fields);
  return { options: o as ScenarioOptions, shell: shell as ScenarioShell };
}

/**
 * The options (and search) as a scenario: what load.json records so that `--scenario` on it runs
 * the same again. Written from what was given; defaults are the validator's.
 */
export function optionsToScenario(o: ScenarioOptions, shell: ScenarioShell = {}, rows: readonly LoadFlag[] = LOAD_FLAGS): LoadScenario {
  const fields = rows === LOAD_FLAGS ? FIELDS : scenarioFieldsOf(rows);
  const workloads = rows === LOAD_FLAGS ? WORKLOAD_FIELDS : workloadFieldsOf(rows);
  const s: Record<string, unknown> = {};
  const part = (name: FieldPart, only?: readonly string[]): void => {
    const p = partFromOptions(fields, name, o, only);
    if (Object.keys(p).length > 0) s[name] = p;
  };
  part('target');
  const kind: ExecutorPart['kind'] = o.trace !== undefined ? 'trace' : o.rate !== undefined && o.maxConcurrency !== undefined ? 'capped' : o.rate !== undefined ? 'open' : 'closed';
  s['executor'] = { kind, ...partFromOptions(fields, 'executor', o, EXECUTOR_KINDS[kind].fields) };
  const workload = Object.keys(WORKLOAD_KINDS).flatMap((k) => workloadFromOptions(workloads, k, o) ?? []) as WorkloadPart[];
  if (workload.length > 0) s['workload'] = workload;
  part('request');
  part('run');
  const search: SearchPart['kind'] = shell.findCapacity === true ? 'capacity' : shell.sweep === true ? 'sweep' : shell.repeat !== undefined ? 'repeat' : shell.ab !== undefined ? 'ab' : 'none';
  s['search'] = { kind: search, ...(shell.ab === undefined || search !== 'ab' ? {} : { baseUrl: shell.ab }), ...partFromOptions(fields, 'search', shell, SEARCH_KINDS[search].fields) };
  // A cut point without a share is the validator's to refuse; it is kept so the refusal names it.
  part('cancellation');
  if (o.slo !== undefined && o.slo.length > 0) s['slos'] = [...o.slo];
  return s as LoadScenario;
}

/** The options of the executor's fields, and of the search's (with the switches and the B server that choose its kind). */
const EXECUTOR_KEYS = FIELDS.filter((f) => f.part === 'executor').map((f) => f.option as keyof ScenarioOptions);
const SEARCH_KEYS = ['sweep', 'findCapacity', 'ab', ...FIELDS.filter((f) => f.part === 'search').map((f) => f.option)] as (keyof ScenarioShell)[];

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
