// iari load --help, from one table: every flag of `iari load` is a row here (a test holds the rows
// to the flags loadFlagSpec parses), the connection rows are iari test's too (connection-options.ts),
// and the SLO metrics are listed from the metric tables (slo.ts).
import { renderSections, type FlagSection } from '../flag-help.ts';
import { connectionHelpSection } from '../client/connection-options.ts';
import { sloHelp } from '../load/results/slo.ts';

export const LOAD_HELP_SECTIONS: readonly FlagSection[] = [
  {
    title: 'Scenario:',
    rows: [
      { head: '--scenario FILE', flags: ['scenario'], help: ['a run as one YAML or JSON file (target, executor, workload, request, run,', 'search, cancellation, slos; docs/load.md "Scenario files", examples/*.yaml),', 'or a load.json (the scenario it recorded: the same run again); the flags', 'below win over it'] },
    ],
  },
  {
    title: 'Load:',
    rows: [
      { head: '--concurrency N', flags: ['concurrency'], help: ['closed loop: N requests in flight (default 8; engine autocannon)'] },
      { head: '--rate R', flags: ['rate'], help: ['open loop: R arrivals per second, latency from the intended send time'] },
      { head: '--arrival constant|poisson|gamma', flags: ['arrival'], help: ['open-loop arrival process (default constant; seeded;', 'Poisson holds exactly R x duration arrivals in the measured window)'] },
      { head: '--burstiness K', flags: ['burstiness'], help: ["gamma arrivals: gaps of shape K and mean 1/R (vLLM's --burstiness);", 'K < 1 burstier than Poisson, K = 1 Poisson, K > 1 more regular (default 1)'] },
      { head: '--max-concurrency N', flags: ['max-concurrency'], help: ["open loop capped at N requests in flight (as vLLM's): a due arrival", 'waits for a slot; reported as its own mode, since the cap reintroduces', 'coordinated omission (latency still counts from the intended time; the', 'wait shows as schedule lag)'] },
      { head: '--ramp D', flags: ['ramp'], help: ['open loop: the rate rises to --rate over the first D (e.g. 30s), then', 'stays; the same seeded arrivals, sent on a ramped clock (time rescaling)'] },
      { head: '--ramp-shape linear|exponential', flags: ['ramp-shape'], help: ['linear from 0 (default), or exponential from 1% of the rate'] },
      { head: '--engine autocannon|undici', flags: ['engine'], help: ['closed-loop engine (default autocannon)'] },
      { head: '--connection-reuse reuse|never', flags: ['connection-reuse'], help: ['reuse kept-alive connections (default), or open a new', 'connection per request (it asks Connection: close). With reuse, a request', 'written on a kept-alive connection the server closed before any byte of', 'the answer (a server that says keep-alive and closes after a stream, as', "llama.cpp's does) is a reuse race: sent once more on a fresh connection,", 'counted on its own line and in load.json, never a server error. Use never', 'to measure without those races, or when each user of the service opens', 'its own connection (connection setup is then in every TTFT)'] },
      { head: '--duration D', flags: ['duration'], help: ['measured time, e.g. 10s, 500ms, 2m, 1m30s; a bare number is seconds', '(every D below alike) (default 10s unless --requests)'] },
      { head: '--requests N', flags: ['requests'], help: ['stop after N measured requests (bounded by 600 s)'] },
      { head: '--warmup D', flags: ['warmup'], help: ['time before measuring; its requests are excluded (default 0)'] },
      { head: '--sweep', flags: ['sweep'], help: ['step the rate/concurrency up (x2 per step, each --duration long)'] },
      { head: '--sweep-steps N', flags: ['sweep-steps'], help: ['at most N steps (default 6)'] },
      { head: '--find-capacity', flags: ['find-capacity'], help: ['search for the highest rate (with --rate) or concurrency meeting every', '--slo: doubles (or halves) from the given level until one breaks, then', 'interpolates between the last level that held and the first that broke', 'until the interval is within --tolerance; a level that breaks an SLO or', 'is within 10% of a threshold is run again (best of 3); each run lasts', "--duration; report.html plots the runs' Pareto view"] },
      { head: '--tolerance P', flags: ['tolerance'], help: ['relative width of the final interval (default 5%; 0.1%..50%)'] },
      { head: '--budget D', flags: ['budget'], help: ['total time of the search (default 10m): no level starts that could end', 'past it; the bound is printed before any traffic'] },
      { head: '--repeat N', flags: ['repeat'], help: ["run the same configuration N times (2..20): each metric's mean, t-based", '95% interval and coefficient of variation, CV > 10% flagged unstable;', 'load.json (the first run) gains repeat.values, which iari report compare', "tests by Welch's t over the runs; the other runs go to run-<i>/"] },
      { head: '--shard i/n', flags: ['shard'], help: ['run share i of n (0 <= i < n); merge with: iari report merge DIR...'] },
      { head: '--coordinate ADDR', flags: ['coordinate'], help: ['serve the coordination endpoint on HOST:PORT (e.g. 0.0.0.0:7070): shards', 'register, probe their clock offset, start at one agreed instant, send', 'heartbeats; one dead (no heartbeat for 1 s) or breaching an error-rate', 'SLO stops the others; a live merged line a second; the merged report', 'goes to <report>/merged (with --shard 0/n) or to --report (with --shards)'] },
      { head: '--coordinator URL', flags: ['coordinator'], help: ['join the coordinator at URL as --shard i/n'] },
      { head: '--shards N', flags: ['shards'], help: ['with --coordinate and no --shard: coordinate N shards, run none'] },
      { head: '--run-token-env VAR', flags: ['run-token-env'], help: ["the run token shards present to the coordinator (default IARI_RUN_TOKEN;", "never the server's token)"] },
      { head: '--register-timeout D', flags: ['register-timeout'], help: ['how long every shard has to register (default 60s); a shard that', 'has not fails the run, named (exit 2)'] },
    ],
  },
  {
    title: 'Requests:',
    rows: [
      { head: '--prompts FILE', flags: ['prompts'], help: ['JSONL: {"messages":[...]} or {"prompt":"..."} per line (default: built-in mix)'] },
      { head: '--max-tokens N', flags: ['max-tokens'], help: ['max_tokens of every request (default 64)'] },
      { head: '--model ID', flags: ['model'], help: ['model to ask for (default: the first of GET /v1/models)'] },
      { head: '--stream | --no-stream', flags: ['stream', 'no-stream'], help: ['streamed (default) or whole responses'] },
      { head: '--timeout D', flags: ['timeout'], help: ['idle timeout, reset on every byte (default 30s)'] },
      { head: '--request-timeout D', flags: ['request-timeout'], help: ['total deadline of one request, body included (default 120s); a response', 'still arriving then (an endless or dribbled stream) is a timeout error.', 'The run itself ends at its bound: in-flight requests get 5s after it,', 'then are aborted and counted as "aborted at end"'] },
      { head: '--cancel-rate P', flags: ['cancel-rate'], help: ['the client cuts a share P (0 < P <= 1) of its requests, chosen by --seed', '(the same requests and points on every run): each is aborted on the wire', '(its socket destroyed), counted apart, never an error and never in the', 'latency percentiles; goodput and the error rate are over the rest. With', '--server-metrics: how fast the server released each cut, and whether its', 'running count came back to its pre-run level (a leak finding). Closed', 'loop runs on the undici engine (autocannon cannot cut one request)'] },
      { head: '--cancel-after WHERE', flags: ['cancel-after'], help: ['where a request is cut: D after its send (e.g. 500ms); Ntokens, after N', 'tokens (16tokens); prefill, at the head of the answer before the first', 'token; decode (default), after k tokens, k seeded from 1 to max_tokens - 1.', 'A request that ends first counts as what it was. Tokens need a stream'] },
      { head: '--seed N', flags: ['seed'], help: ['seed for arrivals and prompt order (default 1)'] },
    ],
  },
  {
    title: 'Target:',
    rows: [
      { head: '--base-url URL', flags: ['base-url'], help: ['the server to load, http(s)://host[:port][/v1] (default: the bundled', 'mock); before any traffic to a host that is not loopback, a line', 'names the target, the mode and the bound'] },
      { head: '--token-env NAME', flags: ['token-env'], help: ['environment variable holding the bearer token (default IARI_TOKEN; with', 'none named and IARI_TOKEN unset, requests carry no Authorization)'] },
      { head: '--token-file PATH', flags: ['token-file'], help: ['file holding the bearer token'] },
    ],
  },
  connectionHelpSection,
  {
    title: 'Workload (token lengths; prompts counted with the o200k tokenizer):',
    rows: [
      { head: '--input-tokens MEAN[,STDEV]', flags: ['input-tokens'], help: ['synthetic prompts of MEAN tokens (normal, STDEV default 0),', 'different for every request, reproducible with --seed'] },
      { head: '--output-tokens MEAN[,STDEV]', flags: ['output-tokens'], help: ['output length per request, sent as max_tokens; servers stop', 'early at their end-of-sequence token unless asked not to, e.g.', "--extra-body '{\"ignore_eos\":true}' (vLLM, llama.cpp)"] },
      { head: '--max-tokens-field max_tokens|max_completion_tokens|both', flags: ['max-tokens-field'], help: ['where the length goes (default max_tokens)'] },
      { head: '--extra-body JSON', flags: ['extra-body'], help: ['object merged into every request body (or @FILE), e.g.', "'{\"ignore_eos\":true,\"min_tokens\":128}'; written to load.json as given"] },
      { head: '--dataset FILE', flags: ['dataset'], help: ['ShareGPT conversations (JSON array or JSONL, as vLLM bench reads them:', 'first turn = prompt, second = reference answer, its length = output', 'length) or iari JSONL ({"prompt"|"messages", "max_tokens"?} per line)'] },
      { head: '--dataset-size N', flags: ['dataset-size'], help: ['conversations kept from the dataset, a seeded sample (default 1000)'] },
      { head: '--prefix-tokens N', flags: ['prefix-tokens'], help: ['every request starts with a shared system prompt of N tokens (the same', 'text across requests, so a prefix cache can serve it); the report', 'reads usage.prompt_tokens_details.cached_tokens: hit rate, TTFT hit/miss'] },
      { head: '--prefix-groups G', flags: ['prefix-groups'], help: ['G different shared prefixes, one drawn per request (default 1)'] },
      { head: '--turns N[,SD]', flags: ['turns'], help: ['multi-turn conversations of N turns (normal, SD default 0): each turn', "sends the whole history with the server's own answers; with --dataset,", 'ShareGPT conversations (or iari lines with several user messages) replay', 'their own turns, at most N+4SD. Closed loop: a conversation holds its', 'slot; open loop (--rate): the arrivals are conversations. The report', 'gives TTFT and prompt tokens by turn'] },
      { head: '--think-time D', flags: ['think-time'], help: ['pause between an answer and the next turn, e.g. 2s (default 0)'] },
      { head: '--chain resend|previous-response-id', flags: ['chain'], help: ['how later turns are sent: the whole history (default), or only the new', 'turn naming the answer the server kept (previous_response_id; --api', 'responses); cached tokens from usage.input_tokens_details.cached_tokens'] },
      { head: '--tools builtin|FILE', flags: ['tools'], help: ['requests declare tools (builtin: get_weather, search_flights; FILE: a JSON', 'array of {"type":"function","function":{name, parameters}}); every tool', 'call is judged: arguments not JSON, unknown function, schema mismatch', '(rates by kind; SLO tool_calls.invalid_rate<0.01)'] },
      { head: '--tool-share P', flags: ['tool-share'], help: ['share of requests that declare the tools, seeded (default 1)'] },
      { head: '--embeddings-batch N', flags: ['embeddings-batch'], help: ['POST /v1/embeddings instead of chat completions, N inputs per request', '(1..2048); the texts come from --input-tokens, --dataset or --prompts;', 'every answer is checked (EMB-*); reports inputs/s, prompt tokens/s and', 'the batch size; TTFT, ITL and TPOT do not apply (whole answers)'] },
      { head: '--embeddings-format float|base64', flags: ['embeddings-format'], help: ['encoding_format of every request (default: none sent, floats)'] },
      { head: '--api chat-completions|responses|embeddings', flags: ['api'], help: ['the API the requests go to (default: embeddings with --embeddings-batch,', 'else chat-completions); responses: POST /v1/responses, every stream checked', 'as a state machine (RESP-STREAM-*), TTFT at the first text or arguments delta,', 'output tokens from usage.output_tokens, cached from input_tokens_details'] },
    ],
  },
  {
    title: 'Trace replay (open loop; arrivals and lengths from the trace, latency from its intended times):',
    rows: [
      { head: '--trace FILE', flags: ['trace'], help: ['Mooncake JSONL ({"timestamp":ms,"input_length","output_length","hash_ids"}:', 'each hash id one shared 512-token block of the prompt, so a prefix cache', "sees the trace's sharing) or BurstGPT CSV (Timestamp in s, Request tokens,", 'Response tokens; rows with 0 response tokens skipped); a bad line exits 2', 'naming the file and line, before any traffic. The run lasts the trace', '(or --duration / --requests, whichever ends first)'] },
      { head: '--trace-format mooncake|burstgpt', flags: ['trace-format'], help: ['default: from the first line'] },
      { head: '--trace-speed X', flags: ['trace-speed'], help: ['replay X times as fast (default 1; 0.5 = half speed)'] },
      { head: '--trace-window START-END', flags: ['trace-window'], help: ['replay only this part of the trace, in trace time, e.g. 60s-120s,', '10m- (to the end); default: from its first timestamp to its end'] },
    ],
  },
  {
    title: 'A/B in one run:',
    rows: [
      { head: '--ab URL_B', flags: ['ab'], help: ['send the same workload to --base-url (A) and to URL_B (B) in one run, so', "the machine's drift hits both alike; --duration is the measured time of", 'both sides together (default 60s with --ab). load.json is side A with an', '"ab" section (side B and every pair of blocks); iari report compare RUN', 'compares B with A pair by pair (sign test of the median change). Not with', '--sweep, --find-capacity, --repeat, --shard, --requests or --trace'] },
      { head: '--ab-assign blocks|random', flags: ['ab-assign'], help: ['blocks (default): one side at a time, A B, B A, A B, ... (for builds that', 'share hardware); the first block of each side also warms up. random: each', 'request to A or B by a seeded coin (--seed), both at once, on the undici', 'engine; a busy second then falls on both sides alike. Pairs are windows', 'of --ab-block'] },
      { head: '--ab-block D', flags: ['ab-block'], help: ['one block, or one window with random (default 3s; 1s..60s); needs >= 6 pairs'] },
      { head: '--ab-block-requests N', flags: ['ab-block-requests'], help: ['blocks: each block ends after N measured requests (up to 10 blocks\' time),', 'so a busy client still fills it; a percentile is compared over pairs', 'whose blocks both hold enough (p95: 20)'] },
      { head: '--ab-token-env NAME', flags: ['ab-token-env'], help: ["environment variable holding B's token; without it B gets A's token only", "on A's origin (A's token is never sent elsewhere); it may name A's", 'variable. --header values go to both on one origin, and are refused', 'with B on another origin'] },
    ],
  },
  {
    title: "Server metrics (the server's own Prometheus counters, lined up with the client's; docs/server-metrics.md):",
    rows: [
      { head: '--server-metrics [URL]', flags: ['server-metrics'], help: ["read URL (default: the target's origin + /metrics) before the first request,", 'every interval while the run goes, and after the last: load.json gets a', "server section (per second, summaries, and whether the server's counters", "agree with the answers' usage), report.html plots it beside the client's.", "The run's token goes only to the target's own origin, and only when the", 'endpoint answers 401/403 without it. A failed read is reported, never fatal'] },
      { head: '--server-metrics-interval D', flags: ['server-metrics-interval'], help: ['time between reads (default 500ms; 100ms..60s)'] },
      { head: "--server-metrics-header 'Name: value'", flags: ['server-metrics-header'], help: ["sent to the metrics URL only (repeatable; 'Name: env:VAR' reads the", 'value from the environment and keeps it out of reports)'] },
    ],
  },
  {
    title: 'Thresholds (exit 3 when one is breached; a malformed one exits 2 before any traffic):',
    rows: [
      { head: '--slo EXPR', flags: ['slo'], help: ["repeatable, e.g. 'ttft.p95<800ms' 'itl.p99<50ms' 'errors.rate<0.01'"] },
    ],
  },
  {
    title: 'Output:',
    rows: [
      { head: '--report DIR', flags: ['report'], help: ['write load.json, requests.ndjson, junit.xml, report.html there', '(default reports/<run-id>/)'] },
      { head: '--json', flags: ['json'], help: ['print load.json to stdout instead of the summary table'] },
      { head: '--quiet', flags: ['quiet'], help: ['no progress line'] },
    ],
  },
];

export const LOAD_HELP = `Usage: iari load [options]

Streaming load test with honest clocks: TTFT, per-token inter-token latency, tokens/s,
goodput against SLOs. Without --base-url it starts the bundled mock in-process.

${renderSections(LOAD_HELP_SECTIONS)}
SLO metrics:
${sloHelp()}

Examples:
  # a real deployment: https with a private CA, token and a gateway header from the environment,
  # synthetic prompts of 512±64 tokens and answers of 128±16 (exact where ignore_eos works)
  export IARI_TOKEN=... ORG_ID=...
  iari load --base-url https://llm.internal.example:8443/v1 --ca-file private-ca.pem \\
    --header 'OpenAI-Organization: env:ORG_ID' \\
    --input-tokens 512,64 --output-tokens 128,16 --extra-body '{"ignore_eos":true}' \\
    --rate 4 --arrival poisson --duration 2m --slo 'ttft.p95<800ms'
  # a ShareGPT dataset (vLLM's format), 500 conversations sampled with --seed
  iari load --base-url https://llm.internal.example:8443/v1 \\
    --dataset ShareGPT_V3_unfiltered_cleaned_split.json --dataset-size 500 --concurrency 16 --duration 5m

Exit codes: 0 thresholds met, 2 usage or configuration error or the server cannot be reached, 3 a threshold was breached, 130 interrupted.
`;
