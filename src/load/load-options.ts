import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { durationOption } from '../duration.ts';
import { checkToken, readToken } from '../client/token.ts';
import { normalizeBaseUrl } from '../client/base-url.ts';
import { connectionFlagSpec, connectionFromFlags, type ConnectionOptions } from '../client/connection-options.ts';

/** Kept here too for existing importers; it lives with the other connection options. */
export { isLoopbackHost } from '../client/connection-options.ts';
import type { ShardInfo } from './load-result.ts';
import { builtinPrompts, readPromptsFile, type ChatMessage } from './prompts.ts';
import type { LoadSettings, ModeConfig } from './run-load.ts';
import { parseSlos } from './slo.ts';
import { workloadFlagSpec, workloadFromFlags, type WorkloadPlan } from './workload-options.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './engine.ts';
import { DEFAULT_BUDGET_S, DEFAULT_TOLERANCE } from './capacity-search.ts';

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
  repeat: { type: 'string' },
  seed: { type: 'string' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  ...connectionFlagSpec,
  ...workloadFlagSpec,
} as const;

export interface LoadPlan extends LoadSettings {
  /** Normalised /v1 base URL, or null for the bundled mock. */
  baseUrl: string | null;
  /** Bearer token for an external target (the bundled mock supplies its own). */
  token: string | null;
  model: string | null;
  sweep: boolean;
  sweepSteps: number;
  /** --find-capacity: tolerance (relative width of the final interval) and total budget, s; null when off. */
  findCapacity: { tolerance: number; budgetS: number } | null;
  /** --repeat N: run the configuration N times (1: once). */
  repeat: number;
  report: string | undefined;
  json: boolean;
  quiet: boolean;
  /** TLS trust, headers (proxies come from the environment). */
  connection: ConnectionOptions;
  /** Token lengths, dataset (read later by resolveWorkload), vendor body fields. */
  workloadPlan: WorkloadPlan;
}

const usage = (message: string, hint?: string): HarnessError =>
  new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`, hint === undefined ? {} : { hint });

/** A duration flag in seconds (the one parser, src/duration.ts: "10s", "500ms", "2m", "1h", "1m30s", "1.5"). */
export function parseDuration(flag: string, value: string, min: number, max: number): number {
  return (durationOption('iari load', flag, value, min, max) as number) / 1000;
}

function parseNumber(flag: string, value: string, min: number, max: number, integer: boolean): number {
  const ok = integer ? /^\d+$/.test(value.trim()) : /^\d+(\.\d+)?$/.test(value.trim());
  const n = Number(value);
  if (!ok || n < min || n > max) throw usage(`--${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${value}"`);
  return n;
}


/** --find-capacity, --tolerance (5% or 0.05; default 5%) and --budget (default 10m). */
function capacityFromFlags(v: Values, other: { sweep: boolean; repeat: boolean; shard: boolean; requests: boolean; slos: number }): LoadPlan['findCapacity'] {
  if (v['find-capacity'] !== true) {
    if (v.tolerance !== undefined || v.budget !== undefined) throw usage('--tolerance and --budget need --find-capacity');
    return null;
  }
  if (other.slos === 0) throw usage('--find-capacity searches for the highest level meeting every SLO: give at least one --slo', "e.g. --slo 'ttft.p95<500ms'");
  if (other.sweep || other.repeat || other.shard || other.requests) throw usage('--find-capacity chooses its own levels, each --duration long: it cannot be combined with --sweep, --repeat, --shard or --requests');
  let tolerance = DEFAULT_TOLERANCE;
  if (v.tolerance !== undefined) {
    const t = v.tolerance.trim();
    const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(t);
    tolerance = m === null ? NaN : Number(m[1]) / (m[2] === '%' ? 100 : 1);
    if (!(tolerance >= 0.001 && tolerance <= 0.5)) throw usage(`--tolerance must be from 0.1% to 50% (or 0.001 to 0.5), got "${v.tolerance}"`);
  }
  const budgetS = v.budget === undefined ? DEFAULT_BUDGET_S : parseDuration('budget', v.budget, 1, 24 * 3600);
  return { tolerance, budgetS };
}

type Values = { [K in keyof typeof loadFlagSpec]?: (typeof loadFlagSpec)[K] extends { multiple: true } ? string[] : (typeof loadFlagSpec)[K]['type'] extends 'boolean' ? boolean : string };

/**
 * Validates every flag before any traffic: a bad value is a usage error (exit 2). The library's
 * `runLoad` passes its token in `given` (never through the environment); the CLI reads it from
 * --token-env / --token-file.
 */
export function planFromFlags(v: Values, given: { token?: string; who?: string; connection?: ConnectionOptions } = {}): LoadPlan {
  const who = given.who ?? 'iari load';
  const sloExprs = v.slo ?? [];
  // The library validates its typed connection options itself (connectionFromOptions), with the same rules.
  const connection = given.connection ?? connectionFromFlags('load', v);
  const workloadPlan = workloadFromFlags(v);
  if (v['base-url'] === undefined && (connection.caFile !== null || connection.insecure || connection.headers.length > 0)) {
    throw usage('--ca-file, --insecure and --header apply to a server given with --base-url (the bundled mock is plain http)');
  }
  const slos = parseSlos(sloExprs);
  let baseUrl: string | null = null;
  let token: string | null = null;
  if (v['base-url'] !== undefined) {
    baseUrl = normalizeBaseUrl(v['base-url'], who).v1;
    token = 'token' in given ? checkToken(who, given.token) : readToken(who, { tokenEnv: v['token-env'], tokenFile: v['token-file'] });
  } else if (v['token-env'] !== undefined || v['token-file'] !== undefined) {
    readToken('iari load', { tokenEnv: v['token-env'], tokenFile: v['token-file'] });
  }
  const traced = workloadPlan.trace !== undefined;
  if (traced && (v.rate !== undefined || v.concurrency !== undefined || v.arrival !== undefined || v.burstiness !== undefined || v.sweep === true || v.ramp !== undefined)) {
    throw usage('--trace replays the arrivals of the trace: it takes no --rate, --concurrency, --arrival, --burstiness, --ramp or --sweep (scale it with --trace-speed)');
  }
  if (traced && v.engine !== undefined && v.engine !== 'undici') throw usage('a trace replays on the open loop, which always uses the undici engine');
  if (v.concurrency !== undefined && v.rate !== undefined) throw usage('give --concurrency (closed loop) or --rate (open loop), not both');
  if (v.arrival !== undefined && v.rate === undefined) throw usage('--arrival needs --rate');
  const arrival = v.arrival ?? 'constant';
  if (arrival !== 'constant' && arrival !== 'poisson' && arrival !== 'gamma') throw usage(`--arrival must be constant, poisson or gamma, got "${arrival}"`);
  if (v['max-concurrency'] !== undefined && v.rate === undefined && !traced) throw usage('--max-concurrency caps an open loop: it needs --rate (a closed loop takes --concurrency)');
  const maxConcurrency = v['max-concurrency'] === undefined ? undefined : parseNumber('max-concurrency', v['max-concurrency'], 1, 100_000, true);
  if (v.burstiness !== undefined && arrival !== 'gamma') throw usage('--burstiness needs --arrival gamma');
  const burstiness = arrival === 'gamma' ? (v.burstiness === undefined ? 1 : parseNumber('burstiness', v.burstiness, 0.01, 100, false)) : undefined;
  const engine = v.engine ?? 'autocannon';
  if (engine !== 'autocannon' && engine !== 'undici') throw usage(`--engine must be autocannon or undici, got "${engine}"`);
  if (v.engine !== undefined && v.rate !== undefined && engine !== 'undici') throw usage('open loop (--rate) always uses the undici engine');
  if (v.stream === true && v['no-stream'] === true) throw usage('give --stream or --no-stream, not both');
  const stream = v['no-stream'] !== true;
  if (v.ramp !== undefined && v.rate === undefined) throw usage('--ramp raises an open loop to its rate: it needs --rate');
  if (v['ramp-shape'] !== undefined && v.ramp === undefined) throw usage('--ramp-shape needs --ramp (the time the rate takes to rise)');
  const rampShape = v['ramp-shape'] ?? 'linear';
  if (rampShape !== 'linear' && rampShape !== 'exponential') throw usage(`--ramp-shape must be linear or exponential, got "${rampShape}"`);
  const ramp = v.ramp === undefined ? undefined : { durationS: parseDuration('ramp', v.ramp, 0.001, 3600), shape: rampShape as 'linear' | 'exponential' };
  const mode: ModeConfig = traced
    ? { kind: 'open', rate: 0, arrival: 'trace', ...(maxConcurrency === undefined ? {} : { maxConcurrency }) }
    : v.rate !== undefined
      ? { kind: 'open', rate: parseNumber('rate', v.rate, 0.01, 100_000, false), arrival, ...(burstiness === undefined ? {} : { burstiness }), ...(maxConcurrency === undefined ? {} : { maxConcurrency }), ...(ramp === undefined ? {} : { ramp }) }
      : { kind: 'closed', concurrency: v.concurrency === undefined ? 8 : parseNumber('concurrency', v.concurrency, 1, 10_000, true), engine };
  const requests = v.requests === undefined ? null : parseNumber('requests', v.requests, 1, 10_000_000, true);
  // A trace lasts as long as its (windowed) replay unless --duration or --requests cut it (run-load.ts).
  const durationS = v.duration !== undefined ? parseDuration('duration', v.duration, 0.1, 3600) : requests === null && !traced ? 10 : null;
  const warmupS = v.warmup === undefined ? 0 : parseDuration('warmup', v.warmup, 0, 600);
  const timeoutMs = (v.timeout === undefined ? 30 : parseDuration('timeout', v.timeout, 0.1, 600)) * 1000;
  const requestTimeoutMs = (v['request-timeout'] === undefined ? DEFAULT_REQUEST_TIMEOUT_MS / 1000 : parseDuration('request-timeout', v['request-timeout'], 0.1, 3600)) * 1000;
  const maxTokens = v['max-tokens'] === undefined ? 64 : parseNumber('max-tokens', v['max-tokens'], 1, 100_000, true);
  const seed = v.seed === undefined ? 1 : parseNumber('seed', v.seed, 0, 2 ** 31 - 1, true);
  let shard: ShardInfo | null = null;
  if (v.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(v.shard.trim());
    if (m === null) throw usage(`--shard must be i/n (0 <= i < n), got "${v.shard}"`);
    const index = Number(m[1]);
    const count = Number(m[2]);
    if (count < 1 || count > 10_000 || index >= count) throw usage(`--shard must be i/n with 0 <= i < n <= 10000, got "${v.shard}"`);
    shard = { index, count };
  }
  const repeat = v.repeat === undefined ? 1 : parseNumber('repeat', v.repeat, 2, 20, true);
  if (v.repeat !== undefined && (v.sweep === true || shard !== null)) throw usage('--repeat runs one level several times; it cannot be combined with --sweep or --shard');
  const sweepSteps = v['sweep-steps'] === undefined ? 6 : parseNumber('sweep-steps', v['sweep-steps'], 1, 20, true);
  if (v['sweep-steps'] !== undefined && v.sweep !== true) throw usage('--sweep-steps needs --sweep');
  if (v.sweep === true && shard !== null) throw usage('--sweep cannot be sharded (run shards at fixed levels and merge them)');
  if (v.sweep === true && durationS === null) throw usage('--sweep needs --duration (the length of each step)');
  const findCapacity = capacityFromFlags(v, { sweep: v.sweep === true, repeat: v.repeat !== undefined, shard: shard !== null, requests: v.requests !== undefined, slos: sloExprs.length });
  let prompts: ChatMessage[][] = builtinPrompts.map((p) => [...p]);
  let promptsSource: LoadPlan['promptsSource'] = 'builtin';
  if (v.prompts !== undefined) {
    prompts = readPromptsFile(v.prompts);
    promptsSource = { file: v.prompts, count: prompts.length };
  }
  return {
    baseUrl,
    token,
    model: v.model ?? null,
    mode,
    durationS,
    requests,
    warmupS,
    maxTokens,
    stream,
    prompts,
    promptsSource,
    seed,
    timeoutMs,
    requestTimeoutMs,
    slos,
    sloExprs,
    sweep: v.sweep === true,
    sweepSteps,
    findCapacity,
    repeat,
    shard,
    report: v.report,
    json: v.json === true,
    quiet: v.quiet === true,
    connection,
    workloadPlan,
  };
}
