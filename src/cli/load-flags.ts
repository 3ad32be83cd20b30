// `iari load`'s flags: parsed into the typed LoadOptions that runLoad takes (numbers as numbers,
// durations as their text), then validated by the one validator, validateLoadOptions
// (src/load/plan/load-options.ts), which names each option by its flag here.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { readTokenOrNone } from '../client/token.ts';
import { cliConnectionNames, connectionFlagSpec, connectionFromFlags } from '../client/connection-options.ts';
import { NUMBER_RULES, numberMessage, type LoadNames, type LoadOptionName, type NumberOption } from '../load/plan/load-option-names.ts';
import { validateLoadOptions, type LoadOptions, type LoadPlan, type ShellLoadOptions } from '../load/plan/load-options.ts';
import { workloadFlagSpec } from '../load/plan/workload-options.ts';
import { serverMetricsFlagSpec } from '../server-metrics/flags.ts';
import { overlay, scenarioToOptions, type LoadScenario } from '../load/plan/scenario.ts';
import { readScenarioFile } from '../load/plan/scenario-file.ts';
import { effectiveScenario } from '../load/plan/effective-scenario.ts';

export const loadFlagSpec = {
  'base-url': { type: 'string' },
  'token-env': { type: 'string' },
  'token-file': { type: 'string' },
  model: { type: 'string' },
  concurrency: { type: 'string' },
  rate: { type: 'string' },
  arrival: { type: 'string' },
  burstiness: { type: 'string' },
  'max-concurrency': { type: 'string' },
  ramp: { type: 'string' },
  'ramp-shape': { type: 'string' },
  engine: { type: 'string' },
  'connection-reuse': { type: 'string' },
  'cancel-rate': { type: 'string' },
  'cancel-after': { type: 'string' },
  ab: { type: 'string' },
  'ab-block': { type: 'string' },
  'ab-block-requests': { type: 'string' },
  'ab-assign': { type: 'string' },
  'ab-token-env': { type: 'string' },
  duration: { type: 'string' },
  requests: { type: 'string' },
  warmup: { type: 'string' },
  prompts: { type: 'string' },
  'max-tokens': { type: 'string' },
  stream: { type: 'boolean' },
  'no-stream': { type: 'boolean' },
  timeout: { type: 'string' },
  'request-timeout': { type: 'string' },
  slo: { type: 'string', multiple: true },
  sweep: { type: 'boolean' },
  'sweep-steps': { type: 'string' },
  'find-capacity': { type: 'boolean' },
  tolerance: { type: 'string' },
  budget: { type: 'string' },
  shard: { type: 'string' },
  coordinate: { type: 'string' },
  coordinator: { type: 'string' },
  shards: { type: 'string' },
  'run-token-env': { type: 'string' },
  'register-timeout': { type: 'string' },
  repeat: { type: 'string' },
  seed: { type: 'string' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  scenario: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...connectionFlagSpec,
  ...workloadFlagSpec,
  ...serverMetricsFlagSpec,
} as const;

type Flag = keyof typeof loadFlagSpec;

/**
 * Every runLoad option and the `iari load` flag it stands for (src/library/options-parity.test.ts
 * holds every flag to a place here or in CLI_ONLY_FLAGS). `stream: false` is `--no-stream`.
 */
export const OPTION_FLAGS = {
  baseUrl: 'base-url',
  model: 'model',
  concurrency: 'concurrency',
  rate: 'rate',
  arrival: 'arrival',
  burstiness: 'burstiness',
  maxConcurrency: 'max-concurrency',
  ramp: 'ramp',
  rampShape: 'ramp-shape',
  engine: 'engine',
  connectionReuse: 'connection-reuse',
  cancelRate: 'cancel-rate',
  cancelAfter: 'cancel-after',
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
  embeddingsBatch: 'embeddings-batch',
  embeddingsFormat: 'embeddings-format',
  shard: 'shard',
  slo: 'slo',
  seed: 'seed',
  caFile: 'ca-file',
  insecure: 'insecure',
  headers: 'header',
} as const satisfies Record<Exclude<keyof LoadOptions, 'token' | 'signal'>, Flag>;

/** The CLI-only options and their flags. */
const SHELL_FLAGS = {
  sweep: 'sweep',
  sweepSteps: 'sweep-steps',
  findCapacity: 'find-capacity',
  tolerance: 'tolerance',
  budget: 'budget',
  repeat: 'repeat',
  ab: 'ab',
  abBlock: 'ab-block',
  abBlockRequests: 'ab-block-requests',
  abAssign: 'ab-assign',
  report: 'report',
  json: 'json',
  quiet: 'quiet',
} as const satisfies Record<Exclude<keyof ShellLoadOptions, 'connection'>, Flag>;

/** Flags with no runLoad option, and why. */
export const CLI_ONLY_FLAGS: Record<string, string> = {
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
  'server-metrics': 'the serverMetrics option of the run config (src/server-metrics/flags.ts)',
  'server-metrics-interval': 'with --server-metrics',
  'server-metrics-header': 'with --server-metrics',
  scenario: 'runScenario takes the scenario itself',
  ab: 'two servers in one run: runScenario\'s search kind ab (load/search/ab-blocks.ts, ab-random.ts); a program calls runLoad per block',
  'ab-block': 'with --ab',
  'ab-block-requests': 'with --ab',
  'ab-assign': 'with --ab',
  'ab-token-env': 'with --ab (a token source: runScenario\'s abTokenB hook)',
  coordinate: 'the CLI serves the coordination endpoint (src/load/coordination/coordinator.ts startCoordinator)',
  coordinator: 'the CLI joins a coordinator (src/load/coordination/shard-client.ts, runLoad\'s startGate)',
  shards: 'with --coordinate, when the coordinator runs no shard',
  'run-token-env': 'with --coordinate / --coordinator (a token source)',
  'register-timeout': 'with --coordinate / --coordinator',
};

const FLAGS: Record<Exclude<LoadOptionName, 'token'>, Flag> = { ...OPTION_FLAGS, ...SHELL_FLAGS };

/** `iari load` names each option by its flag. */
export const CLI_LOAD_NAMES: LoadNames = {
  who: 'iari load',
  name: (option: LoadOptionName) => (option === 'stream' ? '--stream / --no-stream' : option === 'token' ? '--token-env' : `--${FLAGS[option]}`),
  connection: cliConnectionNames('load'),
};

export type LoadFlagValues = { [K in Flag]?: (typeof loadFlagSpec)[K] extends { multiple: true } ? string[] : (typeof loadFlagSpec)[K]['type'] extends 'boolean' ? boolean : string };

/** Options that may be given as undefined (an absent flag), dropped before validation. */
type Loose<T> = { [K in keyof T]?: T[K] | undefined };

/** exactOptionalPropertyTypes: an absent flag is an absent option, never `undefined` given. */
const given = <T extends object>(loose: Loose<T>): T => Object.fromEntries(Object.entries(loose).filter(([, value]) => value !== undefined)) as T;

const usage = (message: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`);

/** A numeric flag's text as a number; its range is validateLoadOptions' to check (NUMBER_RULES). */
function numberFlag(option: NumberOption, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rule = NUMBER_RULES[option];
  const t = value.trim();
  if (!(rule.integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(t)) throw usage(numberMessage(CLI_LOAD_NAMES.name(option), rule, value));
  return Number(t);
}

/** The flags as typed options (the connection validated here: `--header 'Name: env:VAR'` reads the environment). */
export function loadOptionsFromFlags(v: LoadFlagValues): { options: LoadOptions; shell: ShellLoadOptions } {
  const connection = connectionFromFlags('load', v);
  if (v.stream === true && v['no-stream'] === true) throw usage('give --stream or --no-stream, not both');
  const typed: Loose<LoadOptions> = {
    baseUrl: v['base-url'],
    model: v.model,
    concurrency: numberFlag('concurrency', v.concurrency),
    rate: numberFlag('rate', v.rate),
    arrival: v.arrival as LoadOptions['arrival'],
    burstiness: numberFlag('burstiness', v.burstiness),
    maxConcurrency: numberFlag('maxConcurrency', v['max-concurrency']),
    ramp: v.ramp,
    rampShape: v['ramp-shape'] as LoadOptions['rampShape'],
    engine: v.engine as LoadOptions['engine'],
    connectionReuse: v['connection-reuse'] as LoadOptions['connectionReuse'],
    cancelRate: numberFlag('cancelRate', v['cancel-rate']),
    cancelAfter: v['cancel-after'],
    duration: v.duration,
    requests: numberFlag('requests', v.requests),
    warmup: v.warmup,
    timeout: v.timeout,
    requestTimeout: v['request-timeout'],
    maxTokens: numberFlag('maxTokens', v['max-tokens']),
    stream: v['no-stream'] === true ? false : undefined,
    prompts: v.prompts,
    inputTokens: v['input-tokens'],
    outputTokens: v['output-tokens'],
    maxTokensField: v['max-tokens-field'] as LoadOptions['maxTokensField'],
    extraBody: v['extra-body'],
    dataset: v.dataset,
    datasetSize: numberFlag('datasetSize', v['dataset-size']),
    prefixTokens: numberFlag('prefixTokens', v['prefix-tokens']),
    prefixGroups: numberFlag('prefixGroups', v['prefix-groups']),
    turns: v.turns,
    thinkTime: v['think-time'],
    trace: v.trace,
    traceFormat: v['trace-format'] as LoadOptions['traceFormat'],
    traceSpeed: numberFlag('traceSpeed', v['trace-speed']),
    traceWindow: v['trace-window'],
    tools: v.tools,
    toolShare: numberFlag('toolShare', v['tool-share']),
    embeddingsBatch: numberFlag('embeddingsBatch', v['embeddings-batch']),
    embeddingsFormat: v['embeddings-format'] as LoadOptions['embeddingsFormat'],
    shard: v.shard,
    slo: v.slo,
    seed: numberFlag('seed', v.seed),
  };
  const shell: Loose<ShellLoadOptions> = {
    sweep: v.sweep,
    sweepSteps: numberFlag('sweepSteps', v['sweep-steps']),
    findCapacity: v['find-capacity'],
    tolerance: v.tolerance,
    budget: v.budget,
    repeat: numberFlag('repeat', v.repeat),
    ab: v.ab,
    abBlock: v['ab-block'],
    abBlockRequests: numberFlag('abBlockRequests', v['ab-block-requests']),
    abAssign: v['ab-assign'] as ShellLoadOptions['abAssign'],
    report: v.report,
    json: v.json,
    quiet: v.quiet,
    connection,
  };
  return { options: given(typed), shell: given(shell) };
}

/** `iari load`'s flags (over a `--scenario` file, when given), parsed and validated before any traffic (exit 2 on a bad one). */
export function planFromFlags(v: LoadFlagValues): LoadPlan {
  return scenarioFromFlags(v).plan;
}

/** The plan and the effective scenario (what load.json records): the file's values, each flag given over them. */
export function scenarioFromFlags(v: LoadFlagValues): { plan: LoadPlan; scenario: LoadScenario } {
  const flags = loadOptionsFromFlags(v);
  const { report, json, quiet, connection, ...search } = flags.shell;
  const connectionGiven = v['ca-file'] !== undefined || v.insecure !== undefined || v.header !== undefined;
  const file = v.scenario === undefined ? { options: {}, shell: {} } : scenarioToOptions(readScenarioFile(v.scenario));
  const merged = overlay(file, { options: flags.options, shell: search });
  const shell: ShellLoadOptions = { ...merged.shell, ...given({ report, json, quiet }), ...(connectionGiven && connection !== undefined ? { connection } : {}) };
  const tokenGiven = merged.options.baseUrl !== undefined || v['token-env'] !== undefined || v['token-file'] !== undefined;
  // Issue 43: "A token is required even when the server has no auth." With no token source named and
  // $IARI_TOKEN unset, the requests carry no Authorization (the plan's token is empty, said before
  // any traffic); a named source (--token-env, --token-file) must still hold one.
  const readOrNone = (): string => readTokenOrNone('iari load', { tokenEnv: v['token-env'], tokenFile: v['token-file'] });
  const plan = validateLoadOptions(merged.options, CLI_LOAD_NAMES, tokenGiven ? { ...shell, readToken: readOrNone } : shell);
  return { plan, scenario: effectiveScenario(merged.options, merged.shell, plan) };
}
