// The options of a load run, typed, and how each entry point names them in its messages: `runLoad`
// by the option (`rate`), `iari load` by its flag (`--rate`, src/cli/load-flags.ts). Both shells
// hand these to validateLoadOptions (load-options.ts); neither goes through flag strings.
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { checkDuration } from '../../duration.ts';
import { withinRule } from '../../flag-table.ts';
import type { ConnectionNames, ConnectionOptions } from '../../client/connection-options.ts';
import { choiceMessage, choicesOf, LOAD_FLAGS, numberMessage, type ChoiceOption, numberRulesOf, RUN_LOAD_OPTION_KEYS, type NumberOption, type NumberRule, type RunLoadOptionKey } from './load-flag-table.ts';

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
  /**
   * `reuse` (default): kept-alive connections carry one request after another; `never`: a new
   * connection per request (it asks `Connection: close`), as `--connection-reuse`. Under `reuse`, a
   * request written on a reused connection that closes before any byte of its answer (a connection
   * reuse race) is sent once more on a fresh connection and counted on its own.
   */
  connectionReuse?: 'reuse' | 'never';
  /**
   * Share of the requests the client cuts, in (0, 1], seeded by `seed`, as `--cancel-rate`: a cut
   * request is aborted on the wire and counted apart (never an error, never a latency sample).
   */
  cancelRate?: number;
  /** Where a request is cut, as `--cancel-after`: a duration from its send (`'500ms'`), `'16tokens'`, `'prefill'` (before the first token) or `'decode'` (default; after it, at a seeded point). */
  cancelAfter?: string;
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
  /** Who counts the synthetic prompts' tokens, as `--tokenizer`: `o200k` (default) or `server` (its /tokenize, llama.cpp's, read before any traffic). */
  tokenizer?: 'o200k' | 'server';
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
  /** How a conversation's later turns reach the server, as `--chain`: `resend` (default) the whole history, `previous-response-id` only the new turn, naming the kept answer (an API that chains: responses). */
  chain?: 'resend' | 'previous-response-id';
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
  /** POST /v1/embeddings with N inputs per request instead of chat completions, as `--embeddings-batch`; `embeddingsFormat` its encoding_format. */
  embeddingsBatch?: number;
  embeddingsFormat?: 'float' | 'base64';
  /** The API the requests go to, by its protocol's name (`'responses'`: POST /v1/responses), as `--api`; default the one the workload needs, else chat completions. */
  api?: string;
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

/** Every key of LoadOptions, at run time, from the flag table: runLoad refuses any other (a misspelt option would be ignored). */
export const LOAD_OPTION_KEYS = RUN_LOAD_OPTION_KEYS as readonly (keyof LoadOptions)[];
// The table's options are LoadOptions' keys, no more and no fewer (a key added to one and not the other fails to compile).
const loadKeysComplete: [Exclude<keyof LoadOptions, RunLoadOptionKey>, Exclude<RunLoadOptionKey, keyof LoadOptions>] extends [never, never] ? true : never = true;
void loadKeysComplete;

/** What only the CLI does around a run (loops, output), typed as the CLI parses its flags. */
export interface ShellLoadOptions {
  sweep?: boolean;
  sweepSteps?: number;
  findCapacity?: boolean;
  /** Relative width of the final interval: `'5%'` or `'0.05'`. */
  tolerance?: string;
  budget?: string;
  repeat?: number;
  /** A/B in one run (ab-plan.ts): the second server's base URL, the block, its request count, the assignment. */
  ab?: string;
  abBlock?: string;
  abBlockRequests?: number;
  abAssign?: 'blocks' | 'random';
  report?: string;
  json?: boolean;
  quiet?: boolean;
  /** The connection, already validated from the flags (`--header 'Name: env:VAR'` reads the environment). */
  connection?: ConnectionOptions;
}

export type LoadOptionName = Exclude<keyof LoadOptions | keyof ShellLoadOptions, 'signal' | 'connection'>;

/** How an entry point names itself and its options in messages. */
export interface LoadNames {
  /** `iari load`, `runLoad`. */
  who: string;
  name: (option: LoadOptionName) => string;
  connection: ConnectionNames;
}

/** runLoad names its options as they are spelled in LoadOptions. */
export const RUN_LOAD_NAMES: LoadNames = {
  who: 'runLoad',
  name: (option) => option,
  connection: { who: 'runLoad', header: 'headers', caFile: 'caFile', insecure: 'insecure' },
};

export const loadUsage = (names: LoadNames, message: string, hint?: string): HarnessError =>
  new HarnessError(HarnessErrorCode.USAGE, `${names.who}: ${message}`, hint === undefined ? {} : { hint });

export type { ChoiceOption, NumberOption, NumberRule } from './load-flag-table.ts';
export { numberMessage } from './load-flag-table.ts';

/** Every numeric option and its range, from the flag table: the CLI parses the flag's text, then validateLoadOptions checks the number. */
export const NUMBER_RULES = numberRulesOf(LOAD_FLAGS) as Record<NumberOption, NumberRule>;

/** Every option with a closed set of values and the set, from the flag table (the scenario schema's enums too). */
export const CHOICES = choicesOf(LOAD_FLAGS) as Record<ChoiceOption, readonly string[]>;

/** A choice option as JSON Schema. */
export const choiceSchema = (option: ChoiceOption, description?: string): Record<string, unknown> => ({ enum: [...CHOICES[option]], ...(description === undefined ? {} : { description }) });

/** An option with a closed set of values (the flag table's choices): one of them, or a usage error naming the option and the set. */
export function checkChoice<O extends ChoiceOption>(names: LoadNames, option: O, value: unknown): NonNullable<(LoadOptions & ShellLoadOptions)[O]> {
  if (!CHOICES[option].includes(value as string)) throw loadUsage(names, choiceMessage(names.name(option), CHOICES[option], String(value)));
  return value as NonNullable<(LoadOptions & ShellLoadOptions)[O]>;
}

/** A numeric option: a finite number (an integer where the rule says so) in its range. */
export function checkNumber(names: LoadNames, option: NumberOption, value: unknown): number {
  const rule: NumberRule = NUMBER_RULES[option];
  if (typeof value !== 'number') throw loadUsage(names, `${names.name(option)} must be a number, got ${typeof value === 'string' ? `the text ${JSON.stringify(value)}` : typeof value}`);
  if (!withinRule(rule, value)) throw loadUsage(names, numberMessage(names.name(option), rule, String(value)));
  return value;
}

/** A duration option (`'10s'`, `'1m30s'`) in seconds, in its range (src/duration.ts, the one parser). */
export function checkDurationS(names: LoadNames, option: LoadOptionName, value: unknown, minS: number, maxS: number): number {
  return checkDuration(names.who, names.name(option), value, minS, maxS) / 1000;
}

/** A text option given as something else (a program passing `turns: 4`) is refused, never stringified. */
export function checkText(names: LoadNames, option: LoadOptionName, value: unknown): string {
  if (typeof value !== 'string') throw loadUsage(names, `${names.name(option)} must be a string, got ${typeof value}`);
  return value;
}

/**
 * The workload readers (workloads/: dataset, prompts, trace, tools) name the file they read by its
 * `iari load` flag (`--trace FILE line 3: …`). An entry point names it as its caller wrote it:
 * `runLoad: trace FILE line 3: …`, never `iari load: cannot read --trace …` in a program.
 */
export function renamed<T>(names: LoadNames, option: LoadOptionName, flag: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw renamedError(names, option, flag, error);
  }
}

export async function renamedAsync<T>(names: LoadNames, option: LoadOptionName, flag: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw renamedError(names, option, flag, error);
  }
}

function renamedError(names: LoadNames, option: LoadOptionName, flag: string, error: unknown): unknown {
  if (!(error instanceof HarnessError)) return error;
  const body = error.message.replace(/^iari load: /, '').replace(flag, names.name(option));
  const copy = new HarnessError(error.code, `${names.who}: ${body}`, { ...(error.hint === undefined ? {} : { hint: error.hint }), cause: error });
  return copy;
}
