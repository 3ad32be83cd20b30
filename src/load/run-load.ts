import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { arrivalTimes, scheduleWindows, type ScheduleOptions } from './executors/arrivals.ts';
import { Checker, checkWorkerCount } from './measure/checker.ts';
import { Collector } from './results/collector.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, END_GRACE_MS, now, preWindowBudgetMs, type EngineHooks, type EngineLimits, type EngineTarget } from './executors/engine.ts';
import { LOAD_RESULT_SCHEMA, type ConnectionMeta, type LoadMode, type Priming, type Ramp, type WorkloadMeta, type LoadResult, type RequestRecord, type RunMeta, type ShardInfo } from './results/load-result.ts';
import { RecordList, type RecordLog } from './results/record-log.ts';
import type { ChatMessage } from './workloads/prompts.ts';
import { syntheticVocabulary, type Workload, type WorkloadSpec } from './workloads/workload.ts';
import { serverWordCounts, type WordCounts } from './workloads/server-tokenize.ts';
import { traceTimes } from './workloads/trace-workload.ts';
import { apiOf, requestSource, type RequestSource } from './workloads/request-source.ts';
import { EXECUTORS, type ExecutorKind } from './executors/executor-registry.ts';
import { declaresTools, judge, type ToolsSpec } from './workloads/tool-calls.ts';
import { defaultProtocols, type ProtocolList } from '../protocols/registry.ts';
import type { TraceEntry } from './workloads/trace.ts';
import type { RequestTiming } from './measure/request-timer.ts';
import { buildResult } from './results/result-builder.ts';
import { loadSections } from './results/load-sections.ts';
import type { Slo } from './results/slo.ts';
import { countTokens } from './workloads/token-count.ts';
import { packageVersion } from '../package-root.ts';
import { Pool } from 'undici';
import { displayUrl, noConnectionOptions, proxyFor, type ConnectionOptions } from '../client/connection-options.ts';
import { dispatcherFor, trustFor } from '../client/dispatcher.ts';
import { NO_TOKEN } from '../client/token.ts';
import { idleSweep, sendOne, type InFlight } from './executors/undici-engine.ts';
import type { ConnectionReuse } from './executors/connection-reuse.ts';
import { cancelPointFor, type CancelPlan } from './executors/cancellation.ts';
import type { ClientSpan } from '../server-metrics/cancel-release.ts';
import { openServerMetrics, type ServerMetricsOptions } from '../server-metrics/session.ts';
import { primingRecord } from './priming-record.ts';
import { ConnectionWatch } from '../client/connection-watch.ts';

export type ModeConfig =
  | { kind: 'closed'; concurrency: number; engine: 'autocannon' | 'undici' }
  | { kind: 'open'; rate: number; arrival: 'constant' | 'poisson' | 'gamma' | 'trace'; burstiness?: number; maxConcurrency?: number; ramp?: Ramp };

/** The settings `iari load` takes from its flags and hands to a run unchanged. */
export interface LoadSettings {
  mode: ModeConfig;
  /** Measured seconds after warmup; null when bounded by `requests` (then at most maxDurationS). */
  durationS: number | null;
  requests: number | null;
  warmupS: number;
  maxTokens: number;
  stream: boolean;
  prompts: readonly ChatMessage[][];
  promptsSource: RunMeta['config']['prompts'];
  seed: number;
  timeoutMs: number;
  /** Total deadline of one request (--request-timeout; default DEFAULT_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  slos: readonly Slo[];
  sloExprs: readonly string[];
  shard: ShardInfo | null;
  /** Token-length workload; absent: `prompts` cycled with `maxTokens` (the default). */
  workload?: WorkloadSpec;
  /** --connection-reuse: kept-alive connections (`reuse`, the default) or a new connection per request (`never`). */
  connectionReuse?: ConnectionReuse;
  /** --server-metrics: read the server's /metrics during the run (src/server-metrics/). */
  serverMetrics?: ServerMetricsOptions;
  /** --cancel-rate / --cancel-after: the client cuts a seeded share of the requests (executors/cancellation.ts; undici engines only). */
  cancellation?: CancelPlan;
  /** The API the requests go to (a protocol's name); absent: the one the workload needs, else the protocol list's first. */
  api?: string;
}

export interface LoadConfig extends LoadSettings {
  runId: string;
  /** Normalised base URL ending in /v1. */
  baseUrl: string;
  token: string;
  model: string;
  target: 'bundled-mock' | 'external';
  /** TLS trust and extra headers for the target (proxies come from the environment). */
  connection?: ConnectionOptions;
  /** Send one unrecorded request first, so lazy compilation and connection setup stay out of the stamps (default true). */
  prime?: boolean;
  /**
   * What is left of the pre-window deadline (engine.ts preWindowBudgetMs) when the run is handed
   * over (the caller may have spent some choosing the model); default the whole budget. The worker's
   * start and the priming request share it; the run starts when it is spent, whatever is in flight.
   */
  preWindowMs?: number;
  /** Upper bound on a requests-bound run's measured time (default 600 s). */
  maxDurationS?: number;
  /** The fixed grace after the stop for requests still in flight, ms (default END_GRACE_MS; tests shorten it). */
  endGraceMs?: number;
  extraHeaders?: EngineTarget['extraHeaders'];
  /** The undici engine's dispatcher in place of the connection's (A/B at random routes each request: search/ab-random.ts). */
  dispatcher?: EngineTarget['dispatcher'];
  onTiming?: (t: RequestTiming) => void;
  onRecord?: (r: RequestRecord) => void;
  /**
   * Where the run's records go (results/record-log.ts): `iari load` streams them to requests.ndjson
   * (openRecordFile); absent, they are kept in memory (RecordList). Called once, when the run starts.
   */
  records?: () => RecordLog;
  onTick?: (c: Collector, elapsedS: number) => void;
  /** Called once t = 0 of the run is fixed (hrtime ns), before any request. */
  onStart?: (startNs: bigint) => void;
  /**
   * A coordinated shard (coordination/shard-client.ts): after priming, waits for the agreed start and
   * gives t = 0 on the monotonic clock and its epoch ms on the coordinator's clock; it may throw
   * (the run fails before any measured request). Absent: the run starts 20 ms from now.
   */
  startGate?: () => Promise<{ startNs: bigint; startEpochMs: number }>;
  /**
   * `--tokenizer server`'s counts by origin, shared by the runs of one scenario (a sweep's steps, a
   * capacity search's levels, A/B blocks, repeats): each server's vocabulary is counted once, not
   * once per run. Absent: each run counts for itself.
   */
  serverCounts?: Map<string, Promise<WordCounts>>;
  signal?: AbortSignal;
  /** The APIs this run knows (default: every API iari ships); `api` names one of them. */
  protocols?: ProtocolList;
  /**
   * Where responses are parsed and checked: 'worker' (default) in a worker thread, so the main
   * thread only reads and stamps (about half the main-thread collections; see docs/load.md);
   * 'in-process' in deferred batches on the main thread (also the fallback when the worker cannot
   * start). Either way every response is checked while the run goes on.
   */
  checkIn?: 'worker' | 'in-process';
  /** Check workers (benches and tests); by default checkWorkerCount of the run's concurrency (checker.ts). */
  checkWorkers?: number;
}

/** The default closed-loop engine, autocannon, cannot cut one request in the middle of its answer. */
export const CANCEL_ENGINE_NOTE = 'cutting a request in the middle of its answer (--cancel-rate) needs the undici engine, whose abort destroys that socket: closed loop ran on undici';

/** --cancel-rate: where request `seq` is cut (its own output bound bounds a decode point). */
function cancelOf(plan: CancelPlan, seed: number, maxTokens: number, workload: Workload | undefined): (seq: number) => ReturnType<typeof cancelPointFor> {
  return (seq) => cancelPointFor(plan, seed, seq, workload?.requested(seq).output ?? maxTokens);
}

const version = (): string => {
  try {
    return packageVersion();
  } catch {
    return '0.0.0';
  }
};

/** Shard i of n gets floor(x/n) plus one of the remainder when i < x mod n. */
export function shareOf(x: number, shard: ShardInfo | null): number {
  if (shard === null) return x;
  return Math.floor(x / shard.count) + (shard.index < x % shard.count ? 1 : 0);
}

/**
 * A run's result and its records: in memory (`records`), or, when LoadConfig.records streamed them
 * to a file, none in memory (`records` empty) and the file in `recordsFile`.
 */
export interface LoadRun {
  result: LoadResult;
  records: RequestRecord[];
  recordsFile?: string;
}

/** Runs one load test and returns its result; every request goes through the strict stream checker. */
export async function runLoadConfig(asked: LoadConfig): Promise<LoadRun> {
  const given = await withServerCounts(asked);
  const traced = given.workload?.trace;
  // Shard i of n replays entries i, i+n, ... of the trace (together: the whole trace).
  const entries = traced === undefined ? undefined : given.shard === null ? traced.entries : traced.entries.filter((_, k) => k % given.shard!.count === given.shard!.index);
  // A trace lasts its replay (its last arrival, within the run) unless --duration or --requests cut it.
  const cfg = traced === undefined || given.durationS !== null || given.requests !== null ? given : { ...given, durationS: Math.min(3600, Math.max(0.001, traced.info.spanS - given.warmupS + 0.001)) };
  const url = new URL(cfg.baseUrl);
  const conn = cfg.connection ?? noConnectionOptions;
  // The workload's generator (workloads/request-source.ts; none: the prompts cycled), written by the run's protocol.
  const protocols = cfg.protocols ?? defaultProtocols;
  const source = requestSource(cfg.workload, { model: cfg.model, maxTokens: cfg.maxTokens, stream: cfg.stream, seed: cfg.seed, prompts: cfg.prompts, ...(entries === undefined ? {} : { entries }) }, apiOf(protocols, cfg.api, cfg.workload));
  const request: Omit<EngineTarget, 'checker'> = {
    origin: url.origin,
    path: `${url.pathname.replace(/\/+$/, '')}${source.route}`,
    headers: {
      ...Object.fromEntries(conn.headers.map((h) => [h.name.toLowerCase(), h.value])),
      'content-type': 'application/json',
      ...(cfg.token === NO_TOKEN ? {} : { authorization: `Bearer ${cfg.token}` }),
      accept: cfg.stream ? 'text/event-stream' : 'application/json',
      // identity: iari load never inflates a body (a gzip bomb fails at its head: response-bounds.ts).
      'accept-encoding': 'identity',
    },
    dispatcher: cfg.dispatcher ?? ((pool) => dispatcherFor(conn, url.origin, pool)),
    connectionReuse: cfg.connectionReuse ?? 'reuse',
    ...(cfg.cancellation === undefined ? {} : { cancel: cancelOf(cfg.cancellation, cfg.seed, cfg.maxTokens, source.kind === 'conversations' || source.kind === 'prompts' ? undefined : source.workload) }),
    body: source.body,
    stream: cfg.stream,
    sent: source.sent,
    tally: () => source.protocol.outputTally(),
    ...(cfg.extraHeaders === undefined ? {} : { extraHeaders: cfg.extraHeaders }),
  };
  // The run's own checker (its worker) starts first, so that it checks the priming request too and
  // this thread never loads the tokenizer; it is closed when the run ends.
  const concurrency = cfg.mode.kind === 'closed' ? cfg.mode.concurrency : (cfg.mode.maxConcurrency ?? null);
  const checker = Checker.start(protocols, cfg.checkWorkers ?? checkWorkerCount(concurrency), cfg.checkIn === 'in-process');
  // Which connection each request went out on (connection reuse races), for this run only.
  const connections = new ConnectionWatch();
  try {
    return await measure(cfg, { ...request, connections }, checker, source, entries);
  } finally {
    connections.close();
    await (await checker).close();
  }
}

async function measure(cfg: LoadConfig, request: Omit<EngineTarget, 'checker'>, starting: Promise<Checker>, source: RequestSource, entries: readonly TraceEntry[] | undefined): Promise<LoadRun> {
  // The cycled prompts ask for no lengths of their own.
  const workload = source.kind === 'prompts' ? undefined : source.workload;
  const requestTimeoutMs = cfg.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const preWindowMs = cfg.preWindowMs ?? preWindowBudgetMs(requestTimeoutMs, runLengthS(cfg));
  const preDeadline = performance.now() + preWindowMs;
  const checker = await starting;
  const target: EngineTarget = { ...request, checker };
  // Load the tokenizer's tables now, not inside the first timed request; only when this thread checks
  // (in-process, or the worker could not start): the worker has its own (about 60 MiB each).
  if (!checker.inWorker) countTokens('warm up the tokenizer');
  // A shard reads the server once before priming too (iari report merge joins the shards from there).
  const serverMetrics = cfg.serverMetrics === undefined ? null : await openServerMetrics(cfg.serverMetrics, { baseUrl: cfg.baseUrl, token: cfg.token, ...(cfg.connection === undefined ? {} : { connection: cfg.connection }) }, cfg.shard !== null);
  const primed = cfg.prime === false ? null : await prime(target, cfg.timeoutMs, requestTimeoutMs, preDeadline - performance.now(), preWindowMs);
  const priming = primed?.priming ?? null;
  // Issue 43: appended as they finish (requests.ndjson for iari load), never all held by the run.
  const records: RecordLog = cfg.records?.() ?? new RecordList();
  // The baseline read comes after priming and before the first request: the counters' growth is the run's.
  await serverMetrics?.begin();
  if (serverMetrics !== null && cfg.cancellation !== undefined) target.onCut = () => serverMetrics.cut();
  // Drawn before the clock starts: conditioning a Poisson window reads its random numbers once ahead.
  const schedule = cfg.mode.kind !== 'open' ? null : entries !== undefined ? traceTimes(entries) : arrivalTimes(scheduleOf(cfg, cfg.mode));
  const gate = cfg.startGate === undefined ? null : await cfg.startGate();
  const startedAt = new Date();
  // A short lead so the first arrival is not late because of setup.
  const startNs = gate?.startNs ?? now() + 20_000_000n;
  const startEpochMs = gate?.startEpochMs ?? performance.timeOrigin + performance.now() + 20;
  cfg.onStart?.(startNs);
  const warmupNs = BigInt(Math.round(cfg.warmupS * 1e9));
  const measureS = cfg.durationS ?? cfg.maxDurationS ?? 600;
  const stopNs = startNs + warmupNs + BigInt(Math.round(measureS * 1e9));
  const collector = new Collector({
    measureStartNs: startNs + warmupNs,
    measureStartEpochMs: startEpochMs + cfg.warmupS * 1000,
    openLoop: cfg.mode.kind === 'open',
    slos: cfg.slos,
    shard: cfg.shard?.index ?? null,
    sections: loadSections({ connectionReuse: cfg.connectionReuse ?? 'reuse', ...(workload === undefined ? {} : { outputIs: workload.outputIs }), ...(cfg.workload?.input.kind === 'synthetic' && cfg.workload.input.counts !== undefined ? { promptCountedBy: 'server /tokenize' as const } : {}), protocols: cfg.protocols ?? defaultProtocols, run: { api: source.protocol.name, ...(cfg.workload === undefined ? {} : { workload: cfg.workload as unknown as Readonly<Record<string, unknown>> }) }, ...(cfg.cancellation === undefined ? {} : { cancellation: { plan: cfg.cancellation, server: () => ({ release: read?.release ?? null, leak: read?.leak ?? null }) } }), server: () => read?.section, ...(source.kind === 'conversations' ? { conversations: () => ({ loop: cfg.mode.kind, thinkTimeMs: source.workload.thinkTimeMs, conversationsStarted: source.workload.started, conversationsCompleted: source.workload.completed }) } : {}), ...(cfg.workload?.tools === undefined ? {} : { tools: toolsCollector(cfg.workload.tools, cfg.seed) }) }),
    ...(workload === undefined ? {} : { requested: workload.requested }),
    onRecord: (r) => {
      records.add(r);
      cfg.onRecord?.(r);
    },
  });
  const maxRequests = cfg.requests === null ? null : shareOf(cfg.requests, cfg.shard);
  // In-flight requests get a short fixed grace after the stop, then are aborted (counted as aborted at end):
  // a run ends at its bound whatever the server does.
  const limits: EngineLimits = { startNs, stopNs, maxRequests, timeoutMs: cfg.timeoutMs, deadlineMs: requestTimeoutMs, drainMs: cfg.endGraceMs ?? END_GRACE_MS, measureStartNs: startNs + warmupNs };
  let lastEndNs = startNs + warmupNs;
  // --cancel-rate with --server-metrics: every cut and every request's span, for the server's release (cancel-release.ts).
  const cuts: bigint[] = [];
  const spans: ClientSpan[] = [];
  let lastAnyEndNs = startNs;
  // Ctrl-C, or requests.ndjson failing (disk full): the run stops then, and a write error fails it at close().
  const stop = records.failed === undefined ? cfg.signal : cfg.signal === undefined ? records.failed : AbortSignal.any([cfg.signal, records.failed]);
  const hooks: EngineHooks = {
    collector,
    onTiming: (t) => {
      if (t.endNs !== null && t.endNs > lastEndNs && !collector.isWarmup(t.intendedNs)) lastEndNs = t.endNs;
      if (cfg.cancellation !== undefined && serverMetrics !== null) {
        const end = t.cancelled?.atNs ?? t.endNs ?? now();
        // From its answer's head: before it the server may not have the request yet (cancel-release.ts ClientSpan).
        if (t.headersNs !== null) spans.push({ sentNs: t.headersNs, endNs: end });
        if (end > lastAnyEndNs) lastAnyEndNs = end;
        if (t.cancelled !== undefined) cuts.push(t.cancelled.atNs);
      }
      cfg.onTiming?.(t);
    },
    onTick: () => cfg.onTick?.(collector, Number(now() - startNs) / 1e9),
    ...(stop === undefined ? {} : { signal: stop }),
  };
  // Ctrl-C: the measured window ends at the interrupt (the engines stop issuing and abort what is in flight).
  let interruptNs: bigint | null = stop?.aborted === true ? now() : null;
  const onInterrupt = (): void => {
    interruptNs ??= now();
  };
  stop?.addEventListener('abort', onInterrupt, { once: true });
  collector.startEventLoopMonitor();
  const { kind, mode, concurrency, cap } = executorOf(cfg, source, target.origin, entries);
  try {
    await EXECUTORS[kind]({ target, limits, hooks, concurrency, cap, schedule: schedule ?? [], ...(source.kind === 'conversations' ? { conversations: source.workload } : {}) });
  } finally {
    collector.stopEventLoopMonitor();
    stop?.removeEventListener('abort', onInterrupt);
    // The last lines written (a write error fails the run here: IARI_REPORT_UNWRITABLE).
    await records.close();
  }
  const measureStartEpochMs = startEpochMs + cfg.warmupS * 1000;
  const epochMsOf = (ns: bigint): number => startEpochMs + Number(ns - startNs) / 1e6;
  const shardPriming = cfg.shard === null ? undefined : primed === null ? null : primingRecord(primed.timing, epochMsOf);
  const read = await serverMetrics?.stop(records, { measureStartNs: startNs + warmupNs, measureStartEpochMs, maxTokens: cfg.maxTokens, otherShards: cfg.shard === null ? 0 : cfg.shard.count - 1 }, cfg.cancellation === undefined ? undefined : { cuts, spans, lastEndNs: lastAnyEndNs, primingCut: priming?.outcome === 'incomplete' }, shardPriming);
  // Duration-bound: the window is the configured duration. Requests-bound: until the last measured request ended.
  // Interrupted: until the interrupt.
  const windowMs =
    interruptNs !== null
      ? Math.max(1, Number(interruptNs - (startNs + warmupNs)) / 1e6)
      : cfg.durationS !== null
        ? cfg.durationS * 1000
        : Math.max(1, Number(lastEndNs - (startNs + warmupNs)) / 1e6);
  const meta: RunMeta = {
    schema: LOAD_RESULT_SCHEMA,
    tool: { name: 'iari', version: version() },
    runId: cfg.runId,
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    measureStartEpochMs: Math.round(measureStartEpochMs),
    measureEndEpochMs: Math.round(measureStartEpochMs + windowMs),
    baseUrl: cfg.baseUrl,
    target: cfg.target,
    model: cfg.model,
    mode,
    latencyOrigin: cfg.mode.kind === 'open' ? 'intended' : 'actual',
    config: {
      durationS: cfg.durationS,
      requests: cfg.requests,
      warmupS: cfg.warmupS,
      maxTokens: cfg.maxTokens,
      stream: cfg.stream,
      prompts: cfg.promptsSource,
      seed: cfg.seed,
      timeoutMs: cfg.timeoutMs,
      requestTimeoutMs,
      slos: [...cfg.sloExprs],
      api: source.protocol.name,
      ...(cfg.workload === undefined ? {} : { workload: workloadMeta(cfg.workload) }),
    },
    host: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length },
    connection: connectionMeta(cfg.connection ?? noConnectionOptions, target.origin),
  };
  const built = buildResult({ meta, collector, slos: cfg.slos, shard: cfg.shard });
  const result = priming === null || priming.outcome === 'complete' ? built : { ...built, priming };
  const out = interruptNs === null ? result : { ...result, interrupted: true };
  return records instanceof RecordList ? { result: out, records: records.records } : { result: out, records: [], ...(records.path === null ? {} : { recordsFile: records.path }) };
}

/**
 * The executor a run uses, and the mode load.json records: conversations run on their own
 * executors (a turn is sent after the previous answer, which only undici can do), an open loop on
 * undici, a closed loop on autocannon unless it cannot serve the target (autocannonFallback).
 */
function executorOf(cfg: LoadConfig, source: RequestSource, origin: string, entries: readonly TraceEntry[] | undefined): { kind: ExecutorKind; mode: LoadMode; concurrency: number; cap: number | null } {
  const m = cfg.mode;
  const arrival = (open: Extract<ModeConfig, { kind: 'open' }>) => ({ arrival: open.arrival, seed: cfg.seed, ...(open.burstiness === undefined ? {} : { burstiness: open.burstiness }) });
  const ramp = m.kind === 'open' && m.ramp !== undefined ? { ramp: m.ramp } : {};
  const concurrency = m.kind === 'closed' ? Math.max(1, shareOf(m.concurrency, cfg.shard)) : 0;
  if (source?.kind === 'conversations') {
    if (m.kind === 'open') return { kind: 'open-conversations', mode: { kind: 'open', engine: 'undici', rate: shareRate(m.rate, cfg.shard), ...arrival(m), ...ramp }, concurrency, cap: null };
    const note = 'a conversation sends each turn after the previous answer, which only the undici engine can do: closed loop ran on undici';
    return { kind: 'closed-conversations', mode: { kind: 'closed', engine: 'undici', concurrency, ...(m.engine === 'autocannon' ? { engineNote: note } : {}) }, concurrency, cap: null };
  }
  if (m.kind === 'open') {
    const cap = m.maxConcurrency === undefined ? null : Math.max(1, shareOf(m.maxConcurrency, cfg.shard));
    const trace = cfg.workload?.trace;
    const rate = trace === undefined ? shareRate(m.rate, cfg.shard) : round3((entries?.length ?? 0) / Math.max(trace.info.spanS, 0.001));
    return { kind: 'open', mode: { kind: 'open', engine: 'undici', rate, ...arrival(m), ...(cap === null ? {} : { maxConcurrency: cap }), ...ramp, ...(trace === undefined ? {} : { trace: trace.info }) }, concurrency, cap };
  }
  const fallback = m.engine === 'autocannon' ? (autocannonFallback(origin) ?? (cfg.cancellation === undefined ? null : CANCEL_ENGINE_NOTE)) : null;
  const engine = fallback === null ? m.engine : 'undici';
  return { kind: engine === 'autocannon' ? 'closed-autocannon' : 'closed-undici', mode: { kind: 'closed', engine, concurrency, ...(fallback === null ? {} : { engineNote: fallback }) }, concurrency, cap: null };
}

/**
 * autocannon connects with its own sockets: it never verifies a certificate (it passes
 * rejectUnauthorized: false to tls.connect) and knows no proxies. A closed loop that needs either
 * runs on the undici engine instead, and the report says why (null: autocannon can serve it).
 */
export function autocannonFallback(origin: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const proxy = proxyFor(origin, env);
  if (proxy !== null) return `autocannon cannot go through a proxy (${displayUrl(proxy)}): closed loop ran on undici`;
  if (new URL(origin).protocol === 'https:') return 'autocannon does not verify TLS certificates (it connects with rejectUnauthorized: false): closed loop ran on undici';
  return null;
}

function connectionMeta(conn: ConnectionOptions, origin: string): ConnectionMeta {
  const https = new URL(origin).protocol === 'https:';
  const proxy = proxyFor(origin);
  return {
    tls: https ? (conn.insecure ? 'insecure' : 'verified') : 'none',
    trust: https && !conn.insecure ? trustFor(conn).sources : [],
    proxy: proxy === null ? null : displayUrl(proxy),
    headers: conn.headers.map((h) => (h.source === 'literal' ? h.name : `${h.name} (from $${h.source.env})`)),
  };
}

/** --tokenizer server: the vocabulary counted by the server's /tokenize (same origin, the run's token and headers) before any traffic. */
async function withServerCounts(cfg: LoadConfig): Promise<LoadConfig> {
  const w = cfg.workload;
  if (w === undefined || w.input.kind !== 'synthetic' || w.input.tokenizer !== 'server' || w.input.counts !== undefined) return cfg;
  const origin = new URL(cfg.baseUrl).origin;
  let counting = cfg.serverCounts?.get(origin);
  if (counting === undefined) {
    counting = countAt(cfg, origin);
    cfg.serverCounts?.set(origin, counting);
  }
  const counts = await counting;
  return { ...cfg, workload: { ...w, input: { ...w.input, counts } } };
}

async function countAt(cfg: LoadConfig, origin: string): Promise<WordCounts> {
  const conn = cfg.connection ?? noConnectionOptions;
  const dispatcher = dispatcherFor(conn, origin, { connections: 4 });
  try {
    const headers = { ...Object.fromEntries(conn.headers.map((h) => [h.name.toLowerCase(), h.value])), ...(cfg.token === NO_TOKEN ? {} : { authorization: `Bearer ${cfg.token}` }) };
    return await serverWordCounts({ origin, headers, dispatcher }, syntheticVocabulary());
  } finally {
    await dispatcher.close();
  }
}

function workloadMeta(w: WorkloadSpec): WorkloadMeta {
  const i = w.input;
  return {
    input: i.kind === 'prompts' ? 'prompts' : i.kind === 'synthetic' ? { synthetic: { ...i.length } } : { dataset: { ...i.info } },
    output: w.output === null ? null : { ...w.output },
    maxTokensField: w.maxTokensField,
    extraBody: w.extraBody,
    ...(w.prefix === undefined ? {} : { prefix: { ...w.prefix } }),
    ...(w.tools === undefined ? {} : { tools: { source: w.tools.source, share: w.tools.share, functions: w.tools.tools.map((t) => t.function.name) } }),
    ...(w.trace === undefined ? {} : { trace: { file: w.trace.info.file, format: w.trace.info.format } }),
    ...(w.conversation === undefined ? {} : { conversation: { turns: { ...w.conversation.turns }, thinkTimeMs: w.conversation.thinkTimeMs, ...(w.conversation.chain === undefined ? {} : { chain: w.conversation.chain }) } }),
    ...(w.embeddings === undefined ? {} : { embeddings: { ...w.embeddings } }),
  };
}

function toolsCollector(spec: ToolsSpec, seed: number): { source: string; declares: (seq: number) => boolean; check: ReturnType<typeof judge> } {
  return { source: spec.source, declares: (seq) => declaresTools(spec, seed, seq), check: judge(spec.tools, spec.source) };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

function scheduleOf(cfg: LoadConfig, mode: Extract<LoadConfig['mode'], { kind: 'open' }>): ScheduleOptions {
  const maxRequests = cfg.requests === null ? null : shareOf(cfg.requests, cfg.shard);
  return {
    rate: mode.rate,
    // A trace has its own schedule (trace-workload.ts traceTimes); this one is never drawn for it.
    arrival: mode.arrival === 'trace' ? 'constant' : mode.arrival,
    seed: cfg.seed,
    ...(mode.burstiness === undefined ? {} : { burstiness: mode.burstiness }),
    ...(mode.ramp === undefined ? {} : { ramp: mode.ramp }),
    ...(cfg.shard === null ? {} : { shard: cfg.shard }),
    windows: scheduleWindows(cfg.warmupS, cfg.durationS, maxRequests, shareRate(mode.rate, cfg.shard)),
  };
}

function shareRate(rate: number, shard: ShardInfo | null): number {
  return shard === null ? rate : rate / shard.count;
}

/** Warmup plus the measured time (a requests-bound run: its ceiling). */
export function runLengthS(cfg: Pick<LoadSettings, 'warmupS' | 'durationS'> & { maxDurationS?: number }): number {
  return cfg.warmupS + (cfg.durationS ?? cfg.maxDurationS ?? 600);
}

/**
 * One unmeasured request through the same checker path, under the same deadlines and within what is
 * left of the pre-window deadline (`leftMs`). Its errors are the run's to report, but an answer
 * still arriving when that deadline passes is evidence: the run starts without waiting for it, and
 * the result says so (a stream that outlived it).
 */
async function prime(target: EngineTarget, timeoutMs: number, deadlineMs: number, leftMs: number, budgetMs: number): Promise<{ priming: Priming; timing: RequestTiming }> {
  const options = { connections: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const pool = target.dispatcher?.(options) ?? new Pool(target.origin, options);
  const inFlight: InFlight = new Map();
  const sweep = idleSweep(inFlight, timeoutMs, deadlineMs);
  let cut: NodeJS.Timeout | undefined;
  try {
    // The priming request is never cut (--cancel-rate chooses among the run's requests).
    const { cancel: _cancel, ...uncut } = target;
    const sending = sendOne(pool, uncut, -1, now(), 0, inFlight, deadlineMs);
    const entry0 = [...inFlight.values()][0];
    const sent = sending.then((timing) => timing);
    const outcome = await Promise.race([sent, new Promise<'incomplete'>((r) => (cut = setTimeout(() => r('incomplete'), Math.max(0, leftMs))))]);
    if (outcome !== 'incomplete') return { priming: { outcome: 'complete', deadlineMs: budgetMs }, timing: outcome };
    const entry = [...inFlight.values()][0];
    // The response ended and is still being checked: no evidence against the server (its usage is not known yet).
    if (entry === undefined) return { priming: { outcome: 'complete', deadlineMs: budgetMs }, timing: { ...(entry0 as NonNullable<typeof entry0>).timer.timing, abortedAtEnd: true } };
    const t = entry.timer.timing;
    const detail =
      t.headersNs === null
        ? `the priming request had no answer within the pre-window deadline (${(budgetMs / 1000).toFixed(1)} s)`
        : `the priming request's response (status ${t.status ?? '?'}) was still arriving when the pre-window deadline (${(budgetMs / 1000).toFixed(1)} s) passed: ${target.stream ? "a stream that outlived it (the server's streams may not end, HDR-012)" : 'a body that outlived it'}`;
    for (const e of inFlight.values()) e.abort();
    return { priming: { outcome, deadlineMs: budgetMs, detail }, timing: { ...t, abortedAtEnd: true } };
  } finally {
    clearTimeout(cut);
    clearInterval(sweep);
    void pool.destroy().catch(() => undefined);
  }
}
