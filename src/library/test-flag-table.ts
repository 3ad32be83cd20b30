// Every flag of `iari test`, defined once: a row says the flag, the runConformance option it writes
// (or why only the CLI reads it), how its text is read, its closed set or range, its help and its
// section. From these rows come the flags iari test parses and its --help (src/cli/test-flags.ts),
// the option each flag writes, the checks validateTestOptions makes of every choice, number and
// duration (test-options.ts: the library's message names the option, the CLI's the flag), and
// runConformance's option keys. Adding a flag is a row here; what it does is the run's.
import { MAX_PACE_PER_SECOND } from '../checks/rate-limits/pace.ts';
import { profiles, type Profile } from '../checks/kernel/verdicts.ts';
import { SCOPES, type Scope } from '../checks/runner/scopes.ts';
import type { ConnectionOptions } from '../client/connection-options.ts';
import type { ProtocolList } from '../protocols/registry.ts';
import type { TableFlag } from '../flag-table.ts';

/** runConformance's options; a flag's row below names the one it writes (held both ways at compile time). */
export interface TestOptions {
  /** The server to test, with or without the trailing `/v1`. Absent: the bundled mock, started in-process and closed afterwards. */
  baseUrl?: string;
  /** Bearer token for `baseUrl` (required with it; never written into the report). `''` (NO_TOKEN): the server asks for none, requests carry no Authorization and what needs a token is skipped. */
  token?: string;
  /** The server asks for no token (issue 43): send none, skip what needs one, and still pass. Without it, a run with `token: ''` is undecided (exit 4): a missing secret must not pass. Not with a token. */
  noToken?: boolean;
  /** Which requirements to judge (default `all`). */
  grade?: 'must' | 'should' | 'all';
  /** How profile requirements are graded (D-GRADE-04): `default` INFO, `strict` SHOULD. */
  profile?: Profile;
  /** Requirement IDs to judge; the others are skipped. */
  only?: readonly string[];
  /** Requirement IDs not to judge. */
  skip?: readonly string[];
  /** What the run judges: `interface` (default) every requirement; `openai` a plain OpenAI-compatible server, without the interface's extras (/v1/me, /v1/me/usage, public /v1/models, Receipts). */
  scope?: Scope;
  /** Also run the rate-limit checks (they consume quota and wait out a window). */
  includeLimits?: boolean;
  /** Seed for generated inputs (default 1). */
  seed?: number;
  /** The model the checks probe with, instead of the first one GET /v1/models lists (gets past a broken list). */
  model?: string;
  /** Deadline of one request, body included (default 10 s on the bundled mock, 60 s otherwise). */
  requestTimeoutMs?: number;
  /** Deadline of one check (default 20 s on the bundled mock, 3 min otherwise). */
  checkTimeoutMs?: number;
  /** Deadline of the whole run (default 5 min on the bundled mock, 5 min plus maxRateLimitWaitMs otherwise). */
  runTimeoutMs?: number;
  /** Longest the whole run waits out 429s (default 10 min; 0 never waits). */
  maxRateLimitWaitMs?: number;
  /** Requests per second (`--pace`); default: the limit /v1/me reports, else 10/s against a server, none against the bundled mock. */
  pacePerSecond?: number;
  /** TLS trust and extra headers for `baseUrl`. */
  connection?: ConnectionOptions;
  /** Capabilities beyond the seed the server must offer (src/checks/registry/capabilities.ts): where it does not, their requirements fail instead of being skipped. */
  expect?: readonly string[];
  /** The Python interpreter openai-python's CLIENT operations run in (default python3); where it lacks the openai package they are skipped, saying so. */
  python?: string;
  /** The APIs judged (default: every API iari ships, src/protocols/registry.ts); a list of your own adds an API with its requirements and capabilities. */
  protocols?: ProtocolList;
}

export const TEST_SECTIONS = {
  options: 'Options:',
  deadlines: 'Deadlines (durations like 500ms, 10s, 2m, 1h):',
  connection: '',
} as const;

export type TestSection = keyof typeof TEST_SECTIONS;

/**
 * How the flag's text becomes its option: `text` as given; `number` against `rule`; `duration`
 * milliseconds (src/duration.ts), `rule` its range in seconds; `ids` one comma-separated list;
 * `list` repeatable, each comma-separated; `member` repeatable names from `choices`, the option true
 * when one is named; `pace` a rate like 5/s in requests per second, `rule` its range; `switch` a
 * boolean; `shared` the connection flags (connection-options.ts).
 */
export type TestParse = 'text' | 'number' | 'duration' | 'ids' | 'list' | 'member' | 'pace' | 'switch' | 'shared';

export interface TestFlag extends TableFlag<TestSection, TestParse> {
  /** The TestOptions key it writes. */
  option?: string;
  /** The environment variable read when the flag is not given. */
  fromEnv?: string;
}

export const TEST_FLAGS = [
  { flag: 'base-url', arg: 'URL', section: 'options', parse: 'text', option: 'baseUrl', help: ['server to test, with or without the trailing /v1 (default: bundled mock)'] },
  { flag: 'token-env', arg: 'NAME', section: 'options', parse: 'text', cliOnly: 'the token option (never the environment)', help: ['environment variable holding the bearer token (default IARI_TOKEN)'] },
  { flag: 'token-file', arg: 'PATH', section: 'options', parse: 'text', cliOnly: 'the token option (never a file)', help: ['file holding the bearer token (first line)'] },
  {
    flag: 'no-token', section: 'options', parse: 'switch', option: 'noToken',
    help: ['the server has no auth: send no token and accept that AUTH, ME, USAGE,', 'RCPT and the account\'s limits and bill are not tested (exit 0 when', 'nothing failed). Without it, a run with no token (none named, $IARI_TOKEN', 'unset) exits 4. Not with --token-env, --token-file or $IARI_TOKEN set'],
  },
  { flag: 'grade', choices: ['must', 'should', 'all'], section: 'options', parse: 'text', option: 'grade', help: ['which requirements to judge (default all)'] },
  {
    flag: 'profile', choices: profiles, section: 'options', parse: 'text', option: 'profile',
    help: ["how this project's own choices (profile requirements, where the", 'interface says "not shown") are graded: default INFO (reported, never', 'a finding), strict SHOULD (non-strict when broken; exit code unchanged)'],
  },
  {
    flag: 'only', arg: 'IDS', section: 'options', parse: 'ids', option: 'only',
    help: ['comma-separated requirement IDs or areas to judge (others are skipped);', 'an area is its prefix (ME, RCPT-CHAIN), a family every area under', 'it (RCPT)'],
  },
  { flag: 'skip', arg: 'IDS', section: 'options', parse: 'ids', option: 'skip', help: ['comma-separated requirement IDs or areas not to judge'] },
  {
    flag: 'scope', choices: SCOPES, section: 'options', parse: 'text', option: 'scope',
    help: ['what the run judges (default interface: every requirement). openai', "judges a plain OpenAI-compatible server without the interface's", 'extras (/v1/me, /v1/me/usage, public /v1/models, Receipts); the', 'summary and conformance.json say so: never a pass of the interface'],
  },
  { flag: 'include', choices: ['limits'], section: 'options', parse: 'member', option: 'includeLimits', help: ['also run the rate-limit checks (they consume quota)'] },
  {
    flag: 'expect', arg: 'CAPS', section: 'options', parse: 'list', option: 'expect',
    help: [
      'comma-separated capabilities the server must offer (json-object,', 'json-schema, stream-usage, tool-choice, parallel-tool-calls,', 'parallel-tool-calls-false, stop, n, seed, logprobs,', 'max-completion-tokens, reasoning, reasoning-effort, model-retrieve,',
      "receipts, embeddings, metrics). Features beyond the seed's table are probed; where the", 'server ignores or refuses one, its requirements are skipped, unless', 'it is expected: then they fail',
    ],
  },
  { flag: 'seed', arg: 'N', section: 'options', parse: 'number', option: 'seed', rule: { min: 0, max: 2 ** 31 - 1, integer: true }, help: ['seed for generated inputs and requests (default 1)'] },
  { flag: 'model', arg: 'ID', section: 'options', parse: 'text', option: 'model', help: ['the model to probe with, instead of the first one GET /v1/models lists', '(gets past a model list the server breaks; MODELS-* still judge the list)'] },
  {
    flag: 'python', arg: 'PATH', section: 'options', parse: 'text', option: 'python', fromEnv: 'IARI_PYTHON',
    help: ['the Python interpreter the openai-python CLIENT operations run in', '(default: IARI_PYTHON, else python3). Where it or its openai package is', 'missing, those operations are skipped, saying so (pip install openai)'],
  },
  {
    flag: 'max-rate-limit-wait', arg: 'DURATION', section: 'options', parse: 'duration', option: 'maxRateLimitWaitMs', rule: { min: 0, max: 24 * 3600, integer: false },
    help: ['longest the whole run waits out 429s, e.g. 90s, 10m (default 10m;', '0 = never wait). A 429 is waited out (retry-after-ms, Retry-After,', 'x-ratelimit-reset-*, else exponential backoff with jitter), a line on', 'stderr says so, and only LIMIT/HDR requirements judge it; a check whose', '429 outlasts the budget is skipped and LIMIT-010 fails'],
  },
  {
    flag: 'baseline', arg: 'FILE', section: 'options', parse: 'text', cliOnly: 'the CLI applies the baseline to the report (src/cli/test-baseline.ts)',
    help: ['known failures (YAML: known: [{id, reason, expires?, server-version?}]):', 'a listed failure is reported "known" and does not fail the run; a new', 'failure does; a listed ID that passes is reported fixed (remove it); an', 'entry past its expires date (YYYY-MM-DD) fails again, saying it expired.', 'A bad file is a configuration error naming file and line (exit 2)'],
  },
  { flag: 'server-version', arg: 'V', section: 'options', parse: 'text', cliOnly: 'with --baseline', help: ["the server's version: entries with server-version apply only when equal"] },
  {
    flag: 'write-baseline', arg: 'FILE', section: 'options', parse: 'text', cliOnly: 'the CLI writes the baseline file',
    help: ["write the run's failures (fail, non-strict, known) as a baseline file,", 'keeping the reasons and dates of entries from --baseline, and its entries', 'for another --server-version as they are'],
  },
  {
    flag: 'pace', arg: 'R/s', section: 'options', parse: 'pace', option: 'pacePerSecond', rule: { min: 0, max: MAX_PACE_PER_SECOND, integer: false, aboveMin: true },
    help: ['send at most R requests per second, evenly spaced (e.g. 5/s, 0.5/s,', '90/min). Default: the requests_per_minute /v1/me reports, else 10/s', '(a full run then needs under 20 s of pacing); none on the bundled mock.', 'A 429 is still waited out (--max-rate-limit-wait)'],
  },
  { flag: 'report', arg: 'DIR', section: 'options', parse: 'text', cliOnly: 'runConformance writes no files', help: ['write the report there (default reports/<run-id>/)'] },
  { flag: 'json', section: 'options', parse: 'switch', cliOnly: 'runConformance returns the report', help: ['print conformance.json to stdout instead of the summary table'] },
  {
    flag: 'request-timeout', arg: 'D', section: 'deadlines', parse: 'duration', option: 'requestTimeoutMs', rule: { min: 0.1, max: 3600, integer: false },
    help: ['total deadline of one request, body included (default 10s against the', 'bundled mock, 60s otherwise); a response still arriving then fails HDR-012;', 'after one such answer each new kind of request gets 10s (or 3x the', 'slowest completed answer), and what depends on an unended kind is blocked'],
  },
  {
    flag: 'check-timeout', arg: 'D', section: 'deadlines', parse: 'duration', option: 'checkTimeoutMs', rule: { min: 0.1, max: 24 * 3600, integer: false },
    help: ['deadline of one check (default 20s bundled mock, 3m otherwise); its', 'requests are aborted and its undecided requirements fail'],
  },
  {
    flag: 'run-timeout', arg: 'D', section: 'deadlines', parse: 'duration', option: 'runTimeoutMs', rule: { min: 1, max: 7 * 24 * 3600, integer: false },
    help: ['deadline of the whole run (default 5m, moved back by the time spent', 'waiting out 429s against a real server): checks not started by then are', 'not run; their requirements, and those a check had not decided when it', 'was cut, are "undecided" (cause deadline), listed apart, never a FAIL'],
  },
  // connection: the rows iari load shares (connection-options.ts); they write the one connection option.
  { flag: 'header', section: 'connection', parse: 'shared', option: 'connection' },
  { flag: 'ca-file', section: 'connection', parse: 'shared', option: 'connection' },
  { flag: 'insecure', section: 'connection', parse: 'shared', option: 'connection' },
] as const satisfies readonly TestFlag[];

export type TestFlagRow = (typeof TEST_FLAGS)[number];

/** runConformance's options: every row's option, the token no flag writes as it is, and the protocols a program passes. */
export type TestOptionKey = Extract<TestFlagRow, { option: string }>['option'] | 'token' | 'protocols';
export function testOptionKeysOf(table: readonly TestFlag[]): string[] {
  return [...new Set([...table.flatMap((r) => (r.option === undefined || r.cliOnly !== undefined ? [] : [r.option])), 'token', 'protocols'])];
}
export const TEST_OPTION_KEYS = testOptionKeysOf(TEST_FLAGS) as readonly TestOptionKey[];
const testKeysComplete: [Exclude<keyof TestOptions, TestOptionKey>, Exclude<TestOptionKey, keyof TestOptions>] extends [never, never] ? true : never = true;
void testKeysComplete;
