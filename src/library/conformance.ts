// The conformance run: the core that `iari test` (its shell: flags, terminal, report files) and the
// library's `runConformance` share. Same options, validation, deadlines, catalog and report object.
import type { RunSettings } from '../checks/context/check-context.ts';
import type { CheckRun, NoToken } from '../checks/runner/conformance-results.ts';
import { runConformance as runCatalog } from '../checks/runner/conformance-run.ts';
import { noTokenHeadline, runPassed } from '../checks/runner/conformance-results.ts';
import { applyBaseline } from '../checks/runner/apply-baseline.ts';
import { readBaseline } from '../checks/runner/baseline-file.ts';
import { requirementInfos } from '../checks/registry/registry-view.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { DEFAULT_PACE_PER_SECOND } from '../checks/rate-limits/pace.ts';
import { preflightRequestsPerMinute } from '../checks/runner/preflight.ts';
import { Stalls } from '../checks/http/stalls.ts';
import { connectionFromOptions, connectionSecrets } from '../client/connection-options.ts';
import { preflightTarget } from '../client/reachable.ts';
import { assertApiServed } from '../client/api-path.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { newRunId } from '../report/run-dir.ts';
import type { MockServer } from '../../mock-server/index.ts';
import { paceNote, runDeadlineNotes, testTimeouts } from './test-deadlines.ts';
import { TEST_OPTION_KEYS, validateTestOptions, type TestOptions, type ValidTestOptions } from './test-options.ts';
import { refuseUnknownKeys } from '../option-keys.ts';
import type { ProtocolList } from '../protocols/registry.ts';

export type { TestOptions } from './test-options.ts';

/** The connection to a server of your own, as runLoad takes it: checked by the same code as `--ca-file`, `--insecure` and `--header`. */
export interface ConnectionInputOptions {
  /** A private CA (PEM file) trusted besides the system's. */
  caFile?: string;
  /** Do not verify TLS certificates (not with caFile). */
  insecure?: boolean;
  /** Extra request headers, literal values (refused as `--header` refuses them). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * The library's options: TestOptions with the connection given as runLoad takes it (one shape for
 * both): `caFile` a path, `insecure`, `headers` by name with literal values; `iari test` hands the
 * validated connection (TestOptions.connection) itself.
 */
export interface ConformanceOptions extends Omit<TestOptions, 'connection'>, ConnectionInputOptions {
  /** Called after each check, e.g. for a progress line. */
  onResult?: (run: CheckRun, done: number, total: number) => void;
  /**
   * Known failures, as `iari test --baseline FILE`: a YAML file (`known: [{id, reason, expires?,
   * server-version?}]`) read before any traffic. A listed failure is `known` and does not fail the
   * run; `report.baseline` says what applied. A bad file throws IARI_CONFIG_INVALID naming file and line.
   */
  baseline?: string;
  /** The server's version, as `--server-version`: baseline entries with a server-version apply only when equal. */
  serverVersion?: string;
}

export interface ConformanceOutcome {
  /** The same object `iari test --json` prints (conformance.json). */
  report: ConformanceReport;
  /** Errors outside any check (a check that escaped its runner); they make the run fail. */
  errors: string[];
  /** True when no selected requirement failed or was left undecided, `report.runFailures` is empty and a run without a token was told so (noToken) (runPassed): `iari test` would exit 0. */
  passed: boolean;
}

export interface ConformanceRunHooks {
  onResult?: (run: CheckRun, done: number, total: number) => void;
  /** A bundled mock already started by the caller (iari start); it stays open afterwards. */
  mock?: MockServer;
  /** Lines for the user before the run (a throttle too slow for the run's deadline); stderr in the CLI. */
  notice?: (line: string) => void;
  runId?: string;
  /** When the run's clock started (its deadline counts from here); default now. */
  startedAt?: number;
}

export interface ConformanceRunOutput extends ConformanceOutcome {
  settings: RunSettings;
  /** Every secret of the run (tokens, secret header values), for the shell's redactor. */
  secrets: string[];
}

/** The bundled mock's second account and small-limit accounts (fixtures/accounts.json). */
function mockAccountSettings(mock: MockServer): Pick<RunSettings, 'secondToken' | 'limitTokens'> {
  const byAccount = mock.tokens.byAccount;
  const second = Object.values(byAccount).find((t) => t !== mock.tokens.default);
  const limitTokens: NonNullable<RunSettings['limitTokens']> = {};
  if (byAccount['acct_free'] !== undefined) limitTokens.requestLimited = byAccount['acct_free'];
  if (byAccount['acct_team'] !== undefined) limitTokens.tokenLimited = byAccount['acct_team'];
  if (byAccount['acct_capped'] !== undefined) limitTokens.capped = byAccount['acct_capped'];
  return { ...(second === undefined ? {} : { secondToken: second }), limitTokens };
}

/** Loaded only for the bundled mock: the mock (and its tokenizer tables) stays out of runs against other servers. It serves the run's APIs. */
async function startBundledMock(protocols: ProtocolList): Promise<MockServer> {
  return (await import('../../mock-server/index.ts')).startMockServer({ protocols });
}

export interface OpenRun {
  settings: RunSettings;
  /** Every secret of the run (tokens, secret header values), for the shell's redactor. */
  secrets: string[];
  /** The target as reports show it (credentials removed). */
  display: string;
  /** Closes the bundled mock when this run started it. */
  close(): Promise<void>;
}

/** Said before any traffic in a run that sends no token (issue 43: a server without auth needs none): the summary's first line, and how requests go out. */
export function noTokenNote(noToken: NoToken): string {
  const how = noToken === 'implicit' ? 'none named (--token-env, --token-file) and $IARI_TOKEN is unset, so requests carry no Authorization header' : 'requests carry no Authorization header';
  return `${noTokenHeadline({ run: { noToken } }) ?? ''} (${how}; what needs a token is skipped, saying so)`;
}

/**
 * Opens the validated target for a run: starts the bundled mock when no base URL was given (unless
 * the caller passed one), builds the run's settings and deadlines, and reads the account's request
 * rate from a real server for the throttle. `iari test`, the library and the vitest adapter
 * (suites/contract) all start here.
 */
export async function openRun(v: ValidTestOptions, hooks: Pick<ConformanceRunHooks, 'mock' | 'notice' | 'startedAt'> = {}): Promise<OpenRun> {
  // The run's clock starts before the mock, the preflight and the checks: they all count.
  const startedAt = hooks.startedAt ?? Date.now();
  // One line and exit 2 for a server that cannot be reached, before anything is judged.
  if (v.target.kind === 'external') {
    if (v.selection.noToken !== undefined) hooks.notice?.(noTokenNote(v.selection.noToken));
    await preflightTarget(v.target.base.origin, v.target.connection);
    // The first API's first route: the seed's core (chat completions) unless the caller's list says otherwise.
    await assertApiServed(v.target.base.root, v.protocols[0].routes[0].path, v.target.token, v.target.connection);
  }
  const ownMock = v.target.kind === 'bundled-mock' && hooks.mock === undefined;
  const mock = v.target.kind === 'bundled-mock' ? (hooks.mock ?? (await startBundledMock(v.protocols))) : undefined;
  const close = async (): Promise<void> => {
    if (ownMock) await mock?.close();
  };
  try {
    const common = { protocols: v.protocols, seed: v.seed, profile: v.profile, includeLimits: v.includeLimits, ...(v.expect.length === 0 ? {} : { expect: v.expect }), ...(v.model === undefined ? {} : { model: v.model }), ...(v.python === undefined ? {} : { python: v.python }), ...(v.maxRateLimitWaitMs === undefined ? {} : { maxRateLimitWaitMs: v.maxRateLimitWaitMs }) };
    const settings: RunSettings =
      v.target.kind === 'external'
        ? { ...common, root: v.target.base.root, token: v.target.token, target: 'external', connection: v.target.connection }
        : { ...common, root: mock!.origin, token: mock!.tokens.default, target: 'bundled-mock', ...mockAccountSettings(mock!) };
    Object.assign(settings, testTimeouts(v.timeouts, settings.target, startedAt, v.maxRateLimitWaitMs));
    // A /v1/me that never completes in the preflight is the run's first root cause, not a wait the checks repeat.
    settings.stalls = new Stalls();
    // A real model can take a while per answer, and a throttled check waits for its slots.
    if (v.pacePerSecond !== undefined) settings.pacePerSecond = v.pacePerSecond;
    else if (v.target.kind === 'external') {
      // The limit /v1/me reports, else a pace at which a full run takes seconds (a 429 is still waited out).
      const rpm = await preflightRequestsPerMinute(settings);
      if (rpm === undefined) settings.pacePerSecond = DEFAULT_PACE_PER_SECOND;
      else settings.requestsPerMinute = rpm;
    }
    if (v.target.kind === 'external' || v.pacePerSecond !== undefined) hooks.notice?.(paceNote(settings, v.pacePerSecond !== undefined));
    for (const note of runDeadlineNotes('before', settings)) hooks.notice?.(note);
    const secrets =
      v.target.kind === 'external'
        ? [v.target.token, ...connectionSecrets(v.target.connection, v.target.base.origin)]
        : [settings.token, ...Object.values(mock!.tokens.byAccount)];
    return { settings, secrets, display: v.target.kind === 'external' ? v.target.base.v1 : 'bundled mock (in-process)', close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs the check catalog against the validated target and returns the report, with what the shell needs to redact it. */
export async function conformanceRun(v: ValidTestOptions, hooks: ConformanceRunHooks = {}): Promise<ConformanceRunOutput> {
  const run = await openRun(v, hooks);
  try {
    const { report, errors } = await runCatalog({
      settings: run.settings,
      baseUrlDisplay: run.display,
      selection: v.selection,
      runId: hooks.runId ?? newRunId(),
      ...(hooks.onResult === undefined ? {} : { onResult: hooks.onResult }),
    });
    return { report, errors, passed: runPassed(report), settings: run.settings, secrets: run.secrets };
  } finally {
    await run.close();
  }
}

/**
 * Runs the conformance checks against a server (default: the bundled mock) and returns the report.
 * Options, defaults and deadlines are those of `iari test`.
 *
 * @example
 * const { passed, report } = await runConformance({ baseUrl: 'https://llm.example/v1', token: process.env.IARI_TOKEN });
 * for (const r of report.results) if (r.verdict === 'fail') console.log(r.id, r.failures[0]?.message);
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceOutcome> {
  refuseUnknownKeys('runConformance', options, [...TEST_OPTION_KEYS.filter((k) => k !== 'connection'), 'caFile', 'insecure', 'headers', 'onResult', 'baseline', 'serverVersion']);
  const { onResult, caFile, insecure, headers, baseline, serverVersion, ...testOptions } = options;
  const given = caFile !== undefined || insecure !== undefined || headers !== undefined;
  const connection = given ? connectionFromOptions({ who: 'runConformance', header: 'headers', caFile: 'caFile', insecure: 'insecure' }, { caFile, insecure, headers }) : undefined;
  const valid = validateTestOptions({ ...testOptions, ...(connection === undefined ? {} : { connection }) });
  if (serverVersion !== undefined && (typeof serverVersion !== 'string' || serverVersion.trim() === '')) {
    throw new HarnessError(HarnessErrorCode.USAGE, 'runConformance: serverVersion must be a non-empty string');
  }
  if (baseline !== undefined && (typeof baseline !== 'string' || baseline.trim() === '')) throw new HarnessError(HarnessErrorCode.USAGE, 'runConformance: baseline must be the path of a YAML file');
  // Read before any traffic, as `iari test --baseline` does.
  const known = baseline === undefined ? undefined : readBaseline(baseline, new Set(requirementInfos('default', valid.protocols).keys()));
  const { report: raw, errors } = await conformanceRun(valid, onResult === undefined ? {} : { onResult });
  const report = known === undefined ? raw : applyBaseline(raw, known, new Date().toISOString().slice(0, 10), serverVersion?.trim()).report;
  return { report, errors, passed: runPassed(report) };
}
