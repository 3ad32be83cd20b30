import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runClosedLoopAutocannon } from './executors/autocannon-engine.ts';
import { arrivalTimes, scheduleWindows, type ScheduleOptions } from './executors/arrivals.ts';
import { Checker } from './measure/checker.ts';
import { Collector } from './results/collector.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, END_GRACE_MS, now, preWindowBudgetMs, type EngineHooks, type EngineLimits, type EngineTarget } from './executors/engine.ts';
import { LOAD_RESULT_SCHEMA, type ConnectionMeta, type LoadMode, type Priming, type Ramp, type WorkloadMeta, type LoadResult, type RequestRecord, type RunMeta, type ShardInfo } from './results/load-result.ts';
import { bodyFactory, type ChatMessage } from './workloads/prompts.ts';
import { buildWorkload, type Workload, type WorkloadSpec } from './workloads/workload.ts';
import { Conversations } from './workloads/conversation.ts';
import { traceTimes, traceWorkload } from './workloads/trace-workload.ts';
import { declaresTools, judge, withTools, type ToolsSpec } from './workloads/tool-calls.ts';
import type { TraceEntry } from './workloads/trace.ts';
import { runClosedConversations, runOpenConversations } from './executors/conversation-engine.ts';
import type { RequestTiming } from './measure/request-timer.ts';
import { buildResult } from './results/result-builder.ts';
import type { Slo } from './results/slo.ts';
import { countTokens } from './workloads/token-count.ts';
import { packageVersion } from '../package-root.ts';
import { Pool } from 'undici';
import { displayUrl, noConnectionOptions, proxyFor, type ConnectionOptions } from '../client/connection-options.ts';
import { dispatcherFor, trustFor } from '../client/dispatcher.ts';
import { idleSweep, runClosedLoopUndici, runOpenLoop, sendOne, type InFlight } from './executors/undici-engine.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../protocols/chat-completions/chat-request.ts';
import type { ConnectionReuse } from './executors/connection-reuse.ts';
import { beginServerMetrics, type ServerMetricsOptions } from '../server-metrics/session.ts';

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
  onTick?: (c: Collector, elapsedS: number) => void;
  /** Called once t = 0 of the run is fixed (hrtime ns), before any request. */
  onStart?: (startNs: bigint) => void;
  signal?: AbortSignal;
  /**
   * Where responses are parsed and checked: 'worker' (default) in a worker thread, so the main
   * thread only reads and stamps (about half the main-thread collections; see docs/load.md);
   * 'in-process' in deferred batches on the main thread (also the fallback when the worker cannot
   * start). Either way every response is checked while the run goes on.
   */
  checkIn?: 'worker' | 'in-process';
}

/** --tools: the share of requests that declare tools get them added to their body. */
function withToolsIf(body: (seq: number) => string, cfg: LoadConfig): (seq: number) => string {
  const tools = cfg.workload?.tools;
  return tools === undefined ? body : withTools(body, tools, cfg.seed);
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

/** Runs one load test and returns its result; every request goes through the strict stream checker. */
export async function runLoad(given: LoadConfig): Promise<{ result: LoadResult; records: RequestRecord[] }> {
  const traced = given.workload?.trace;
  // Shard i of n replays entries i, i+n, ... of the trace (together: the whole trace).
  const entries = traced === undefined ? undefined : given.shard === null ? traced.entries : traced.entries.filter((_, k) => k % given.shard!.count === given.shard!.index);
  // A trace lasts its replay (its last arrival, within the run) unless --duration or --requests cut it.
  const cfg = traced === undefined || given.durationS !== null || given.requests !== null ? given : { ...given, durationS: Math.min(3600, Math.max(0.001, traced.info.spanS - given.warmupS + 0.001)) };
  const url = new URL(cfg.baseUrl);
  const conn = cfg.connection ?? noConnectionOptions;
  const wo = { model: cfg.model, maxTokens: cfg.maxTokens, stream: cfg.stream, seed: cfg.seed, prompts: cfg.prompts };
  const workload =
    cfg.workload === undefined
      ? undefined
      : entries !== undefined
        ? traceWorkload(entries, { model: cfg.model, stream: cfg.stream, seed: cfg.seed, maxTokensField: cfg.workload.maxTokensField, extraBody: cfg.workload.extraBody })
        : cfg.workload.conversation !== undefined
          ? new Conversations(cfg.workload, wo)
          : buildWorkload(cfg.workload, wo);
  const request: Omit<EngineTarget, 'checker'> = {
    origin: url.origin,
    path: `${url.pathname.replace(/\/+$/, '')}${CHAT_COMPLETIONS_ROUTE}`,
    headers: {
      ...Object.fromEntries(conn.headers.map((h) => [h.name.toLowerCase(), h.value])),
      'content-type': 'application/json',
      authorization: `Bearer ${cfg.token}`,
      accept: cfg.stream ? 'text/event-stream' : 'application/json',
      // identity: iari load never inflates a body (a gzip bomb fails at its head: response-bounds.ts).
      'accept-encoding': 'identity',
    },
    dispatcher: cfg.dispatcher ?? ((pool) => dispatcherFor(conn, url.origin, pool)),
    connectionReuse: cfg.connectionReuse ?? 'reuse',
    body: withToolsIf(workload?.body ?? bodyFactory(cfg.prompts, { model: cfg.model, maxTokens: cfg.maxTokens, stream: cfg.stream, seed: cfg.seed }), cfg),
    stream: cfg.stream,
    ...(cfg.extraHeaders === undefined ? {} : { extraHeaders: cfg.extraHeaders }),
  };
  // The run's own checker (its worker) starts first, so that it checks the priming request too and
  // this thread never loads the tokenizer; it is closed when the run ends.
  const checker = Checker.start(cfg.checkIn === 'in-process');
  try {
    return await measure(cfg, request, checker, workload, entries);
  } finally {
    await (await checker).close();
  }
}

async function measure(cfg: LoadConfig, request: Omit<EngineTarget, 'checker'>, starting: Promise<Checker>, workload: Workload | undefined, entries: readonly TraceEntry[] | undefined): Promise<{ result: LoadResult; records: RequestRecord[] }> {
  const requestTimeoutMs = cfg.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const preWindowMs = cfg.preWindowMs ?? preWindowBudgetMs(requestTimeoutMs, runLengthS(cfg));
  const preDeadline = performance.now() + preWindowMs;
  const checker = await starting;
  const target: EngineTarget = { ...request, checker };
  // Load the tokenizer's tables now, not inside the first timed request; only when this thread checks
  // (in-process, or the worker could not start): the worker has its own (about 60 MiB each).
  if (checker.remote === null) countTokens('warm up the tokenizer');
  const priming = cfg.prime === false ? null : await prime(target, cfg.timeoutMs, requestTimeoutMs, preDeadline - performance.now(), preWindowMs);
  const records: RequestRecord[] = [];
  // The baseline read comes after priming and before the first request: the counters' growth is the run's.
  const serverMetrics = cfg.serverMetrics === undefined ? null : await beginServerMetrics(cfg.serverMetrics, { baseUrl: cfg.baseUrl, token: cfg.token, ...(cfg.connection === undefined ? {} : { connection: cfg.connection }) });
  // Drawn before the clock starts: conditioning a Poisson window reads its random numbers once ahead.
  const schedule = cfg.mode.kind !== 'open' ? null : entries !== undefined ? traceTimes(entries) : arrivalTimes(scheduleOf(cfg, cfg.mode));
  const startedAt = new Date();
  // A short lead so the first arrival is not late because of setup.
  const startNs = now() + 20_000_000n;
  const startEpochMs = performance.timeOrigin + performance.now() + 20;
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
    ...(workload === undefined ? {} : { requested: workload.requested, outputIs: workload.outputIs }),
    ...(cfg.workload?.tools === undefined ? {} : { tools: toolsCollector(cfg.workload.tools, cfg.seed) }),
    onRecord: (r) => {
      records.push(r);
      cfg.onRecord?.(r);
    },
  });
  const maxRequests = cfg.requests === null ? null : shareOf(cfg.requests, cfg.shard);
  // In-flight requests get a short fixed grace after the stop, then are aborted (counted as aborted at end):
  // a run ends at its bound whatever the server does.
  const limits: EngineLimits = { startNs, stopNs, maxRequests, timeoutMs: cfg.timeoutMs, deadlineMs: requestTimeoutMs, drainMs: cfg.endGraceMs ?? END_GRACE_MS, measureStartNs: startNs + warmupNs };
  let lastEndNs = startNs + warmupNs;
  const hooks: EngineHooks = {
    collector,
    onTiming: (t) => {
      if (t.endNs !== null && t.endNs > lastEndNs && !collector.isWarmup(t.intendedNs)) lastEndNs = t.endNs;
      cfg.onTiming?.(t);
    },
    onTick: () => cfg.onTick?.(collector, Number(now() - startNs) / 1e9),
    ...(cfg.signal === undefined ? {} : { signal: cfg.signal }),
  };
  // Ctrl-C: the measured window ends at the interrupt (the engines stop issuing and abort what is in flight).
  let interruptNs: bigint | null = cfg.signal?.aborted === true ? now() : null;
  const onInterrupt = (): void => {
    interruptNs ??= now();
  };
  cfg.signal?.addEventListener('abort', onInterrupt, { once: true });
  collector.startEventLoopMonitor();
  let mode: LoadMode;
  try {
    if (workload instanceof Conversations) {
      if (cfg.mode.kind === 'open') {
        mode = { kind: 'open', engine: 'undici', rate: shareRate(cfg.mode.rate, cfg.shard), arrival: cfg.mode.arrival, seed: cfg.seed, ...(cfg.mode.burstiness === undefined ? {} : { burstiness: cfg.mode.burstiness }), ...(cfg.mode.ramp === undefined ? {} : { ramp: cfg.mode.ramp }) };
        await runOpenConversations(target, limits, schedule ?? [], hooks, workload);
      } else {
        const concurrency = Math.max(1, shareOf(cfg.mode.concurrency, cfg.shard));
        const note = 'a conversation sends each turn after the previous answer, which only the undici engine can do: closed loop ran on undici';
        mode = { kind: 'closed', engine: 'undici', concurrency, ...(cfg.mode.engine === 'autocannon' ? { engineNote: note } : {}) };
        await runClosedConversations(target, limits, concurrency, hooks, workload);
      }
    } else if (cfg.mode.kind === 'open') {
      const cap = cfg.mode.maxConcurrency === undefined ? null : Math.max(1, shareOf(cfg.mode.maxConcurrency, cfg.shard));
      const trace = cfg.workload?.trace;
      const rate = trace === undefined ? shareRate(cfg.mode.rate, cfg.shard) : round3((entries?.length ?? 0) / Math.max(trace.info.spanS, 0.001));
      mode = { kind: 'open', engine: 'undici', rate, arrival: cfg.mode.arrival, seed: cfg.seed, ...(cfg.mode.burstiness === undefined ? {} : { burstiness: cfg.mode.burstiness }), ...(cap === null ? {} : { maxConcurrency: cap }), ...(cfg.mode.ramp === undefined ? {} : { ramp: cfg.mode.ramp }), ...(trace === undefined ? {} : { trace: trace.info }) };
      await runOpenLoop(target, limits, schedule ?? [], hooks, cap);
    } else {
      const concurrency = Math.max(1, shareOf(cfg.mode.concurrency, cfg.shard));
      const engine = cfg.mode.engine === 'autocannon' ? autocannonFallback(target.origin) : null;
      mode = { kind: 'closed', engine: engine === null ? cfg.mode.engine : 'undici', concurrency, ...(engine === null ? {} : { engineNote: engine }) };
      if (mode.engine === 'autocannon') await runClosedLoopAutocannon(target, limits, concurrency, hooks);
      else await runClosedLoopUndici(target, limits, concurrency, hooks);
    }
  } finally {
    collector.stopEventLoopMonitor();
    cfg.signal?.removeEventListener('abort', onInterrupt);
  }
  const measureStartEpochMs = startEpochMs + cfg.warmupS * 1000;
  const server = await serverMetrics?.stop(records, { measureStartNs: startNs + warmupNs, measureStartEpochMs, maxTokens: cfg.maxTokens, otherShards: cfg.shard === null ? 0 : cfg.shard.count - 1 });
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
      ...(cfg.workload === undefined ? {} : { workload: workloadMeta(cfg.workload) }),
    },
    host: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length },
    connection: connectionMeta(cfg.connection ?? noConnectionOptions, target.origin),
  };
  const conversations = workload instanceof Conversations ? { loop: cfg.mode.kind, thinkTimeMs: workload.thinkTimeMs, conversationsStarted: workload.started, conversationsCompleted: workload.completed } : undefined;
  const built = buildResult({ meta, collector, slos: cfg.slos, shard: cfg.shard, connectionReuse: cfg.connectionReuse ?? 'reuse', ...(conversations === undefined ? {} : { conversations }), ...(server === undefined ? {} : { server }) });
  const result = priming === null || priming.outcome === 'complete' ? built : { ...built, priming };
  return { result: interruptNs === null ? result : { ...result, interrupted: true }, records };
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
    ...(w.conversation === undefined ? {} : { conversation: { turns: { ...w.conversation.turns }, thinkTimeMs: w.conversation.thinkTimeMs } }),
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
async function prime(target: EngineTarget, timeoutMs: number, deadlineMs: number, leftMs: number, budgetMs: number): Promise<Priming> {
  const options = { connections: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const pool = target.dispatcher?.(options) ?? new Pool(target.origin, options);
  const inFlight: InFlight = new Map();
  const sweep = idleSweep(inFlight, timeoutMs, deadlineMs);
  let cut: NodeJS.Timeout | undefined;
  try {
    const sent = sendOne(pool, target, -1, now(), 0, inFlight, deadlineMs).then(() => 'complete' as const);
    const outcome = await Promise.race([sent, new Promise<'incomplete'>((r) => (cut = setTimeout(() => r('incomplete'), Math.max(0, leftMs))))]);
    if (outcome === 'complete') return { outcome, deadlineMs: budgetMs };
    const entry = [...inFlight.values()][0];
    // The response ended and is still being checked: no evidence against the server.
    if (entry === undefined) return { outcome: 'complete', deadlineMs: budgetMs };
    const t = entry.timer.timing;
    const detail =
      t.headersNs === null
        ? `the priming request had no answer within the pre-window deadline (${(budgetMs / 1000).toFixed(1)} s)`
        : `the priming request's response (status ${t.status ?? '?'}) was still arriving when the pre-window deadline (${(budgetMs / 1000).toFixed(1)} s) passed: ${target.stream ? "a stream that outlived it (the server's streams may not end, HDR-012)" : 'a body that outlived it'}`;
    for (const e of inFlight.values()) e.abort();
    return { outcome, deadlineMs: budgetMs, detail };
  } finally {
    clearTimeout(cut);
    clearInterval(sweep);
    void pool.destroy().catch(() => undefined);
  }
}
