/**
 * The `load.json` contract: what `iari load` writes to `reports/<run>/load.json`, what
 * `iari report merge` reads and writes, and what the load `report.html` renders.
 *
 * Units: every duration is an integer number of MICROSECONDS (suffix `Us`), every wall-clock
 * instant is epoch milliseconds (suffix `EpochMs`) or ISO 8601 UTC (suffix `At`). Histograms are
 * HdrHistogram (hdr-histogram-js) encoded with `encodeIntoCompressedBase64`, lowest discernible
 * value 1 µs, 3 significant digits, so shards merge exactly by adding histograms.
 */

import type { Coordination } from './coordination-section.ts';
import type { TraceInfo } from '../workloads/trace.ts';
import type { ServerSection } from '../../server-metrics/server-section.ts';
import type { LeakFinding, ReleaseReport } from '../../server-metrics/cancel-release.ts';

export const LOAD_RESULT_SCHEMA = 'iari.load/1' as const;

/** Percentiles reported for every histogram, in the histogram's unit. */
export interface Percentiles {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  'p99.9': number;
}
export const percentileKeys = ['p50', 'p90', 'p95', 'p99', 'p99.9'] as const satisfies readonly (keyof Percentiles)[];
export type PercentileKey = (typeof percentileKeys)[number];
export const percentileValues: Record<PercentileKey, number> = { p50: 50, p90: 90, p95: 95, p99: 99, 'p99.9': 99.9 };

/**
 * Histogram metrics. All are durations in µs except `output_tps` (per-request output tokens per
 * second, stored in milli-tokens per second so the integer histogram keeps 3 decimals).
 *
 * - `ttfb`: intended-or-actual start (see `latencyOrigin`) to the first response byte (headers).
 * - `ttft`: start to the first event carrying content or a tool call (never the role-only chunk).
 * - `itl`: inter-token latency, one sample PER TOKEN: a chunk carrying k tokens that arrives g µs
 *   after the previous token-bearing chunk contributes k samples of g/k (D-LOAD-03).
 * - `tpot`: per request, (last token time - first token time) / (output tokens - 1).
 * - `e2e`: start to the end of the response ([DONE] and stream close, or the whole JSON body).
 * - `service_ttft`, `service_e2e`: the same, measured from the ACTUAL send (open loop only; in
 *   closed loop they equal ttft/e2e and are omitted).
 * - `schedule_lag`: actual send - intended send (open loop only).
 * - `event_loop_lag`: client event-loop delay sampled by perf_hooks.monitorEventLoopDelay.
 * - `output_tps`: per request, output tokens / e2e seconds (the rate the caller saw).
 * - `server_ttft`: the server's own account of its time to the first token, where it gives one:
 *   llama.cpp's per-request `timings.prompt_ms` (non-streamed body, final stream chunk). Beside
 *   `ttft` it splits iari's TTFT into the server's prefill and the rest (queueing, network, client).
 */
export const metricNames = [
  'ttfb',
  'ttft',
  'itl',
  'tpot',
  'e2e',
  'service_ttft',
  'service_e2e',
  'schedule_lag',
  'event_loop_lag',
  'output_tps',
  'server_ttft',
] as const;
export type MetricName = (typeof metricNames)[number];

export type MetricUnit = 'us' | 'millitokens_per_s' | 'tokens';

export interface HistogramSummary {
  unit: MetricUnit;
  /** Number of recorded samples. */
  count: number;
  min: number;
  max: number;
  mean: number;
  stddev: number;
  percentiles: Percentiles;
  /** hdr-histogram-js `encodeIntoCompressedBase64` of the full histogram. */
  hdr: string;
}

/** Closed set of error classes; every failed request is counted in exactly one. */
export const errorClasses = [
  'http_status', // a non-2xx status
  'timeout', // no byte for `--timeout` (reset on every byte), or the response did not end within `--request-timeout`
  'reset', // connection reset / closed mid-response
  'connect', // could not connect
  'stream_nonconforming', // the strict SSE reader/stream checker flagged the stream
  'body_invalid', // non-streaming body is not a valid chat completion
  'other',
] as const;
export type ErrorClass = (typeof errorClasses)[number];

export interface ErrorSummary {
  /** Failed measured requests. */
  total: number;
  /** total / measured requests finished (0 when none finished). */
  rate: number;
  byClass: Record<ErrorClass, number>;
  /** HTTP status code (as a string) -> count, for class `http_status`. */
  byStatus: Record<string, number>;
  /** Stream-checker finding code -> count, for class `stream_nonconforming`. */
  byFinding: Record<string, number>;
  /** Up to 20 example errors with the server's x-request-id. */
  examples: { class: ErrorClass; detail: string; requestId: string | null }[];
}

/** --ramp (executors/arrivals.ts): the open loop's rate rises over the ramp, then stays. */
export interface Ramp {
  durationS: number;
  /** linear: from 0 to the rate; exponential: from 1% of the rate, x100 over the ramp. */
  shape: 'linear' | 'exponential';
}

export type LoadMode =
  | { kind: 'closed'; engine: 'autocannon' | 'undici'; concurrency: number; /** Why autocannon was not used although asked for. */ engineNote?: string }
  | { kind: 'open'; engine: 'undici'; rate: number; arrival: 'constant' | 'poisson' | 'gamma' | 'trace'; seed: number; burstiness?: number; /** --trace: what was replayed (rate is then the replay's mean rate). */ trace?: TraceInfo; /** --ramp: the rate rose to `rate` over the first durationS of the run. */ ramp?: Ramp; /** --max-concurrency: a capped open loop (arrivals wait for a slot: coordinated omission, shown as schedule lag). */ maxConcurrency?: number };

export interface RunMeta {
  schema: typeof LOAD_RESULT_SCHEMA;
  tool: { name: 'iari'; version: string };
  runId: string;
  startedAt: string;
  endedAt: string;
  /** Start and end of the MEASURED window (after warmup), epoch ms. */
  measureStartEpochMs: number;
  measureEndEpochMs: number;
  /** Base URL with credentials removed. */
  baseUrl: string;
  target: 'bundled-mock' | 'external';
  model: string;
  mode: LoadMode;
  /** Where latency is measured from: intended send (open loop) or actual send (closed loop). */
  latencyOrigin: 'intended' | 'actual';
  config: {
    durationS: number | null;
    requests: number | null;
    warmupS: number;
    maxTokens: number;
    stream: boolean;
    prompts: 'builtin' | { file: string; count: number };
    seed: number;
    /** Idle timeout (--timeout): no byte for this long. */
    timeoutMs: number;
    /** Total deadline of one request (--request-timeout); absent in results written before it existed. */
    requestTimeoutMs?: number;
    slos: string[];
    /** The API the requests went to (a protocol's name: chat-completions, responses, embeddings); absent in results written before it existed. */
    api?: string;
    /** Token-length workload (--input-tokens, --output-tokens, --dataset, --extra-body); absent: prompts with max_tokens. */
    workload?: WorkloadMeta;
  };
  host: { node: string; platform: string; cpus: number };
  /** How the target was reached (absent in files written before it existed). */
  connection?: ConnectionMeta;
}

export interface WorkloadMeta {
  input: 'prompts' | { synthetic: { mean: number; stdev: number } } | { dataset: { file: string; format: 'sharegpt' | 'iari'; samples: number; read: number; skipped: number } };
  /** --output-tokens; null: the dataset's own lengths, or max_tokens as a cap. */
  output: { mean: number; stdev: number } | null;
  maxTokensField: 'max_tokens' | 'max_completion_tokens' | 'both';
  /** --extra-body as given (merged into every request body). */
  extraBody: Record<string, unknown> | null;
  /** --prefix-tokens / --prefix-groups: a shared system prompt at the start of every request. */
  prefix?: { tokens: number; groups: number };
  /** --turns / --think-time: multi-turn conversations. */
  conversation?: { turns: { mean: number; stdev: number }; thinkTimeMs: number; chain?: 'previous-response-id' };
  /** --trace: the file replayed (its arrivals are in meta.mode.trace). */
  trace?: { file: string; format: 'mooncake' | 'burstgpt' };
  /** --tools: where the tools came from, the share of requests that declare them, their names. */
  tools?: { source: string; share: number; functions: string[] };
  /** --embeddings-batch: POST /v1/embeddings with `batch` inputs per request (and the encoding_format sent). */
  embeddings?: { batch: number; encodingFormat?: 'float' | 'base64' };
}

/** Asked against received over the same successful requests; sums kept so shards merge exactly. */
export interface TokenComparison {
  /** `target`: lengths the run meant to get; `cap`: max_tokens only limited them. */
  kind: 'target' | 'cap';
  requests: number;
  askedSum: number;
  receivedSum: number;
  askedMean: number;
  receivedMean: number;
  /** receivedMean / askedMean - 1. */
  difference: number;
  /** Requests that received fewer tokens than asked. */
  short: number;
  /** Requests that received more. */
  long: number;
}

/** Token distributions of the successful measured requests (unit `tokens`). */
export type PromptCountedBy = 'o200k' | 'server /tokenize';

export interface TokenReport {
  /** usage.prompt_tokens as the server reported it (requests without it are left out). */
  prompt: HistogramSummary | null;
  /** Output tokens (usage.completion_tokens, else the client tokenizer: counts.tokenSource). */
  output: HistogramSummary | null;
  outputIs: 'target' | 'cap';
  /**
   * Who counted the asked prompt lengths: iari's o200k tokenizer, or the server's own through its
   * `POST /tokenize` (--tokenizer server). Absent in load.json files written before it (o200k).
   */
  promptCountedBy?: PromptCountedBy;
  promptComparison: TokenComparison | null;
  outputComparison: TokenComparison | null;
  /** Requests that asked for a prompt length but got no usage.prompt_tokens. */
  promptUnreported: number;
  /** One sentence per difference of more than 5% between what was asked and what was received. */
  differences: string[];
}

/**
 * Reasoning-aware figures of the successful measured requests that streamed reasoning
 * (src/load/results/reasoning-report.ts): TTFO, the reasoning phase, reasoning tokens, ITL all vs answer.
 */
export interface ReasoningReport {
  /** Successful measured requests that streamed reasoning. */
  requests: number;
  /** How many of them reported usage.completion_tokens_details.reasoning_tokens (the others were counted). */
  fromUsage: number;
  reasoningTokens: number;
  /** Time to the first answer token (µs), from the same origin as ttft. */
  ttfo: HistogramSummary | null;
  /** TTFO − TTFT (µs): the reasoning phase as the client saw it. */
  reasoningPhase: HistogramSummary | null;
  /** Reasoning tokens per request. */
  reasoningTokensPerRequest: HistogramSummary | null;
  /** Per-token ITL over every token, reasoning included (µs). */
  itlAll: HistogramSummary | null;
  /** Per-token ITL between answer tokens only (µs): the gap from the last reasoning token to the first answer token is not in it. */
  itlAnswer: HistogramSummary | null;
}

/** Tool calls under load (--tools): how many requests called, and the invalid calls by kind (src/load/workloads/tool-calls.ts). */
export interface ToolCallReport {
  /** `builtin` or the --tools file. */
  tools: string;
  /** Successful measured requests that declared the tools. */
  requestsWithTools: number;
  /** Of those, the ones whose answer called at least one tool. */
  requestsCalling: number;
  callRate: number;
  calls: number;
  /** Calls cut by the request's output bound (the last call of an answer that ended at its max_tokens): not judged. Absent in files written before it existed. */
  cutCalls?: number;
  invalidCalls: number;
  /** invalidCalls / (calls - cutCalls) (SLO tool_calls.invalid_rate). */
  invalidRate: number;
  invalidByKind: { not_json: number; unknown_function: number; schema_mismatch: number };
  invalidRateByKind: { not_json: number; unknown_function: number; schema_mismatch: number };
  /** Requests with at least one invalid call. */
  requestsInvalid: number;
  /** Latency from the intended send to the first tool-call delta of the answers that called one (a whole answer: its end). */
  firstToolCall: HistogramSummary | null;
}

/** Prompt-cache figures from usage.prompt_tokens_details.cached_tokens (successful measured requests that report it). */
export interface CacheReport {
  requestsReporting: number;
  /** Successful measured requests whose usage had no cached_tokens. */
  requestsUnreported: number;
  /** usage.prompt_tokens summed over the reporting requests. */
  promptTokens: number;
  cachedTokens: number;
  /** cachedTokens / promptTokens. */
  hitRate: number;
  /** Requests with cached_tokens > 0. */
  hitRequests: number;
  requestHitRate: number;
  /** TTFT of the requests that hit (cached_tokens > 0) and of those that did not. */
  ttftHit: HistogramSummary | null;
  ttftMiss: HistogramSummary | null;
}

/** Conversation workloads (--turns): figures by turn index (1 = first) beside the totals. */
export interface TurnReport {
  /** closed: a conversation holds its slot until its last turn; open: arrivals are conversations. */
  loop: 'closed' | 'open';
  thinkTimeMs: number;
  conversationsStarted: number;
  conversationsCompleted: number;
  byTurn: {
    turn: number;
    /** The last row pools every later turn. */
    pooled: boolean;
    requests: number;
    ttft: HistogramSummary | null;
    /** usage.prompt_tokens by turn (unit: tokens, kept in the `us` slot of the histogram summary). */
    promptTokens: HistogramSummary | null;
    cachedTokensMean: number | null;
  }[];
}

/**
 * How the run used connections, and the connection reuse races it met (src/load/connection-reuse.ts):
 * measured requests written on a reused connection that closed before any byte of their answer.
 * Each was sent once more on a fresh connection; it is one request (counted once in `counts`), timed
 * from its intended send, and an error only when the retry failed (then in `errors` by its class).
 */
/** --connection-reuse: keep connections alive between requests (default), or open one per request. */
export const connectionReusePolicies = ['reuse', 'never'] as const;
export type ConnectionReuse = (typeof connectionReusePolicies)[number];

export interface ConnectionReuseReport {
  /** --connection-reuse: `reuse` kept-alive connections, or `never` (a new connection per request). */
  policy: 'reuse' | 'never';
  /** Requests that lost a race (each retried once on a fresh connection). */
  races: number;
  /** How the retries ended: answered, failed (counted among the errors), or still in flight at the end. */
  retried: { ok: number; failed: number; abortedAtEnd: number };
}

/**
 * --cancel-rate (src/load/executors/cancellation.ts): the requests the client cut, counted apart from
 * the errors and the samples (src/load/results/cancel-report.ts).
 */
export interface CancellationReport {
  /** --cancel-rate and --cancel-after as given. */
  rate: number;
  after: string;
  /** Measured requests the seeded plan chose to cut. */
  chosen: number;
  /** Of them, cut by the client (never errors, never in the latency figures). */
  cancelled: number;
  /** Of them, ended (answered or failed) before their cut point: counted as what they were. */
  endedFirst: number;
  /** Of them, still in flight when the run ended (in counts.abortedAtEnd). */
  abortedAtEnd: number;
  /** Time from the send to the cut, ms (null: nothing cut). */
  cutMs: { p50: number; p95: number; max: number; hdr: string } | null;
  /** Token-bearing events received before the cut. */
  cutTokens: { p50: number; max: number; mean: number; hdr: string } | null;
  /** When they were cut: before the first token (prefill, waiting in a queue included) or after it (decode). */
  phase: { prefill: number; decode: number };
  /** --server-metrics: how long the server held a cut request (src/server-metrics/cancel-release.ts); null: not measured. */
  release: ReleaseReport | null;
  /** --server-metrics: whether the server's running count came back to its pre-run level; null without --server-metrics (not observed). */
  leak: LeakFinding | null;
}

export interface ConnectionMeta {
  /** `none`: plain http; `verified`: certificates checked; `insecure`: --insecure. */
  tls: 'none' | 'verified' | 'insecure';
  /** Trusted roots: `node` (Node's bundled roots) and the files read (system bundle, --ca-file). */
  trust: string[];
  /** The proxy used (credentials removed), null when direct. */
  proxy: string | null;
  /** Names of the --header headers sent (values never written). */
  headers: string[];
}

export interface Counts {
  /** Requests started in the measured window (warmup excluded). */
  started: number;
  finished: number;
  ok: number;
  failed: number;
  /** Requests started during warmup (not in any other figure). */
  warmupExcluded: number;
  /** Still in flight when the run stopped (aborted at the end; not counted as errors). */
  abortedAtEnd: number;
  outputTokens: number;
  promptTokens: number;
  /** How output tokens were counted: server usage, client tokenizer, or both in one run. */
  tokenSource: 'usage' | 'tokenizer' | 'mixed' | 'none';
  /** Streamed chunks / SSE data events consumed (all checked). */
  events: number;
}

export interface Throughput {
  /** Measured window length in seconds. */
  windowS: number;
  /** Successful requests / window (failed requests are not throughput; the same as okRps). */
  rps: number;
  /** Successful requests / window. */
  okRps: number;
  /** Output tokens of successful requests / window. */
  outputTokensPerS: number;
  /** Open loop: requests actually started / window (compare with mode.rate). */
  achievedArrivalRate: number | null;
}

/** One second of the run; key = epoch second, so shards merge by key. */
export interface Timeslice {
  epochS: number;
  /** Seconds since measureStartEpochMs (may be negative for warmup; warmup slices are omitted). */
  tS: number;
  started: number;
  finished: number;
  ok: number;
  failed: number;
  outputTokens: number;
  /** Requests in flight at the end of the second. */
  inFlight: number;
  /** Encoded histograms of requests FINISHING in this second, so merged slices are exact. */
  ttftHdr: string;
  e2eHdr: string;
  itlHdr: string;
  ttftP50Us: number | null;
  ttftP99Us: number | null;
  e2eP50Us: number | null;
  e2eP99Us: number | null;
  itlP99Us: number | null;
}

export type SloOp = '<' | '<=' | '>' | '>=' | '==';

/** How the unmeasured priming request ended by the pre-window deadline (docs/load.md, "A run ends at its bound"). */
export interface Priming {
  outcome: 'complete' | 'incomplete';
  /** The pre-window deadline, ms. */
  deadlineMs: number;
  /** What was (not) received by then. */
  detail?: string;
}

export interface SloResult {
  /** As written on the command line, e.g. "ttft.p95<800ms". */
  expr: string;
  metric: string;
  /** A percentile key, 'mean', 'max', 'rate', 'count' or 'value'. */
  stat: string;
  op: SloOp;
  /** Threshold in the metric's canonical unit (µs for durations). */
  threshold: number;
  observed: number | null;
  unit: MetricUnit | 'ratio' | 'per_s' | 'count';
  /** Never true without data: an SLO whose metric had no sample in the window is not met. */
  passed: boolean;
  /** Why `observed` is null: the metric had no sample in the measured window (the SLO is then not met). */
  noData?: string;
  /** Whether this SLO is also applied to each request for goodput (per-request metrics). */
  perRequest: boolean;
  /** iari's default error-rate gate (docs/load.md, "Failed runs"), applied where no errors SLO was given. */
  isDefault?: true;
}

export interface Goodput {
  /** The per-request SLOs every good request met (empty: goodput = ok rps). */
  slos: string[];
  goodRequests: number;
  goodputRps: number;
  /** goodRequests / finished. */
  fraction: number;
}

export interface SweepStep {
  level: number;
  achievedRps: number;
  outputTokensPerS: number;
  ttftP95Us: number | null;
  ttftP99Us: number | null;
  itlP99Us: number | null;
  e2eP99Us: number | null;
  errorRate: number;
  goodputRps: number;
  slosMet: boolean;
  saturated: boolean;
  /** Median of the per-request output tokens/s (what one user sees); absent in files written before it. */
  perUserTokensPerS?: number | null;
  /** The SLO nearest to breaking: observed / threshold (threshold / observed for '>' SLOs); > 1 breaks it. */
  sloRatio?: number | null;
  /** Capacity search: how this run was chosen (`repeat`: the level again, its verdict being near the boundary). */
  phase?: 'bracket' | 'search' | 'repeat';
}

/** One level of a capacity search: its verdict over its runs (majority when repeated). */
export interface CapacityLevel {
  level: number;
  runs: number;
  met: boolean;
  /** Median SLO ratio over the runs (sweep step sloRatio). */
  sloRatio: number | null;
}

/** `iari load --find-capacity`: the highest level meeting every SLO, bracketed to within the tolerance. */
export interface CapacitySearch {
  tolerance: number;
  budgetS: number;
  /** The time one level may take, s (pre-window, warmup, duration, grace): the budget's unit. */
  levelBoundS: number;
  wallS: number;
  /** Highest level that met every SLO (null when none did). */
  capacity: number | null;
  /** Lowest level above it that broke one (null when none broke within the budget). */
  breaking: number | null;
  /** (breaking - capacity) / capacity. */
  relativeWidth: number | null;
  converged: boolean;
  levels: CapacityLevel[];
}

export interface Sweep {
  kind: 'rate' | 'concurrency';
  steps: SweepStep[];
  /** Highest level at which every SLO held (null when none did). */
  best: number | null;
  stopReason: 'slo_breached' | 'saturated' | 'max_steps' | 'errors' | 'interrupted' | 'converged' | 'budget' | 'none_met' | 'never_broke';
  /** Present when the steps are a capacity search (--find-capacity) rather than a sweep. */
  capacity?: CapacitySearch;
}

export interface ShardInfo {
  index: number;
  count: number;
}

export interface Validity {
  /** False when the client itself was too busy to time honestly. */
  valid: boolean;
  eventLoopLagP99Us: number;
  budgetUs: number;
  /** Open loop: p99 schedule lag. */
  scheduleLagP99Us: number | null;
  warnings: string[];
}

export interface LoadResult {
  meta: RunMeta;
  counts: Counts;
  throughput: Throughput;
  /** Only metrics that have samples are present. */
  metrics: Partial<Record<MetricName, HistogramSummary>>;
  errors: ErrorSummary;
  slos: SloResult[];
  /** Overall verdict on the SLOs: every SLO passed (true when there are none). */
  slosPassed: boolean;
  goodput: Goodput;
  timeslices: Timeslice[];
  sweep: Sweep | null;
  /** This run's share, or null when not sharded. */
  shard: ShardInfo | null;
  /** Set on a merged result: the runIds and shards it was built from. */
  mergedFrom: { runId: string; shard: ShardInfo | null }[] | null;
  validity: Validity;
  /** Present when the unmeasured priming request had not completed by the pre-window deadline (evidence, not a sample). */
  priming?: Priming;
  /** True when the run was stopped by Ctrl-C (SIGINT): the figures cover the window up to the interrupt. */
  interrupted?: boolean;
  /** A coordinated shard (--coordinator, --coordinate) or their merge: clocks, start skew, who stopped the run (results/coordination-report.ts; 0.1, issue 39). */
  coordination?: Coordination;
  /** Prompt and output token distributions, asked against received (absent in files written before it existed). */
  tokens?: TokenReport;
  /** Prompt-cache hits from usage.prompt_tokens_details.cached_tokens (absent when the server reported none). */
  cache?: CacheReport;
  /** Reasoning models: TTFO, the reasoning phase, reasoning tokens, ITL all vs answer (absent when no request streamed reasoning). */
  reasoning?: ReasoningReport;
  /** --tools: tool-call validity (absent without --tools). */
  toolCalls?: ToolCallReport;
  /** The scenario this run ran (src/load/plan/scenario.ts, LoadScenario): `iari load --scenario load.json` runs it again. Absent in files written before it existed and in merged results. */
  scenario?: Record<string, unknown>;
  /** Conversation workloads: per-turn figures (absent otherwise). */
  turns?: TurnReport;
  /** The sections an API adds (Protocol.resultSections: `embeddings`, ...), by key; their types live in the API's folder. */
  [apiSection: string]: unknown;
  /** Connection use and reuse races (absent in files written before it existed). */
  connectionReuse?: ConnectionReuseReport;
  /** --server-metrics: the server's /metrics read during the run, lined up and reconciled (absent without it). */
  server?: ServerSection;
  /** --cancel-rate: the requests the client cut (absent without it). */
  cancellation?: CancellationReport;
}

/** One line of `requests.ndjson`. Times in µs relative to the run's measureStartEpochMs. */
export interface RequestRecord {
  seq: number;
  shard: number | null;
  /** `aborted`: still in flight when the run ended (no timings, not an error); `cancelled`: cut by the client (--cancel-rate; not an error, not a sample). */
  phase: 'warmup' | 'measure' | 'aborted' | 'cancelled';
  requestId: string | null;
  status: number | null;
  /** Intended send (open loop) or actual send (closed loop), µs since measure start. */
  intendedUs: number;
  sentUs: number;
  ttfbUs: number | null;
  ttftUs: number | null;
  e2eUs: number | null;
  outputTokens: number;
  tokenSource: 'usage' | 'tokenizer' | 'none';
  /** usage.prompt_tokens (0: not reported). */
  promptTokens?: number;
  /** usage.prompt_tokens_details.cached_tokens (absent: not reported). */
  cachedTokens?: number;
  /** Reasoning models: reasoning tokens (usage.completion_tokens_details.reasoning_tokens, else counted) and the time to the first answer token. */
  reasoningTokens?: number;
  ttfoUs?: number | null;
  /** Conversations: the turn (1 = first) and the conversation's number. */
  turn?: number;
  conversation?: number;
  /** Embeddings: the inputs the answer embedded. */
  inputs?: number;
  /** What the request asked for (token-length workloads): prompt length and max_tokens. */
  requested?: { prompt: number | null; output: number | null };
  events: number;
  itlMeanUs: number | null;
  itlMaxUs: number | null;
  tpotUs: number | null;
  error: { class: ErrorClass; detail: string } | null;
  /** A connection reuse race: the request was sent once more on a fresh connection at this time (µs since measure start). */
  retriedUs?: number;
  /** Cut by the client: when (µs since measure start) and how many token-bearing events had arrived. */
  cancelled?: { atUs: number; tokens: number };
  /** Met every per-request SLO (goodput). */
  good: boolean;
}
