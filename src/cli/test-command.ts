import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseDurationFlag, parseFlags, parseIntegerFlag } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import type { ConformanceReport, Profile } from '../checks/verdicts.ts';
import { profiles } from '../checks/verdicts.ts';
import type { RunSettings } from '../checks/check-context.ts';
import type { Selection } from '../checks/conformance-results.ts';
import { normalizeBaseUrl } from '../checks/check-context.ts';
import { requirementInfos } from '../checks/registry-view.ts';
import { runConformance } from '../checks/conformance-run.ts';
import { writeConformanceFiles, writeGithubOutputs, conformanceJson } from '../report/conformance-files.ts';
import { preflightRequestsPerMinute } from '../checks/preflight.ts';
import { parseDurationFlag as parseWaitDuration } from '../checks/rate-limit-wait.ts';
import { formatSummary } from '../checks/summary-table.ts';
import { createRunDir } from '../report/run-dir.ts';
import { createRedactor } from '../report/redact.ts';
import type { MockServer } from '../../mock-server/index.ts';
import { assertTargetAllowed, connectionFlagSpec, connectionFromFlags, connectionHelp, connectionSecrets } from '../client/connection-options.ts';
import { runDeadlineNotes, testTimeouts } from './test-deadlines.ts';

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
  --only IDS           comma-separated requirement IDs to judge (others are skipped)
  --skip IDS           comma-separated requirement IDs not to judge
  --include limits     also run the rate-limit checks (they consume quota)
  --seed N             seed for generated inputs and requests (default 1)
  --model ID           the model to probe with, instead of the first one GET /v1/models lists
                       (gets past a model list the server breaks; MODELS-* still judge the list)
  --max-rate-limit-wait DURATION
                       longest the whole run waits out 429s, e.g. 90s, 10m (default 10m;
                       0 = never wait). A 429 is waited out (retry-after-ms, Retry-After,
                       x-ratelimit-reset-*, else exponential backoff with jitter), a line on
                       stderr says so, and only LIMIT/HDR requirements judge it; a check whose
                       429 outlasts the budget is skipped and LIMIT-010 fails
  --report DIR         write the report there (default reports/<run-id>/)
  --json               print conformance.json to stdout instead of the summary table

Deadlines (durations like 500ms, 10s, 2m, 1h):
  --request-timeout D  total deadline of one request, body included (default 10s against the
                       bundled mock, 60s otherwise); a response still arriving then fails HDR-012
  --check-timeout D    deadline of one check (default 20s bundled mock, 3m otherwise); its
                       requests are aborted and its undecided requirements fail
  --run-timeout D      deadline of the whole run (default 5m bundled mock, otherwise 5m plus
                       --max-rate-limit-wait, so 15m): checks not started by then are not
                       run and their requirements fail as "not decided", saying so

${connectionHelp}
Exit codes: 0 passed, 1 a requirement failed, 2 usage or configuration error, 130 interrupted.
`;

function isOneOfProfiles(value: string): value is Profile {
  return (profiles as readonly string[]).includes(value);
}

/** Shorter tokens cannot be scrubbed from reports without mangling them. */
const MIN_TOKEN_LENGTH = 8;

const options = {
  'base-url': { type: 'string' },
  'token-env': { type: 'string' },
  'token-file': { type: 'string' },
  grade: { type: 'string' },
  profile: { type: 'string' },
  only: { type: 'string' },
  skip: { type: 'string' },
  include: { type: 'string', multiple: true },
  seed: { type: 'string' },
  model: { type: 'string' },
  'max-rate-limit-wait': { type: 'string' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  'request-timeout': { type: 'string' },
  'check-timeout': { type: 'string' },
  'run-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...connectionFlagSpec,
} as const;

function modelFlag(value: string): string {
  if (value.trim() === '') throw new HarnessError(HarnessErrorCode.USAGE, 'iari test: --model needs a model id');
  return value.trim();
}

function idList(flag: string, value: string | undefined, known: ReadonlySet<string>): string[] {
  if (value === undefined) return [];
  const ids = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new HarnessError(HarnessErrorCode.UNKNOWN_REQUIREMENT, `iari test: --${flag} names unknown requirement(s): ${unknown.join(', ')}`, {
      hint: 'iari requirements lists every ID',
    });
  }
  return [...new Set(ids)].sort();
}

function readToken(values: { 'token-env'?: string | undefined; 'token-file'?: string | undefined }): string {
  if (values['token-env'] !== undefined && values['token-file'] !== undefined) {
    throw new HarnessError(HarnessErrorCode.USAGE, 'iari test: give --token-env or --token-file, not both');
  }
  if (values['token-file'] !== undefined) {
    let text: string;
    try {
      text = readFileSync(values['token-file'], 'utf8');
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari test: cannot read --token-file: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const token = (text.split(/\r?\n/)[0] ?? '').trim();
    if (token === '') throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, 'iari test: --token-file is empty');
    return token;
  }
  const name = values['token-env'] ?? 'IARI_TOKEN';
  const token = process.env[name]?.trim();
  if (token === undefined || token === '') {
    throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, `iari test: no token in $${name}`, {
      hint: 'export the account token in that variable (or use --token-file); it is never accepted as a flag value',
    });
  }
  return token;
}

/** Bundled mock: a second account for isolation checks and the small-limit accounts of fixtures/accounts.json. */
function mockAccounts(byAccount: Record<string, string>, main: string): Pick<RunSettings, 'secondToken' | 'limitTokens'> {
  const second = Object.values(byAccount).find((t) => t !== main);
  const limitTokens: NonNullable<RunSettings['limitTokens']> = {};
  if (byAccount['acct_free'] !== undefined) limitTokens.requestLimited = byAccount['acct_free'];
  if (byAccount['acct_team'] !== undefined) limitTokens.tokenLimited = byAccount['acct_team'];
  if (byAccount['acct_capped'] !== undefined) limitTokens.capped = byAccount['acct_capped'];
  return { ...(second === undefined ? {} : { secondToken: second }), limitTokens };
}

/** Loaded only when no --base-url is given: the mock (and its tokenizer tables, about 60 MiB) stays out of runs against other servers. */
async function startBundledMock(): Promise<MockServer> {
  return (await import('../../mock-server/index.ts')).startMockServer();
}

export interface TestDeps {
  /** A bundled mock already started by the caller (iari start); it stays open afterwards. */
  mock?: MockServer;
}

export async function run(argv: string[], deps: TestDeps = {}): Promise<number> {
  const { values } = parseFlags('test', argv, options);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const grade = values.grade ?? 'all';
  if (grade !== 'must' && grade !== 'should' && grade !== 'all') {
    throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --grade must be must, should or all, got "${grade}"`);
  }
  // spec/DECISIONS.md D-GRADE-04: profile choices are INFO by default; strict raises them to SHOULD.
  const profile = values.profile ?? 'default';
  if (!isOneOfProfiles(profile)) throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --profile must be default or strict, got "${profile}"`);
  const include = (values.include ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const badInclude = include.filter((v) => v !== 'limits');
  if (badInclude.length > 0) throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --include accepts only "limits", got "${badInclude.join(',')}"`);
  const seed = parseIntegerFlag('test', 'seed', values.seed, 0, 2 ** 31 - 1) ?? 1;
  const timeouts = {
    request: parseDurationFlag('iari test', 'request-timeout', values['request-timeout'], 0.1, 3600),
    check: parseDurationFlag('iari test', 'check-timeout', values['check-timeout'], 0.1, 24 * 3600),
    run: parseDurationFlag('iari test', 'run-timeout', values['run-timeout'], 1, 7 * 24 * 3600),
  };
  // The run's clock starts now: starting the mock, the preflight and vitest all count.
  const startedAt = Date.now();
  const maxRateLimitWaitMs = values['max-rate-limit-wait'] === undefined ? undefined : parseWaitDuration(values['max-rate-limit-wait']);
  if (maxRateLimitWaitMs === undefined && values['max-rate-limit-wait'] !== undefined) {
    throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --max-rate-limit-wait must be a duration like 90s, 10m or 1m30s, got "${values['max-rate-limit-wait']}"`);
  }
  const known = new Set(requirementInfos().keys());
  const selection: Selection = { grade, only: idList('only', values.only, known), skip: idList('skip', values.skip, known) };

  let base: { root: string; display: string } | undefined;
  let token: string;
  const connection = connectionFromFlags('test', values);
  if (values['base-url'] !== undefined) {
    const normalized = normalizeBaseUrl(values['base-url']);
    if ('error' in normalized) throw new HarnessError(HarnessErrorCode.USAGE, `iari test: --base-url: ${normalized.error}`);
    base = normalized;
    token = readToken(values);
    await assertTargetAllowed(new URL(normalized.root).origin);
  } else {
    if (connection.caFile !== null || connection.insecure || connection.headers.length > 0) {
      throw new HarnessError(HarnessErrorCode.USAGE, 'iari test: --ca-file, --insecure and --header apply to a server given with --base-url (the bundled mock is plain http)');
    }
    token = '';
  }

  const ownMock = base === undefined && deps.mock === undefined;
  const mock = base === undefined ? (deps.mock ?? (await startBundledMock())) : undefined;
  const onSigint = (): void => {
    if (ownMock) void mock?.close();
    process.exit(ExitCode.interrupted);
  };
  process.once('SIGINT', onSigint);
  try {
    if (mock !== undefined) token = mock.tokens.default;
    // Every report line is scrubbed of the token; a token this short would also match ordinary
    // text (a 1-character token would replace every such character), so it cannot be kept out safely.
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `iari test: the bearer token has ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are needed to keep it out of reports`, {
        hint: 'use a real token; the bundled mock generates one when IARI_TOKEN is unset',
      });
    }
    const byAccount = mock?.tokens.byAccount ?? {};
    const root = base?.root ?? mock!.origin;
    const settings: RunSettings = {
      root,
      token,
      seed,
      profile,
      target: mock === undefined ? 'external' : 'bundled-mock',
      includeLimits: include.includes('limits'),
      ...(values.model === undefined ? {} : { model: modelFlag(values.model) }),
      ...mockAccounts(byAccount, token),
      ...(mock === undefined ? { connection } : {}),
      ...(maxRateLimitWaitMs === undefined ? {} : { maxRateLimitWaitMs }),
    };
    Object.assign(settings, testTimeouts(timeouts, settings.target, startedAt, maxRateLimitWaitMs));
    if (mock === undefined) {
      // A real model can take a while per answer, and a throttled check waits for its slots.
      settings.requestsPerMinute = await preflightRequestsPerMinute(settings);
    }
    for (const note of runDeadlineNotes('before', settings)) process.stderr.write(`iari: ${note}\n`);
    const runDir = createRunDir({ report: values.report });
    const tty = process.stdout.isTTY === true && values.json !== true;
    const { report, errors } = await runConformance({
      settings,
      baseUrlDisplay: mock === undefined ? base!.display : 'bundled mock (in-process)',
      selection,
      runId: runDir.id,
      ...(tty
        ? {
            onResult: (r, done, total) => {
              process.stdout.write(`\r\x1b[2K[${done}/${total}] ${r.title.slice(0, Math.max(20, (process.stdout.columns ?? 80) - 12))}`);
            },
          }
        : {}),
    });
    if (tty) process.stdout.write('\r\x1b[2K');
    const redactor = createRedactor([token, ...Object.values(byAccount), ...(mock === undefined ? connectionSecrets(connection, new URL(root).origin) : [])]);
    const files = writeConformanceFiles(report, runDir, redactor);
    writeGithubOutputs(report, redactor);
    const failed = report.summary.fail > 0 || errors.length > 0;
    if (values.json === true) {
      process.stdout.write(conformanceJson(report, redactor));
    } else {
      process.stdout.write(redactor.string(formatSummary(report)));
      for (const e of errors) process.stderr.write(`iari: ${redactor.string(e)}\n`);
      for (const note of runDeadlineNotes('after', settings, report)) process.stderr.write(`iari: ${note}\n`);
      process.stdout.write(`\nreport: ${relative(process.cwd(), files.reportHtml) || '.'}\n`);
    }
    return failed ? ExitCode.conformanceFailed : ExitCode.ok;
  } finally {
    process.removeListener('SIGINT', onSigint);
    if (ownMock) await mock?.close();
  }
}

export type { ConformanceReport };
