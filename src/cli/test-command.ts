import { parseDurationFlag, parseFlags, parseIntegerFlag } from './args.ts';
import { readTokenOrNone } from '../client/token.ts';
import { conformanceRun } from '../library/conformance.ts';
import { validateTestOptions, type TestOptions } from '../library/test-options.ts';
import { DEFAULT_RUN_TIMEOUT_MS, runDeadlineNotes } from '../library/test-deadlines.ts';
import { testProgress } from './test-progress.ts';
import { runOutcome, type CheckRun } from '../checks/runner/conformance-results.ts';
import { parsePace } from '../checks/rate-limits/pace.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { writeConformanceFiles, writeGithubOutputs, conformanceJson } from '../report/conformance-files.ts';
import { formatSummary } from '../report/summary-table.ts';
import { applyBaseline, baselineNotes } from '../checks/runner/apply-baseline.ts';
import { loadBaselineFlags, writeBaselineFile } from './test-baseline.ts';
import { createRunDir, shownPath } from '../report/run-dir.ts';
import { createRedactor } from '../report/redact.ts';
import { connectionFlagSpec, connectionFromFlags, connectionHelp } from '../client/connection-options.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import type { MockServer } from '../../mock-server/index.ts';

const HELP = `Usage: iari test [options]

Runs the conformance suites against a server (default: the bundled mock, started in-process).
The CLIENT requirements run real clients against it (openai-node, the Vercel AI SDK, LangChain),
which contact no host but the server under test.

Options:
  --base-url URL       server to test, with or without the trailing /v1 (default: bundled mock)
  --token-env NAME     environment variable holding the bearer token (default IARI_TOKEN)
  --token-file PATH    file holding the bearer token (first line)
  --grade must|should|all
                       which requirements to judge (default all)
  --profile default|strict
                       how this project's own choices (profile requirements, where the
                       interface says "not shown") are graded: default INFO (reported, never
                       a finding), strict SHOULD (non-strict when broken; exit code unchanged)
  --only IDS           comma-separated requirement IDs or areas to judge (others are skipped);
                       an area is its prefix (ME, RCPT-CHAIN), a family every area under
                       it (RCPT)
  --skip IDS           comma-separated requirement IDs or areas not to judge
  --scope interface|openai
                       what the run judges (default interface: every requirement). openai
                       judges a plain OpenAI-compatible server without the interface's
                       extras (/v1/me, /v1/me/usage, public /v1/models, Receipts); the
                       summary and conformance.json say so: never a pass of the interface
  --include limits     also run the rate-limit checks (they consume quota)
  --expect CAPS        comma-separated capabilities the server must offer (json-object,
                       json-schema, stream-usage, tool-choice, parallel-tool-calls,
                       parallel-tool-calls-false, stop, n, seed, logprobs,
                       max-completion-tokens, reasoning, reasoning-effort, model-retrieve,
                       receipts, embeddings, metrics). Features beyond the seed's table are probed; where the
                       server ignores or refuses one, its requirements are skipped, unless
                       it is expected: then they fail
  --seed N             seed for generated inputs and requests (default 1)
  --model ID           the model to probe with, instead of the first one GET /v1/models lists
                       (gets past a model list the server breaks; MODELS-* still judge the list)
  --python PATH        the Python interpreter the openai-python CLIENT operations run in
                       (default: IARI_PYTHON, else python3). Where it or its openai package is
                       missing, those operations are skipped, saying so (pip install openai)
  --max-rate-limit-wait DURATION
                       longest the whole run waits out 429s, e.g. 90s, 10m (default 10m;
                       0 = never wait). A 429 is waited out (retry-after-ms, Retry-After,
                       x-ratelimit-reset-*, else exponential backoff with jitter), a line on
                       stderr says so, and only LIMIT/HDR requirements judge it; a check whose
                       429 outlasts the budget is skipped and LIMIT-010 fails
  --baseline FILE      known failures (YAML: known: [{id, reason, expires?, server-version?}]):
                       a listed failure is reported "known" and does not fail the run; a new
                       failure does; a listed ID that passes is reported fixed (remove it); an
                       entry past its expires date (YYYY-MM-DD) fails again, saying it expired.
                       A bad file is a configuration error naming file and line (exit 2)
  --server-version V   the server's version: entries with server-version apply only when equal
  --write-baseline FILE
                       write the run's failures (fail, non-strict, known) as a baseline file,
                       keeping the reasons and dates of entries from --baseline, and its entries
                       for another --server-version as they are
  --pace R/s           send at most R requests per second, evenly spaced (e.g. 5/s, 0.5/s,
                       90/min). Default: the requests_per_minute /v1/me reports, else 10/s
                       (a full run then needs under 20 s of pacing); none on the bundled mock.
                       A 429 is still waited out (--max-rate-limit-wait)
  --report DIR         write the report there (default reports/<run-id>/)
  --json               print conformance.json to stdout instead of the summary table

Deadlines (durations like 500ms, 10s, 2m, 1h):
  --request-timeout D  total deadline of one request, body included (default 10s against the
                       bundled mock, 60s otherwise); a response still arriving then fails HDR-012;
                       after one such answer each new kind of request gets 10s (or 3x the
                       slowest completed answer), and what depends on an unended kind is blocked
  --check-timeout D    deadline of one check (default 20s bundled mock, 3m otherwise); its
                       requests are aborted and its undecided requirements fail
  --run-timeout D      deadline of the whole run (default 5m, moved back by the time spent
                       waiting out 429s against a real server): checks not started by then are
                       not run; their requirements, and those a check had not decided when it
                       was cut, are "undecided" (cause deadline), listed apart, never a FAIL

${connectionHelp}
Exit codes: 0 passed, 1 a requirement failed, 2 usage or configuration error or the server cannot
be reached (connection refused, DNS, TLS trust), 4 none failed but some were undecided (the run's
deadline passed, or 429s after waiting), 130 interrupted.
`;

const options = {
  'base-url': { type: 'string' },
  'token-env': { type: 'string' },
  'token-file': { type: 'string' },
  grade: { type: 'string' },
  profile: { type: 'string' },
  only: { type: 'string' },
  skip: { type: 'string' },
  scope: { type: 'string' },
  include: { type: 'string', multiple: true },
  expect: { type: 'string', multiple: true },
  seed: { type: 'string' },
  model: { type: 'string' },
  python: { type: 'string' },
  'max-rate-limit-wait': { type: 'string' },
  pace: { type: 'string' },
  report: { type: 'string' },
  baseline: { type: 'string' },
  'server-version': { type: 'string' },
  'write-baseline': { type: 'string' },
  json: { type: 'boolean' },
  'request-timeout': { type: 'string' },
  'check-timeout': { type: 'string' },
  'run-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...connectionFlagSpec,
} as const;

export interface TestDeps {
  /** A bundled mock already started by the caller (iari start); it stays open afterwards. */
  mock?: MockServer;
  /** The run id of a caller that owns the run (iari start: one id for its three steps). */
  runId?: string;
}

export async function run(argv: string[], deps: TestDeps = {}): Promise<number> {
  // The run's clock starts now: starting the mock, the preflight and the checks all count.
  const startedAt = Date.now();
  const { values } = parseFlags('test', argv, options);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const include = (values.include ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const badInclude = include.filter((v) => v !== 'limits');
  if (badInclude.length > 0) throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --include accepts only "limits", got "${badInclude.join(',')}"`);
  const list = (value: string | undefined): string[] | undefined => (value === undefined ? undefined : value.split(','));
  const given: { [K in keyof TestOptions]: TestOptions[K] | undefined } = {
    grade: values.grade as TestOptions['grade'],
    profile: values.profile as TestOptions['profile'],
    only: list(values.only),
    skip: list(values.skip),
    scope: values.scope as TestOptions['scope'],
    includeLimits: include.includes('limits'),
    expect: (values.expect ?? []).flatMap((v) => v.split(',')),
    seed: parseIntegerFlag('test', 'seed', values.seed, 0, 2 ** 31 - 1),
    model: values.model,
    // --python wins over IARI_PYTHON; neither: python3.
    python: values.python ?? process.env['IARI_PYTHON'],
    requestTimeoutMs: parseDurationFlag('iari test', 'request-timeout', values['request-timeout'], 0.1, 3600),
    checkTimeoutMs: parseDurationFlag('iari test', 'check-timeout', values['check-timeout'], 0.1, 24 * 3600),
    runTimeoutMs: parseDurationFlag('iari test', 'run-timeout', values['run-timeout'], 1, 7 * 24 * 3600),
    maxRateLimitWaitMs: parseDurationFlag('iari test', 'max-rate-limit-wait', values['max-rate-limit-wait'], 0, 24 * 3600),
    pacePerSecond: parsePaceFlag(values.pace),
    connection: connectionFromFlags('test', values),
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'], token: readTokenOrNone('iari test', { tokenEnv: values['token-env'], tokenFile: values['token-file'] }) }),
  };
  const valid = validateTestOptions(withoutUndefined<TestOptions>(given), 'iari test', (name) => (name === 'protocols' ? name : `--${FLAG_OF[name]}`));
  const baseline = loadBaselineFlags(values.baseline, values['server-version'], values['write-baseline']);

  const onSigint = (): void => process.exit(ExitCode.interrupted);
  process.once('SIGINT', onSigint);
  try {
    const runDir = createRunDir({ report: values.report, ...(deps.runId === undefined ? {} : { id: deps.runId }) });
    // Issue 37 item 3: progress on stderr at least every 10 s, on a terminal and in CI logs alike; none with --json.
    const progress =
      values.json === true
        ? undefined
        : testProgress({ write: (text) => process.stderr.write(text), tty: process.stderr.isTTY === true, deadlineAt: startedAt + (valid.timeouts.run ?? DEFAULT_RUN_TIMEOUT_MS) });
    let run;
    try {
      run = await conformanceRun(valid, {
        startedAt,
        runId: runDir.id,
        notice: (line) => process.stderr.write(`iari: ${line}\n`),
        ...(deps.mock === undefined ? {} : { mock: deps.mock }),
        ...(progress === undefined ? {} : { onResult: (r: CheckRun, done: number, total: number) => progress.onResult(r.ids, done, total) }),
      });
    } finally {
      progress?.stop();
    }
    const { report: raw, settings, secrets } = run;
    const redactor = createRedactor(secrets);
    const applied = baseline.file === undefined ? undefined : applyBaseline(raw, baseline.file, new Date().toISOString().slice(0, 10), baseline.serverVersion);
    const report = applied?.report ?? raw;
    const files = writeConformanceFiles(report, runDir, redactor);
    writeGithubOutputs(report, redactor);
    // One truth: the exit code follows from the report the files hold (a baseline applied).
    const outcome = runOutcome(report);
    if (values.json === true) {
      process.stdout.write(conformanceJson(report, redactor));
    } else {
      process.stdout.write(redactor.string(formatSummary(report)));
      for (const note of runDeadlineNotes('after', settings, report)) process.stderr.write(`iari: ${note}\n`);
      for (const note of applied === undefined ? [] : baselineNotes(applied.outcome)) process.stderr.write(`iari: ${redactor.string(note)}\n`);
      process.stdout.write(`\nreport: ${shownPath(values.report, files.reportHtml)}\n`);
    }
    if (baseline.writeTo !== undefined) {
      const written = writeBaselineFile(baseline.writeTo, report, baseline.file, redactor);
      process.stderr.write(`iari: wrote ${written} known failure(s) to ${baseline.writeTo}\n`);
    }
    return outcome === 'failed' ? ExitCode.conformanceFailed : outcome === 'undecided' ? ExitCode.inconclusive : ExitCode.ok;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** The flag each option comes from, for usage errors that name what the user typed. */
const FLAG_OF: Record<Exclude<keyof TestOptions, 'protocols'>, string> = {
  baseUrl: 'base-url',
  token: 'token-env',
  grade: 'grade',
  profile: 'profile',
  only: 'only',
  skip: 'skip',
  scope: 'scope',
  includeLimits: 'include',
  seed: 'seed',
  model: 'model',
  requestTimeoutMs: 'request-timeout',
  checkTimeoutMs: 'check-timeout',
  runTimeoutMs: 'run-timeout',
  maxRateLimitWaitMs: 'max-rate-limit-wait',
  pacePerSecond: 'pace',
  connection: 'header',
  expect: 'expect',
  python: 'python',
};

/** `--pace R/s` (pace.ts reads it); an unreadable value is a usage error. */
function parsePaceFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const perSecond = parsePace(value);
  if (perSecond === undefined) throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --pace must be a rate like 5/s, 0.5/s or 90/min, got "${value}"`);
  return perSecond;
}

/** exactOptionalPropertyTypes: an option not given is absent, not undefined. */
function withoutUndefined<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export type { ConformanceReport };
