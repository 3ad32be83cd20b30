// The library form of `iari test`: the same contract suites, verdicts and report object, without
// the CLI's flags, terminal output or report files.
import type { RunSettings } from '../checks/check-context.ts';
import { normalizeBaseUrl } from '../checks/check-context.ts';
import type { CheckRun, Selection } from '../checks/conformance-results.ts';
import { runConformance as runSuites } from '../checks/conformance-run.ts';
import { preflightRequestsPerMinute } from '../checks/preflight.ts';
import { requirementInfos } from '../checks/registry-view.ts';
import type { ConformanceReport } from '../checks/verdicts.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { newRunId } from '../report/run-dir.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

export interface ConformanceOptions {
  /** The server to test, with or without the trailing `/v1`. Absent: the bundled mock, started in-process and closed afterwards. */
  baseUrl?: string;
  /** Bearer token for `baseUrl` (required with it; never written into the report). */
  token?: string;
  /** Which requirements to judge (default `all`). */
  grade?: 'must' | 'should' | 'all';
  /** Requirement IDs to judge; the others are skipped. */
  only?: readonly string[];
  /** Requirement IDs not to judge. */
  skip?: readonly string[];
  /** Also run the rate-limit checks (they consume quota and wait out a window). */
  includeLimits?: boolean;
  /** Seed for generated inputs (default 1). */
  seed?: number;
  /** Called after each check, e.g. for a progress line. */
  onResult?: (run: CheckRun, done: number, total: number) => void;
}

export interface ConformanceOutcome {
  /** The same object `iari test --json` prints (conformance.json). */
  report: ConformanceReport;
  /** Errors outside any check (a suite that failed to load...); they make the run fail. */
  errors: string[];
  /** True when no selected requirement failed and there were no errors: `iari test` would exit 0. */
  passed: boolean;
}

/** Shorter tokens cannot be scrubbed from reports without mangling them (as `iari test`). */
const MIN_TOKEN_LENGTH = 8;

function ids(kind: string, list: readonly string[] | undefined): string[] {
  if (list === undefined) return [];
  const known = requirementInfos();
  const unknown = list.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new HarnessError(HarnessErrorCode.UNKNOWN_REQUIREMENT, `runConformance: ${kind} names unknown requirement(s): ${unknown.join(', ')}`);
  }
  return [...new Set(list)].sort();
}

/** The bundled mock's second account and small-limit accounts (fixtures/accounts.json), as `iari test` uses them. */
function mockAccountSettings(mock: MockServer): Pick<RunSettings, 'secondToken' | 'limitTokens'> {
  const byAccount = mock.tokens.byAccount;
  const second = Object.values(byAccount).find((t) => t !== mock.tokens.default);
  const limitTokens: NonNullable<RunSettings['limitTokens']> = {};
  if (byAccount['acct_free'] !== undefined) limitTokens.requestLimited = byAccount['acct_free'];
  if (byAccount['acct_team'] !== undefined) limitTokens.tokenLimited = byAccount['acct_team'];
  if (byAccount['acct_capped'] !== undefined) limitTokens.capped = byAccount['acct_capped'];
  return { ...(second === undefined ? {} : { secondToken: second }), limitTokens };
}

/**
 * Runs the conformance suites against a server (default: the bundled mock) and returns the report.
 *
 * @example
 * const { passed, report } = await runConformance({ baseUrl: 'https://llm.example/v1', token: process.env.IARI_TOKEN });
 * for (const r of report.results) if (r.verdict === 'fail') console.log(r.id, r.failures[0]?.message);
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceOutcome> {
  const grade = options.grade ?? 'all';
  if (grade !== 'must' && grade !== 'should' && grade !== 'all') throw new HarnessError(HarnessErrorCode.USAGE, `runConformance: grade must be must, should or all, got "${String(grade)}"`);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw new HarnessError(HarnessErrorCode.USAGE, `runConformance: seed must be an integer in [0, 2^31-1], got ${seed}`);
  const selection: Selection = { grade, only: ids('only', options.only), skip: ids('skip', options.skip) };
  let base: { root: string; display: string } | undefined;
  if (options.baseUrl !== undefined) {
    const normalized = normalizeBaseUrl(options.baseUrl);
    if ('error' in normalized) throw new HarnessError(HarnessErrorCode.USAGE, `runConformance: baseUrl: ${normalized.error}`);
    base = normalized;
    if (options.token === undefined || options.token.trim() === '') throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, 'runConformance: a baseUrl needs a token');
  }
  const token = options.token?.trim() ?? '';
  if (base !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `runConformance: the bearer token has ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are needed to keep it out of reports`);
  }
  const mock = base === undefined ? await startMockServer() : undefined;
  try {
    const settings: RunSettings =
      mock !== undefined
        ? { root: mock.origin, token: mock.tokens.default, seed, target: 'bundled-mock', includeLimits: options.includeLimits === true, ...mockAccountSettings(mock) }
        : { root: base!.root, token, seed, target: 'external', includeLimits: options.includeLimits === true };
    if (mock === undefined) {
      // As `iari test`: a real model can take a while per answer, and a throttled check waits for its slots.
      settings.requestsPerMinute = await preflightRequestsPerMinute(settings);
      settings.requestTimeoutMs = 60_000;
      settings.checkTimeoutMs = 600_000;
    }
    const { report, errors } = await runSuites({
      settings,
      baseUrlDisplay: mock === undefined ? base!.display : 'bundled mock (in-process)',
      selection,
      runId: newRunId(),
      ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
    });
    return { report, errors, passed: report.summary.fail === 0 && errors.length === 0 };
  } finally {
    await mock?.close();
  }
}
