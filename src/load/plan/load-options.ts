// The one validator of a load run's options: `iari load` parses its flags into LoadOptions
// (src/cli/load-flags.ts) and `runLoad` takes them as given; both call validateLoadOptions, so
// they accept and refuse alike, with the same defaults and deadlines, before any traffic.
import { checkToken } from '../../client/token.ts';
import { normalizeBaseUrl } from '../../client/base-url.ts';
import { connectionFromOptions, type ConnectionOptions } from '../../client/connection-options.ts';
import type { ShardInfo } from '../results/load-result.ts';
import { builtinPrompts, readPromptsFile, type ChatMessage } from '../workloads/prompts.ts';
import type { LoadSettings, ModeConfig } from '../run-load.ts';
import { parseSlos } from '../results/slo.ts';
import { validateWorkload, type WorkloadPlan } from './workload-options.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../executors/engine.ts';
import { DEFAULT_BUDGET_S, DEFAULT_TOLERANCE } from '../search/capacity-search.ts';
import type { ConnectionReuse } from '../executors/connection-reuse.ts';
import { CANCEL_AFTER_FORMS, needsStream, parseCancelAfter, type CancelPlan } from '../executors/cancellation.ts';
import { AB_DEFAULT_DURATION_S, validateAb, type AbPlan } from './ab-plan.ts';
import { checkChoice, checkDurationS, checkNumber, checkText, loadUsage, renamed, RUN_LOAD_NAMES, type LoadNames, type LoadOptions, type ShellLoadOptions } from './load-option-names.ts';
import type { AnySection } from '../../sections/section-contract.ts';

export type { LoadNames, LoadOptions, ShellLoadOptions } from './load-option-names.ts';

export interface LoadPlan extends LoadSettings {
  /** Normalised /v1 base URL, or null for the bundled mock. */
  baseUrl: string | null;
  /** Bearer token for an external target (the bundled mock supplies its own). */
  token: string | null;
  model: string | null;
  /** A/B in one run against a second server (ab-plan.ts); null: one server. */
  ab: AbPlan | null;
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

/** findCapacity, tolerance (5% or 0.05; default 5%) and budget (default 10m). */
function capacityFrom(o: ShellLoadOptions, names: LoadNames, other: { sweep: boolean; repeat: boolean; shard: boolean; requests: boolean; slos: number }): LoadPlan['findCapacity'] {
  const n = names.name;
  if (o.findCapacity !== true) {
    if (o.tolerance !== undefined || o.budget !== undefined) throw loadUsage(names, `${n('tolerance')} and ${n('budget')} need ${n('findCapacity')}`);
    return null;
  }
  if (other.slos === 0) throw loadUsage(names, `${n('findCapacity')} searches for the highest level meeting every SLO: give at least one ${n('slo')}`, `e.g. ${n('slo')} 'ttft.p95<500ms'`);
  if (other.sweep || other.repeat || other.shard || other.requests) throw loadUsage(names, `${n('findCapacity')} chooses its own levels, each ${n('duration')} long: it cannot be combined with ${n('sweep')}, ${n('repeat')}, ${n('shard')} or ${n('requests')}`);
  let tolerance = DEFAULT_TOLERANCE;
  if (o.tolerance !== undefined) {
    const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(checkText(names, 'tolerance', o.tolerance).trim());
    tolerance = m === null ? NaN : Number(m[1]) / (m[2] === '%' ? 100 : 1);
    if (!(tolerance >= 0.001 && tolerance <= 0.5)) throw loadUsage(names, `${n('tolerance')} must be from 0.1% to 50% (or 0.001 to 0.5), got "${o.tolerance}"`);
  }
  const budgetS = o.budget === undefined ? DEFAULT_BUDGET_S : checkDurationS(names, 'budget', o.budget, 1, 24 * 3600);
  return { tolerance, budgetS };
}

/**
 * --cancel-rate P and --cancel-after: the cut needs the undici engine (autocannon cannot abort one
 * request of its connection: without --engine the closed loop runs on undici and says so), and a
 * point counted in tokens needs a stream.
 */
function cancellationFrom(o: LoadOptions, names: LoadNames, stream: boolean): CancelPlan | undefined {
  const n = names.name;
  if (o.cancelRate === undefined) {
    if (o.cancelAfter !== undefined) throw loadUsage(names, `${n('cancelAfter')} needs ${n('cancelRate')} (the share of requests the client cuts)`);
    return undefined;
  }
  const rate = checkNumber(names, 'cancelRate', o.cancelRate);
  const text = o.cancelAfter === undefined ? 'decode' : checkText(names, 'cancelAfter', o.cancelAfter).trim();
  const after = parseCancelAfter(text);
  if (after === null) throw loadUsage(names, `${n('cancelAfter')} must be ${CANCEL_AFTER_FORMS}, got "${text}"`);
  if (o.engine === 'autocannon') throw loadUsage(names, `${n('cancelRate')} cuts requests in the middle of their answer, which only the undici engine can do: give ${n('engine')} undici (or leave ${n('engine')} out)`);
  if (needsStream(after) && !stream) throw loadUsage(names, `${n('cancelAfter')} ${text} counts tokens as they stream: not with whole (non-streamed) answers; give a duration (e.g. 500ms)`);
  return { rate, after, text };
}

/** What only `iari load` hands the validator: its loops and output, and its token source (--token-env / --token-file), given when it has one to read. */
export interface LoadShell extends ShellLoadOptions {
  readToken?: () => string;
  /** The result sections whose SLO metrics --slo may name (default: iari's own and every registered API's). */
  sections?: readonly AnySection[];
  /** The CLI: records stream to requests.ndjson in the run directory, so a run may last past an hour. */
  recordsToDisk?: boolean;
}

/** In memory a record costs about 361 B (1 h at 100 req/s: 130 MB); past this a run needs its records on disk. */
export const IN_MEMORY_MAX_S = 3600;
/** --duration's bound: a day of per-second slices (load.json's timeslices) and of requests.ndjson at 100 req/s (docs/load.md, Soak runs). */
export const MAX_DURATION_S = 24 * 3600;

/**
 * Validates every option before any traffic, naming them as `names` does: a bad value is a usage
 * error (exit 2). The library gives `token` in the options and never reaches the environment; only
 * the CLI passes `shell`.
 */
export function validateLoadOptions(o: LoadOptions, names: LoadNames = RUN_LOAD_NAMES, shell: LoadShell = {}): LoadPlan {
  const n = names.name;
  const usage = (message: string): ReturnType<typeof loadUsage> => loadUsage(names, message);
  if (o.slo !== undefined && (!Array.isArray(o.slo) || !o.slo.every((e) => typeof e === 'string'))) throw usage(`${n('slo')} must be a list of thresholds such as 'ttft.p95<800ms'`);
  const sloExprs = [...(o.slo ?? [])];
  const connection = shell.connection ?? connectionFromOptions(names.connection, { caFile: o.caFile, insecure: o.insecure, headers: o.headers });
  const workloadPlan = validateWorkload(o, names);
  if (o.baseUrl === undefined && (connection.caFile !== null || connection.insecure || connection.headers.length > 0)) {
    throw usage(`${n('caFile')}, ${n('insecure')} and ${n('headers')} apply to a server given with ${n('baseUrl')} (the bundled mock is plain http)`);
  }
  const slos = parseSlos(sloExprs, shell.sections);
  // A tool-call SLO judges the calls of requests that declare tools: without them it could only end
  // in "no data" after the traffic, so it is refused before any.
  const toolSlo = slos.find((s) => s.metric === 'tool_calls');
  if (toolSlo !== undefined && workloadPlan.spec?.tools === undefined) throw usage(`${n('slo')} '${toolSlo.expr}' judges tool calls: it needs ${n('tools')} (requests that declare tools)`);
  // An embeddings answer arrives whole and generates no tokens: an SLO on a token timing could
  // only end in "no data" after the traffic, so it is refused before any.
  const api = o.api === undefined ? undefined : checkText(names, 'api', o.api).trim();
  if (api !== undefined && !/^[a-z][a-z0-9-]*$/.test(api)) throw usage(`${n('api')} must name an API (chat-completions, responses, embeddings), got "${api}"`);
  if (api !== undefined && api !== 'embeddings' && workloadPlan.spec?.embeddings !== undefined) throw usage(`${n('embeddingsBatch')} sends embeddings requests: not with ${n('api')} ${api}`);
  const embeddings = workloadPlan.spec?.embeddings !== undefined || api === 'embeddings';
  const tokenSlo = embeddings ? slos.find((s) => ['ttft', 'ttfo', 'itl', 'tpot', 'service_ttft', 'output_tps'].includes(s.metric) || (s.metric === 'throughput' && s.stat === 'tokens')) : undefined;
  if (tokenSlo !== undefined) throw usage(`${n('slo')} '${tokenSlo.expr}' does not apply to ${n('embeddingsBatch')}: an embeddings answer arrives whole with no output tokens (use e2e, ttfb, errors, throughput.rps or goodput)`);
  const embeddingsSlo = embeddings ? undefined : slos.find((s) => s.metric === 'embeddings');
  if (embeddingsSlo !== undefined) throw usage(`${n('slo')} '${embeddingsSlo.expr}' judges embeddings throughput: it needs ${n('embeddingsBatch')} (the embeddings workload)`);
  if (embeddings && o.stream === true) throw usage(`${n('embeddingsBatch')} sends whole requests: POST /v1/embeddings does not stream`);
  let baseUrl: string | null = null;
  let token: string | null = null;
  if (o.baseUrl !== undefined) {
    baseUrl = normalizeBaseUrl(checkText(names, 'baseUrl', o.baseUrl), names.who).v1;
    token = shell.readToken !== undefined ? shell.readToken() : checkToken(names.who, o.token);
  } else {
    shell.readToken?.();
  }
  const traced = workloadPlan.trace !== undefined;
  if (traced && (o.rate !== undefined || o.concurrency !== undefined || o.arrival !== undefined || o.burstiness !== undefined || shell.sweep === true || o.ramp !== undefined)) {
    throw usage(`${n('trace')} replays the arrivals of the trace: it takes no ${n('rate')}, ${n('concurrency')}, ${n('arrival')}, ${n('burstiness')}, ${n('ramp')} or ${n('sweep')} (scale it with ${n('traceSpeed')})`);
  }
  if (traced && o.engine !== undefined && o.engine !== 'undici') throw usage('a trace replays on the open loop, which always uses the undici engine');
  if (o.concurrency !== undefined && o.rate !== undefined) throw usage(`give ${n('concurrency')} (closed loop) or ${n('rate')} (open loop), not both`);
  if (o.arrival !== undefined && o.rate === undefined) throw usage(`${n('arrival')} needs ${n('rate')}`);
  const arrival = checkChoice(names, 'arrival', o.arrival ?? 'constant');
  if (o.maxConcurrency !== undefined && o.rate === undefined && !traced) throw usage(`${n('maxConcurrency')} caps an open loop: it needs ${n('rate')} (a closed loop takes ${n('concurrency')})`);
  const maxConcurrency = o.maxConcurrency === undefined ? undefined : checkNumber(names, 'maxConcurrency', o.maxConcurrency);
  if (o.burstiness !== undefined && arrival !== 'gamma') throw usage(`${n('burstiness')} needs ${n('arrival')} gamma`);
  const burstiness = arrival === 'gamma' ? (o.burstiness === undefined ? 1 : checkNumber(names, 'burstiness', o.burstiness)) : undefined;
  const engine = checkChoice(names, 'engine', o.engine ?? 'autocannon');
  if (o.engine !== undefined && o.rate !== undefined && engine !== 'undici') throw usage(`open loop (${n('rate')}) always uses the undici engine`);
  const connectionReuse = checkChoice(names, 'connectionReuse', o.connectionReuse ?? 'reuse');
  if (o.stream !== undefined && typeof o.stream !== 'boolean') throw usage(`${n('stream')} must be true or false, got ${String(o.stream)}`);
  const stream = o.stream !== false && !embeddings;
  if (o.ramp !== undefined && o.rate === undefined) throw usage(`${n('ramp')} raises an open loop to its rate: it needs ${n('rate')}`);
  if (o.rampShape !== undefined && o.ramp === undefined) throw usage(`${n('rampShape')} needs ${n('ramp')} (the time the rate takes to rise)`);
  const rampShape = checkChoice(names, 'rampShape', o.rampShape ?? 'linear');
  const ramp = o.ramp === undefined ? undefined : { durationS: checkDurationS(names, 'ramp', o.ramp, 0.001, 3600), shape: rampShape };
  const cancellation = cancellationFrom(o, names, stream);
  const mode: ModeConfig = traced
    ? { kind: 'open', rate: 0, arrival: 'trace', ...(maxConcurrency === undefined ? {} : { maxConcurrency }) }
    : o.rate !== undefined
      ? { kind: 'open', rate: checkNumber(names, 'rate', o.rate), arrival, ...(burstiness === undefined ? {} : { burstiness }), ...(maxConcurrency === undefined ? {} : { maxConcurrency }), ...(ramp === undefined ? {} : { ramp }) }
      : { kind: 'closed', concurrency: o.concurrency === undefined ? 8 : checkNumber(names, 'concurrency', o.concurrency), engine };
  const requests = o.requests === undefined ? null : checkNumber(names, 'requests', o.requests);
  // A trace lasts as long as its (windowed) replay unless a duration or a request count cuts it (run-load.ts).
  const durationS = o.duration !== undefined ? checkDurationS(names, 'duration', o.duration, 0.1, MAX_DURATION_S) : shell.ab !== undefined ? AB_DEFAULT_DURATION_S : requests === null && !traced ? 10 : null;
  const warmupS = o.warmup === undefined ? 0 : checkDurationS(names, 'warmup', o.warmup, 0, 600);
  // A ramp longer than the measured run would end before the rate is reached: refused, since the
  // run would never measure the level asked for.
  if (ramp !== undefined && durationS !== null && ramp.durationS > warmupS + durationS) throw usage(`${n('ramp')} (${ramp.durationS} s) is longer than the run (${warmupS > 0 ? `${n('warmup')} ${warmupS} s + ` : ''}${n('duration')} ${durationS} s): the rate would never reach ${n('rate')}; shorten ${n('ramp')} or lengthen ${n('duration')}`);
  const timeoutMs = (o.timeout === undefined ? 30 : checkDurationS(names, 'timeout', o.timeout, 0.1, 600)) * 1000;
  const requestTimeoutMs = (o.requestTimeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS / 1000 : checkDurationS(names, 'requestTimeout', o.requestTimeout, 0.1, 3600)) * 1000;
  const maxTokens = o.maxTokens === undefined ? 64 : checkNumber(names, 'maxTokens', o.maxTokens);
  const seed = o.seed === undefined ? 1 : checkNumber(names, 'seed', o.seed);
  let shard: ShardInfo | null = null;
  if (o.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(checkText(names, 'shard', o.shard).trim());
    if (m === null) throw usage(`${n('shard')} must be i/n (0 <= i < n), got "${o.shard}"`);
    const index = Number(m[1]);
    const count = Number(m[2]);
    if (count < 1 || count > 10_000 || index >= count) throw usage(`${n('shard')} must be i/n with 0 <= i < n <= 10000, got "${o.shard}"`);
    shard = { index, count };
  }
  const repeat = shell.repeat === undefined ? 1 : checkNumber(names, 'repeat', shell.repeat);
  if (shell.repeat !== undefined && (shell.sweep === true || shard !== null)) throw usage(`${n('repeat')} runs one level several times; it cannot be combined with ${n('sweep')} or ${n('shard')}`);
  const sweepSteps = shell.sweepSteps === undefined ? 6 : checkNumber(names, 'sweepSteps', shell.sweepSteps);
  if (shell.sweepSteps !== undefined && shell.sweep !== true) throw usage(`${n('sweepSteps')} needs ${n('sweep')}`);
  if (shell.sweep === true && shard !== null) throw usage(`${n('sweep')} cannot be sharded (run shards at fixed levels and merge them)`);
  if (shell.sweep === true && durationS === null) throw usage(`${n('sweep')} needs ${n('duration')} (the length of each step)`);
  // Issue 43: a soak run (over an hour) is one plain run whose records stream to requests.ndjson;
  // the library and the searches keep records in memory, so they stay within the hour.
  if (durationS !== null && durationS > IN_MEMORY_MAX_S) {
    if (shell.recordsToDisk !== true) throw usage(`${n('duration')} over 1h keeps every request record in memory here (about 361 B each); runs up to 24h are iari load's, whose records stream to requests.ndjson`);
    if (shell.sweep === true || shell.findCapacity === true || shell.ab !== undefined || shell.repeat !== undefined) throw usage(`${n('duration')} over 1h is a single run (records stream to requests.ndjson): not with ${n('sweep')}, ${n('findCapacity')}, ${n('ab')} or ${n('repeat')}`);
  }
  const findCapacity = capacityFrom(shell, names, { sweep: shell.sweep === true, repeat: shell.repeat !== undefined, shard: shard !== null, requests: o.requests !== undefined, slos: sloExprs.length });
  const ab = validateAb(shell, names, { baseUrl, durationS: o.duration === undefined ? null : durationS, requests: o.requests !== undefined, shard: shard !== null, traced, engine: o.engine });
  let prompts: ChatMessage[][] = builtinPrompts.map((p) => [...p]);
  let promptsSource: LoadPlan['promptsSource'] = 'builtin';
  if (o.prompts !== undefined) {
    const file = checkText(names, 'prompts', o.prompts);
    prompts = renamed(names, 'prompts', '--prompts', () => readPromptsFile(file));
    promptsSource = { file, count: prompts.length };
  }
  const model = o.model === undefined ? null : checkText(names, 'model', o.model);
  return {
    baseUrl,
    token,
    model,
    ab,
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
    connectionReuse: connectionReuse as ConnectionReuse,
    ...(cancellation === undefined ? {} : { cancellation }),
    ...(api === undefined ? {} : { api }),
    slos,
    sloExprs,
    sweep: shell.sweep === true,
    sweepSteps,
    findCapacity,
    repeat,
    shard,
    report: shell.report,
    json: shell.json === true,
    quiet: shell.quiet === true,
    connection,
    workloadPlan,
  };
}
