import type { Grade } from '../kernel/verdicts.ts';
import type { CheckContext, CheckDef, CheckOutcome } from '../context/check-types.ts';
import { Judge } from '../kernel/judge.ts';
import { CheckHttpError } from '../http/check-http.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { judgeRateLimitEvents, reportedLimitsOf } from '../rate-limits/rate-limit-findings.ts';
import { checkDeadlineMessage, isRunDeadlineMessage, notRunMessage, runTimeLeft, type RunDeadline } from '../kernel/check-deadline.ts';
import { sharedRequest } from '../context/shared-requests.ts';
import { pausedDeadline } from '../kernel/paused-deadline.ts';

export const LIMITS_SKIP_REASON = 'rate-limit checks consume quota; run with --include limits';

class CheckTimeout extends Error {}

/**
 * Races the check against its deadline: `ownMs`, extended by the time spent waiting out rate limits
 * (`paused()`: they do not count against a check's budget), but never past `hardMs`, what is left of
 * the run. At the deadline `onTimeout` runs (aborting the check's requests) and a CheckTimeout is thrown.
 */
function withTimeout<T>(p: Promise<T>, ownMs: number, hardMs: number, run: RunDeadline | undefined, onTimeout: (message: string) => void, paused: () => number = () => 0): Promise<T> {
  let cancel = (): void => undefined;
  const timeout = new Promise<never>((_, reject) => {
    cancel = pausedDeadline(
      ownMs,
      paused,
      (atHard) => {
        const message = checkDeadlineMessage(ownMs, atHard ? run : undefined);
        onTimeout(message);
        reject(new CheckTimeout(message));
      },
      hardMs,
    );
  });
  return Promise.race([p, timeout]).finally(() => cancel());
}

/**
 * Runs one check, fail-closed: an exception, a timeout or a transport error inside the check
 * becomes a `fail` with evidence on every ID the check had not yet decided; it never escapes.
 * The check gets the smaller of its own deadline and what is left of the run's; past it, its
 * requests are aborted (each carries its signal: CheckHttp.forCheck) and it is abandoned. After the
 * run's deadline no check starts: its IDs are undecided (cause deadline), saying why, as are those
 * a check had not decided when the run's deadline cut it.
 */
export async function runCheck(def: CheckDef, ctx: CheckContext, gradeOf: (id: string) => Grade): Promise<CheckOutcome[]> {
  const judge = new Judge(def.ids, gradeOf);
  if (def.needsLimits === true && !ctx.includeLimits) {
    judge.skipRest(LIMITS_SKIP_REASON);
    return judge.outcomes();
  }
  const left = runTimeLeft(ctx.runDeadline, Date.now(), ctx.http.rateLimits?.waitedMs ?? 0);
  if (left <= 0 && ctx.runDeadline !== undefined) {
    judge.undecideRest('deadline', notRunMessage(ctx.runDeadline));
    return judge.outcomes();
  }
  const rateLimits = ctx.http.rateLimits;
  rateLimits?.drain();
  const abort = new AbortController();
  try {
    // The check's own client carries its signal in every request it sends, even after it was abandoned.
    const own: CheckContext = { ...ctx, http: ctx.http.forCheck(abort.signal) };
    await withTimeout(def.run(own, judge), def.timeoutMs ?? ctx.checkTimeoutMs, left, ctx.runDeadline, (m) => abort.abort(new Error(m)), () => rateLimits?.waitedMs ?? 0);
  } catch (error) {
    const message = ctx.http.redact(error instanceof Error ? error.message : String(error));
    const giveUp = rateLimitGiveUp(error);
    if (giveUp !== undefined) {
      // The server's rate limit kept the check from deciding (issue 37: a check whose requests were refused
      // by 429 after waiting): undecided, cause rate-limit, LIMIT-010 (and LIMIT-009) the root cause, never this check's finding.
      judge.undecideRest('rate-limit', `not decided: ${ctx.http.redact(giveUp.message)}; root cause LIMIT (LIMIT-010 reports the 429s)`);
    } else if (error instanceof CheckHttpError && (error.blocked || error.violation?.kind === 'deadline')) {
      // One root cause, not a cascade: what depends on an answer that never completes is blocked by it.
      judge.blockRest({ message: error.blocked ? message : `request failed: ${message}`, ...(error.curl === '' ? {} : { curl: error.curl }) });
    } else if (error instanceof CheckHttpError) {
      judge.failRest({ message: `request failed: ${message}`, curl: error.curl });
    } else if (error instanceof CheckTimeout && isRunDeadlineMessage(message)) {
      judge.undecideRest('deadline', message);
    } else if (error instanceof CheckTimeout) {
      judge.failRest({ message });
    } else {
      judge.failRest({ message: `the check could not decide: ${message}` });
    }
  }
  return [...judge.outcomes().map(deadlineUndecided), ...(await rateLimitOutcomes(ctx, gradeOf))];
}

/**
 * A check that caught the abort of its own request and judged on it (a request failed because the
 * run's deadline aborted it) decided nothing either: undecided, cause deadline.
 */
function deadlineUndecided(o: CheckOutcome): CheckOutcome {
  if (o.verdict !== 'fail' && o.verdict !== 'non-strict') return o;
  if (!o.failures.every((f) => isRunDeadlineMessage(f.message))) return o;
  return { id: o.id, verdict: 'undecided', cause: 'deadline', reason: o.failures[0]?.message ?? "the run's deadline passed" };
}

/** /v1/me once per run, for the limits it reports (rate-limit-findings.ts). */
const meForLimits = sharedRequest('rate-limits:me', (ctx: CheckContext) => ctx.http.get('/v1/me'));

/** The 429s this check met, judged by the LIMIT and HDR requirements only (rate-limit-findings.ts). */
async function rateLimitOutcomes(ctx: CheckContext, gradeOf: (id: string) => Grade): Promise<CheckOutcome[]> {
  const events = ctx.http.rateLimits?.drain() ?? [];
  if (events.length === 0) return [];
  let limits;
  try {
    limits = reportedLimitsOf((await meForLimits(ctx)).json);
  } catch {
    limits = undefined;
  }
  events.push(...(ctx.http.rateLimits?.drain() ?? []));
  return judgeRateLimitEvents(events, limits, gradeOf).map((o) => (o.verdict === 'fail' || o.verdict === 'non-strict' ? { ...o, failures: o.failures.map((f) => ({ ...f, message: ctx.http.redact(f.message) })) } : o));
}
