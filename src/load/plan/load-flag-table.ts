// Every flag of `iari load`, defined once: a row says the flag, the option (or scenario field) it
// writes, how its text is read, its range, its help and its section. From these rows come the
// flags iari load parses (src/cli/load-flags.ts), its --help (src/cli/load-help.ts), the ranges the
// one validator, the library and the scenario schema check (NUMBER_RULES in load-option-names.ts,
// scenario-schema.ts), and the name runScenario gives the field in its messages (scenario.ts).
// Adding a flag is a row here; what it does is the validator's and the run's.

import type { NumberRule } from '../../flag-messages.ts';
import type { TableFlag } from '../../flag-table.ts';

export { choiceMessage, numberMessage, type NumberRule } from '../../flag-messages.ts';
export { choicesOf, flagChoice, flagNumber, flagSpecOf, headOf, numberRulesOf } from '../../flag-table.ts';


/**
 * How the flag's text becomes its option: `number` is checked against `rule` (the same range for the
 * flag's text, runLoad's number and the scenario file); `switch` a boolean; `list` repeatable;
 * `shared` parsed and documented with iari test's connection flags (connection-options.ts).
 */
export type FlagParse = 'text' | 'number' | 'switch' | 'list' | 'shared';

/** The help's sections, in order (`connection` is iari test's section, connection-options.ts). */
export const LOAD_SECTIONS = {
  scenario: 'Scenario:',
  load: 'Load:',
  requests: 'Requests:',
  target: 'Target:',
  connection: '',
  workload: 'Workload (token lengths; prompts counted with the o200k tokenizer):',
  trace: 'Trace replay (open loop; arrivals and lengths from the trace, latency from its intended times):',
  ab: 'A/B in one run:',
  server: "Server metrics (the server's own Prometheus counters, lined up with the client's; docs/server-metrics.md):",
  thresholds: 'Thresholds (exit 3 when one is breached; a malformed one exits 2 before any traffic):',
  output: 'Output:',
} as const;

export type LoadSection = keyof typeof LOAD_SECTIONS;

/** A row of the generic table (src/flag-table.ts) that also says where its option sits in a scenario. */
export interface LoadFlag extends TableFlag<LoadSection, FlagParse> {
  /** The LoadOptions (runLoad) or ShellLoadOptions key it writes; none: the CLI reads it itself. */
  option?: string;
  /** Where the option sits in a scenario (runScenario's name for it), when not at the option's own name. */
  path?: string;
  /** Why runLoad has no option for it (src/library/options-parity.test.ts holds every flag to an option or a reason). */
  cliOnly?: string;
  /** Its scenario field's JSON Schema, when not the one its range, set or kind gives (scenario-fields.ts). */
  schema?: Readonly<Record<string, unknown>>;
}

export const LOAD_FLAGS = [
  {
    flag: 'scenario', arg: "FILE", section: 'scenario', parse: 'text', cliOnly: "runScenario takes the scenario itself",
    help: ["a run as one YAML or JSON file (target, executor, workload, request, run,", "search, cancellation, slos; docs/load.md \"Scenario files\", examples/*.yaml),", "or a load.json (the scenario it recorded: the same run again); the flags", "below win over it"],
  },
  {
    flag: 'concurrency', arg: "N", section: 'load', parse: 'number', option: 'concurrency', path: "executor.concurrency", rule: {min: 1,max: 10000,integer: true},
    help: ["closed loop: N requests in flight (default 8; engine autocannon)"],
  },
  {
    flag: 'rate', arg: "R", section: 'load', parse: 'number', option: 'rate', path: "executor.rate", rule: {min: 0.01,max: 100000,integer: false},
    help: ["open loop: R arrivals per second, latency from the intended send time"],
  },
  {
    flag: 'arrival', choices: ['constant', 'poisson', 'gamma'], section: 'load', parse: 'text', option: 'arrival', path: "executor.arrival",
    help: ["open-loop arrival process (default constant; seeded;", "Poisson holds exactly R x duration arrivals in the measured window)"],
  },
  {
    flag: 'burstiness', arg: "K", section: 'load', parse: 'number', option: 'burstiness', path: "executor.burstiness", rule: {min: 0.01,max: 100,integer: false},
    help: ["gamma arrivals: gaps of shape K and mean 1/R (vLLM's --burstiness);", "K < 1 burstier than Poisson, K = 1 Poisson, K > 1 more regular (default 1)"],
  },
  {
    flag: 'max-concurrency', arg: "N", section: 'load', parse: 'number', option: 'maxConcurrency', path: "executor.maxConcurrency", rule: {min: 1,max: 100000,integer: true},
    help: ["open loop capped at N requests in flight (as vLLM's): a due arrival", "waits for a slot; reported as its own mode, since the cap reintroduces", "coordinated omission (latency still counts from the intended time; the", "wait shows as schedule lag)"],
  },
  {
    flag: 'ramp', arg: "D", section: 'load', parse: 'text', option: 'ramp', path: "executor.ramp",
    help: ["open loop: the rate rises to --rate over the first D (e.g. 30s), then", "stays; the same seeded arrivals, sent on a ramped clock (time rescaling)"],
  },
  {
    flag: 'ramp-shape', choices: ['linear', 'exponential'], section: 'load', parse: 'text', option: 'rampShape', path: "executor.rampShape",
    help: ["linear from 0 (default), or exponential from 1% of the rate"],
  },
  {
    flag: 'engine', choices: ['autocannon', 'undici'], section: 'load', parse: 'text', option: 'engine', path: "executor.engine",
    help: ["closed-loop engine (default autocannon)"],
  },
  {
    flag: 'connection-reuse', choices: ['reuse', 'never'], section: 'load', parse: 'text', option: 'connectionReuse', path: "target.connectionReuse",
    help: ["reuse kept-alive connections (default), or open a new", "connection per request (it asks Connection: close). With reuse, a request", "written on a kept-alive connection the server closed before any byte of", "the answer (a server that says keep-alive and closes after a stream, as", "llama.cpp's does) is a reuse race: sent once more on a fresh connection,", "counted on its own line and in load.json, never a server error. Use never", "to measure without those races, or when each user of the service opens", "its own connection (connection setup is then in every TTFT)"],
  },
  {
    flag: 'duration', arg: "D", section: 'load', parse: 'text', option: 'duration', path: "run.duration",
    help: ["measured time, e.g. 10s, 500ms, 2m, 1m30s; a bare number is seconds", "(every D below alike) (default 10s unless --requests); at most 24h: records", "stream to requests.ndjson as they finish, so memory does not grow with the", "run; over 1h a single run (not --sweep, --find-capacity, --ab, --repeat,", "--server-metrics)"],
  },
  {
    flag: 'requests', arg: "N", section: 'load', parse: 'number', option: 'requests', path: "run.requests", rule: {min: 1,max: 10000000,integer: true},
    help: ["stop after N measured requests (bounded by 600 s)"],
  },
  {
    flag: 'warmup', arg: "D", section: 'load', parse: 'text', option: 'warmup', path: "run.warmup",
    help: ["time before measuring; its requests are excluded (default 0)"],
  },
  {
    flag: 'sweep', section: 'load', parse: 'switch', option: 'sweep', path: "search.kind sweep", cliOnly: "the CLI steps runs; a program calls runLoad per level",
    help: ["step the rate/concurrency up (x2 per step, each --duration long)"],
  },
  {
    flag: 'sweep-steps', arg: "N", section: 'load', parse: 'number', option: 'sweepSteps', path: "search.steps", rule: {min: 1,max: 20,integer: true}, cliOnly: "with --sweep",
    help: ["at most N steps (default 6)"],
  },
  {
    flag: 'find-capacity', section: 'load', parse: 'switch', option: 'findCapacity', path: "search.kind capacity", cliOnly: "the CLI searches levels (capacity-search.ts); a program calls runLoad per level",
    help: ["search for the highest rate (with --rate) or concurrency meeting every", "--slo: doubles (or halves) from the given level until one breaks, then", "interpolates between the last level that held and the first that broke", "until the interval is within --tolerance; a level that breaks an SLO or", "is within 10% of a threshold is run again (best of 3); each run lasts", "--duration; report.html plots the runs' Pareto view"],
  },
  {
    flag: 'tolerance', arg: "P", section: 'load', parse: 'text', option: 'tolerance', path: "search.tolerance", cliOnly: "with --find-capacity",
    help: ["relative width of the final interval (default 5%; 0.1%..50%)"],
  },
  {
    flag: 'budget', arg: "D", section: 'load', parse: 'text', option: 'budget', path: "search.budget", cliOnly: "with --find-capacity",
    help: ["total time of the search (default 10m): no level starts that could end", "past it; the bound is printed before any traffic"],
  },
  {
    flag: 'repeat', arg: "N", section: 'load', parse: 'number', option: 'repeat', path: "search.times", rule: {min: 2,max: 20,integer: true}, cliOnly: "the CLI repeats runs; a program calls runLoad again",
    help: ["run the same configuration N times (2..20): each metric's mean, t-based", "95% interval and coefficient of variation, CV > 10% flagged unstable;", "load.json (the first run) gains repeat.values, which iari report compare", "tests by Welch's t over the runs; the other runs go to run-<i>/"],
  },
  {
    flag: 'shard', arg: "i/n", section: 'load', parse: 'text', option: 'shard', path: "run.shard",
    help: ["run share i of n (0 <= i < n); merge with: iari report merge DIR..."],
  },
  {
    flag: 'coordinate', arg: "ADDR", section: 'load', parse: 'text', cliOnly: "the CLI serves the coordination endpoint (src/load/coordination/coordinator.ts startCoordinator)",
    help: ["serve the coordination endpoint on HOST:PORT (e.g. 0.0.0.0:7070): shards", "register, probe their clock offset, start at one agreed instant, send", "heartbeats; one dead (no heartbeat for 1 s) or breaching an error-rate", "SLO stops the others; a live merged line a second; the merged report", "goes to <report>/merged (with --shard 0/n) or to --report (with --shards)"],
  },
  {
    flag: 'coordinator', arg: "URL", section: 'load', parse: 'text', cliOnly: "the CLI joins a coordinator (src/load/coordination/shard-client.ts, runLoad's startGate)",
    help: ["join the coordinator at URL as --shard i/n"],
  },
  {
    flag: 'shards', arg: "N", section: 'load', parse: 'text', cliOnly: "with --coordinate, when the coordinator runs no shard",
    help: ["with --coordinate and no --shard: coordinate N shards, run none"],
  },
  {
    flag: 'run-token-env', arg: "VAR", section: 'load', parse: 'text', cliOnly: "with --coordinate / --coordinator (a token source)",
    help: ["the run token shards present to the coordinator (default IARI_RUN_TOKEN;", "never the server's token)"],
  },
  {
    flag: 'register-timeout', arg: "D", section: 'load', parse: 'text', cliOnly: "with --coordinate / --coordinator",
    help: ["how long every shard has to register (default 60s); a shard that", "has not fails the run, named (exit 2)"],
  },
  {
    flag: 'prompts', arg: "FILE", section: 'requests', parse: 'text', option: 'prompts', path: "workload prompts.file",
    help: ["JSONL: {\"messages\":[...]} or {\"prompt\":\"...\"} per line (default: built-in mix)"],
  },
  {
    flag: 'max-tokens', arg: "N", section: 'requests', parse: 'number', option: 'maxTokens', path: "request.maxTokens", rule: {min: 1,max: 100000,integer: true},
    help: ["max_tokens of every request (default 64)"],
  },
  {
    flag: 'model', arg: "ID", section: 'requests', parse: 'text', option: 'model', path: "target.model",
    help: ["model to ask for (default: the first of GET /v1/models)"],
  },
  {
    flag: 'stream', head: '--stream | --no-stream', negatedBy: 'no-stream', section: 'requests', parse: 'switch', option: 'stream', path: "request.stream",
    help: ["streamed (default) or whole responses"],
  },
  {
    flag: 'timeout', arg: "D", section: 'requests', parse: 'text', option: 'timeout', path: "request.timeout",
    help: ["idle timeout, reset on every byte (default 30s)"],
  },
  {
    flag: 'request-timeout', arg: "D", section: 'requests', parse: 'text', option: 'requestTimeout', path: "request.requestTimeout",
    help: ["total deadline of one request, body included (default 120s); a response", "still arriving then (an endless or dribbled stream) is a timeout error.", "The run itself ends at its bound: in-flight requests get 5s after it,", "then are aborted and counted as \"aborted at end\""],
  },
  {
    flag: 'cancel-rate', arg: "P", section: 'requests', parse: 'number', option: 'cancelRate', path: "cancellation.rate", rule: {min: 0,max: 1,integer: false,aboveMin: true},
    help: ["the client cuts a share P (0 < P <= 1) of its requests, chosen by --seed", "(the same requests and points on every run): each is aborted on the wire", "(its socket destroyed), counted apart, never an error and never in the", "latency percentiles; goodput and the error rate are over the rest. With", "--server-metrics: how fast the server released each cut, and whether its", "running count came back to its pre-run level (a leak finding). Closed", "loop runs on the undici engine (autocannon cannot cut one request)"],
  },
  {
    flag: 'cancel-after', arg: "WHERE", section: 'requests', parse: 'text', option: 'cancelAfter', path: "cancellation.after",
    help: ["where a request is cut: D after its send (e.g. 500ms); Ntokens, after N", "tokens (16tokens); prefill, at the head of the answer before the first", "token; decode (default), after k tokens, k seeded from 1 to max_tokens - 1.", "A request that ends first counts as what it was. Tokens need a stream"],
  },
  {
    flag: 'seed', arg: "N", section: 'requests', parse: 'number', option: 'seed', path: "run.seed", rule: {min: 0,max: 2147483647,integer: true},
    help: ["seed for arrivals and prompt order (default 1)"],
  },
  {
    flag: 'base-url', arg: "URL", section: 'target', parse: 'text', option: 'baseUrl', path: "target.baseUrl",
    help: ["the server to load, http(s)://host[:port][/v1] (default: the bundled", "mock); before any traffic to a host that is not loopback, a line", "names the target, the mode and the bound"],
  },
  {
    flag: 'token-env', arg: "NAME", section: 'target', parse: 'text', cliOnly: "the token option (never the environment)",
    help: ["environment variable holding the bearer token (default IARI_TOKEN; with", "none named and IARI_TOKEN unset, requests carry no Authorization)"],
  },
  {
    flag: 'token-file', arg: "PATH", section: 'target', parse: 'text', cliOnly: "the token option (never a file)",
    help: ["file holding the bearer token"],
  },
  // connection: iari test's rows (connection-options.ts)
  { flag: 'ca-file', section: 'connection', parse: 'shared', option: 'caFile', path: 'target.caFile', schema: { type: 'string', minLength: 1, description: "a private CA (PEM) trusted besides the system's" } },
  { flag: 'insecure', section: 'connection', parse: 'shared', option: 'insecure', path: 'target.insecure', schema: { type: 'boolean' } },
  { flag: 'header', section: 'connection', parse: 'shared', option: 'headers', path: 'target.headers', schema: { type: 'object', additionalProperties: { type: 'string' }, description: 'extra request headers, literal values' } },
  {
    flag: 'input-tokens', arg: "MEAN[,STDEV]", section: 'workload', parse: 'text', option: 'inputTokens', path: "workload synthetic.inputTokens",
    help: ["synthetic prompts of MEAN tokens (normal, STDEV default 0),", "different for every request, reproducible with --seed"],
  },
  {
    flag: 'tokenizer', choices: ['o200k', 'server'], section: 'workload', parse: 'text', option: 'tokenizer', path: "workload synthetic.tokenizer",
    help: ["who counts --input-tokens (default o200k): server asks the server's", "POST /tokenize (llama.cpp) for every prompt word before any traffic and", "refuses to start (exit 2) when it cannot; only with --input-tokens", "(datasets, prefixes, turns and embeddings later)"],
  },
  {
    flag: 'output-tokens', arg: "MEAN[,STDEV]", section: 'workload', parse: 'text', option: 'outputTokens', path: "request.outputTokens",
    help: ["output length per request, sent as max_tokens; servers stop", "early at their end-of-sequence token unless asked not to, e.g.", "--extra-body '{\"ignore_eos\":true}' (vLLM, llama.cpp)"],
  },
  {
    flag: 'max-tokens-field', choices: ['max_tokens', 'max_completion_tokens', 'both'], section: 'workload', parse: 'text', option: 'maxTokensField', path: "request.maxTokensField",
    help: ["where the length goes (default max_tokens)"],
  },
  {
    flag: 'extra-body', arg: "JSON", section: 'workload', parse: 'text', option: 'extraBody', path: "request.extraBody",
    schema: { type: ['object', 'string'], description: 'merged into every request body: an object, JSON text or @FILE' },
    help: ["object merged into every request body (or @FILE), e.g.", "'{\"ignore_eos\":true,\"min_tokens\":128}'; written to load.json as given"],
  },
  {
    flag: 'dataset', arg: "FILE", section: 'workload', parse: 'text', option: 'dataset', path: "workload dataset.file",
    help: ["ShareGPT conversations (JSON array or JSONL, as vLLM bench reads them:", "first turn = prompt, second = reference answer, its length = output", "length) or iari JSONL ({\"prompt\"|\"messages\", \"max_tokens\"?} per line)"],
  },
  {
    flag: 'dataset-size', arg: "N", section: 'workload', parse: 'number', option: 'datasetSize', path: "workload dataset.size", rule: {min: 1,max: 100000,integer: true},
    help: ["conversations kept from the dataset, a seeded sample (default 1000)"],
  },
  {
    flag: 'prefix-tokens', arg: "N", section: 'workload', parse: 'number', option: 'prefixTokens', path: "workload prefixes.tokens", rule: {min: 1,max: 200000,integer: true},
    help: ["every request starts with a shared system prompt of N tokens (the same", "text across requests, so a prefix cache can serve it); the report", "reads usage.prompt_tokens_details.cached_tokens: hit rate, TTFT hit/miss"],
  },
  {
    flag: 'prefix-groups', arg: "G", section: 'workload', parse: 'number', option: 'prefixGroups', path: "workload prefixes.groups", rule: {min: 1,max: 10000,integer: true},
    help: ["G different shared prefixes, one drawn per request (default 1)"],
  },
  {
    flag: 'turns', arg: "N[,SD]", section: 'workload', parse: 'text', option: 'turns', path: "workload conversations.turns",
    help: ["multi-turn conversations of N turns (normal, SD default 0): each turn", "sends the whole history with the server's own answers; with --dataset,", "ShareGPT conversations (or iari lines with several user messages) replay", "their own turns, at most N+4SD. Closed loop: a conversation holds its", "slot; open loop (--rate): the arrivals are conversations. The report", "gives TTFT and prompt tokens by turn"],
  },
  {
    flag: 'think-time', arg: "D", section: 'workload', parse: 'text', option: 'thinkTime', path: "workload conversations.thinkTime",
    help: ["pause between an answer and the next turn, e.g. 2s (default 0)"],
  },
  {
    flag: 'chain', choices: ['resend', 'previous-response-id'], section: 'workload', parse: 'text', option: 'chain', path: "workload conversations.chain",
    help: ["how later turns are sent: the whole history (default), or only the new", "turn naming the answer the server kept (previous_response_id; --api", "responses); cached tokens from usage.input_tokens_details.cached_tokens"],
  },
  {
    flag: 'tools', arg: "builtin|FILE", section: 'workload', parse: 'text', option: 'tools', path: "workload tools.tools",
    help: ["requests declare tools (builtin: get_weather, search_flights; FILE: a JSON", "array of {\"type\":\"function\",\"function\":{name, parameters}}); every tool", "call is judged: arguments not JSON, unknown function, schema mismatch", "(rates by kind; SLO tool_calls.invalid_rate<0.01)"],
  },
  {
    flag: 'tool-share', arg: "P", section: 'workload', parse: 'number', option: 'toolShare', path: "workload tools.share", rule: {min: 0,max: 1,integer: false,aboveMin: true},
    help: ["share of requests that declare the tools, seeded (default 1)"],
  },
  {
    // Compat, CreateEmbeddingRequest.input: "any array must be 2048 dimensions or less".
    flag: 'embeddings-batch', arg: "N", section: 'workload', parse: 'number', option: 'embeddingsBatch', path: "workload embeddings.batch", rule: {min: 1,max: 2048,integer: true},
    help: ["POST /v1/embeddings instead of chat completions, N inputs per request", "(1..2048); the texts come from --input-tokens, --dataset or --prompts;", "every answer is checked (EMB-*); reports inputs/s, prompt tokens/s and", "the batch size; TTFT, ITL and TPOT do not apply (whole answers)"],
  },
  {
    flag: 'embeddings-format', choices: ['float', 'base64'], section: 'workload', parse: 'text', option: 'embeddingsFormat', path: "workload embeddings.encodingFormat",
    help: ["encoding_format of every request (default: none sent, floats)"],
  },
  {
    flag: 'api', arg: "chat-completions|responses|embeddings", section: 'workload', parse: 'text', option: 'api', path: "request.api",
    help: ["the API the requests go to (default: embeddings with --embeddings-batch,", "else chat-completions); responses: POST /v1/responses, every stream checked", "as a state machine (RESP-STREAM-*), TTFT at the first text or arguments delta,", "output tokens from usage.output_tokens, cached from input_tokens_details"],
  },
  {
    flag: 'trace', arg: "FILE", section: 'trace', parse: 'text', option: 'trace', path: "workload trace.file",
    help: ["Mooncake JSONL ({\"timestamp\":ms,\"input_length\",\"output_length\",\"hash_ids\"}:", "each hash id one shared 512-token block of the prompt, so a prefix cache", "sees the trace's sharing) or BurstGPT CSV (Timestamp in s, Request tokens,", "Response tokens; rows with 0 response tokens skipped); a bad line exits 2", "naming the file and line, before any traffic. The run lasts the trace", "(or --duration / --requests, whichever ends first)"],
  },
  {
    flag: 'trace-format', choices: ['mooncake', 'burstgpt'], section: 'trace', parse: 'text', option: 'traceFormat', path: "workload trace.format",
    help: ["default: from the first line"],
  },
  {
    flag: 'trace-speed', arg: "X", section: 'trace', parse: 'number', option: 'traceSpeed', path: "executor.speed", rule: {min: 0.001,max: 10000,integer: false},
    help: ["replay X times as fast (default 1; 0.5 = half speed)"],
  },
  {
    flag: 'trace-window', arg: "START-END", section: 'trace', parse: 'text', option: 'traceWindow', path: "executor.window",
    help: ["replay only this part of the trace, in trace time, e.g. 60s-120s,", "10m- (to the end); default: from its first timestamp to its end"],
  },
  {
    flag: 'ab', arg: "URL_B", section: 'ab', parse: 'text', option: 'ab', path: "search.kind ab (search.baseUrl)", cliOnly: "two servers in one run: runScenario's search kind ab (load/search/ab-blocks.ts, ab-random.ts); a program calls runLoad per block",
    help: ["send the same workload to --base-url (A) and to URL_B (B) in one run, so", "the machine's drift hits both alike; --duration is the measured time of", "both sides together (default 60s with --ab). load.json is side A with an", "\"ab\" section (side B and every pair of blocks); iari report compare RUN", "compares B with A pair by pair (sign test of the median change). Not with", "--sweep, --find-capacity, --repeat, --shard, --requests or --trace"],
  },
  {
    flag: 'ab-assign', choices: ['blocks', 'random'], section: 'ab', parse: 'text', option: 'abAssign', path: "search.assign", cliOnly: "with --ab",
    help: ["blocks (default): one side at a time, A B, B A, A B, ... (for builds that", "share hardware); the first block of each side also warms up. random: each", "request to A or B by a seeded coin (--seed), both at once, on the undici", "engine; a busy second then falls on both sides alike. Pairs are windows", "of --ab-block"],
  },
  {
    flag: 'ab-block', arg: "D", section: 'ab', parse: 'text', option: 'abBlock', path: "search.block", cliOnly: "with --ab",
    help: ["one block, or one window with random (default 3s; 1s..60s); needs >= 6 pairs"],
  },
  {
    flag: 'ab-block-requests', arg: "N", section: 'ab', parse: 'number', option: 'abBlockRequests', path: "search.blockRequests", rule: {min: 2,max: 100000,integer: true}, cliOnly: "with --ab",
    help: ["blocks: each block ends after N measured requests (up to 10 blocks' time),", "so a busy client still fills it; a percentile is compared over pairs", "whose blocks both hold enough (p95: 20)"],
  },
  {
    flag: 'ab-token-env', arg: "NAME", section: 'ab', parse: 'text', cliOnly: "with --ab (a token source: runScenario's abTokenB hook)",
    help: ["environment variable holding B's token; without it B gets A's token only", "on A's origin (A's token is never sent elsewhere); it may name A's", "variable. --header values go to both on one origin, and are refused", "with B on another origin"],
  },
  {
    flag: 'server-metrics', arg: "[URL]", section: 'server', parse: 'text', cliOnly: "the serverMetrics option of the run config (src/server-metrics/flags.ts)",
    help: ["read URL (default: the target's origin + /metrics) before the first request,", "every interval while the run goes, and after the last: load.json gets a", "server section (per second, summaries, and whether the server's counters", "agree with the answers' usage), report.html plots it beside the client's.", "The run's token goes only to the target's own origin, and only when the", "endpoint answers 401/403 without it. A failed read is reported, never fatal"],
  },
  {
    flag: 'server-metrics-interval', arg: "D", section: 'server', parse: 'text', cliOnly: "with --server-metrics",
    help: ["time between reads (default 500ms; 100ms..60s)"],
  },
  {
    flag: 'server-metrics-header', arg: "'Name: value'", section: 'server', parse: 'list', cliOnly: "with --server-metrics",
    help: ["sent to the metrics URL only (repeatable; 'Name: env:VAR' reads the", "value from the environment and keeps it out of reports)"],
  },
  {
    flag: 'slo', arg: "EXPR", section: 'thresholds', parse: 'list', option: 'slo', path: "slos",
    help: ["repeatable, e.g. 'ttft.p95<800ms' 'itl.p99<50ms' 'errors.rate<0.01'"],
  },
  {
    flag: 'report', arg: "DIR", section: 'output', parse: 'text', option: 'report', cliOnly: "runLoad writes no files",
    help: ["write load.json, requests.ndjson, junit.xml, report.html there", "(default reports/<run-id>/)"],
  },
  {
    flag: 'json', section: 'output', parse: 'switch', option: 'json', cliOnly: "runLoad returns the result",
    help: ["print load.json to stdout instead of the summary table"],
  },
  {
    flag: 'quiet', section: 'output', parse: 'switch', option: 'quiet', cliOnly: "runLoad prints nothing",
    help: ["no progress line"],
  },
] as const satisfies readonly LoadFlag[];

export type LoadFlagRow = (typeof LOAD_FLAGS)[number];
/** The options with a numeric range (a row with a rule). */
export type NumberOption = Extract<LoadFlagRow, { rule: NumberRule }>['option'];
/** The options with a closed set of values (a row with choices). */
export type ChoiceOption = Extract<LoadFlagRow, { choices: readonly string[] }>['option'];

/** Each option's place in a scenario. */
export function scenarioPathsOf(rows: readonly LoadFlag[]): Record<string, string> {
  return Object.fromEntries(rows.flatMap((r) => (r.option !== undefined && r.path !== undefined ? [[r.option, r.path]] : [])));
}

/** The options runLoad takes: every row's option but those only the CLI reads (cliOnly), and the token and signal no flag gives. */
export type RunLoadOptionKey = Extract<Exclude<LoadFlagRow, { cliOnly: string }>, { option: string }>['option'] | 'token' | 'signal';
export const RUN_LOAD_OPTION_KEYS: readonly RunLoadOptionKey[] = ['token', 'signal', ...(LOAD_FLAGS as readonly LoadFlag[]).flatMap((r) => (r.option !== undefined && r.cliOnly === undefined ? [r.option as RunLoadOptionKey] : []))];
