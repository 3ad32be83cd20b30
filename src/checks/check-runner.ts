import type { Grade } from './verdicts.ts';
import type { CheckContext, CheckDef, CheckOutcome } from './check-types.ts';
import { Judge } from './judge.ts';
import { CheckHttpError } from './check-http.ts';
import { checkDeadlineMessage, notRunMessage, runInCheckScope, runTimeLeft } from './check-deadline.ts';

export const LIMITS_SKIP_REASON = 'rate-limit checks consume quota; run with --include limits';

class CheckTimeout extends Error {}

/** Races the check against its deadline; on timeout `onTimeout` runs (aborting the check's requests) and a CheckTimeout is thrown. */
function withTimeout<T>(p: Promise<T>, ms: number, message: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new CheckTimeout(message));
    }, ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one check, fail-closed: an exception, a timeout or a transport error inside the check
 * becomes a `fail` with evidence on every ID the check had not yet decided; it never escapes.
 * The check gets the smaller of its own deadline and what is left of the run's; past it, its
 * requests are aborted (they carry its signal: check-deadline.ts) and it is abandoned. After the
 * run's deadline no check starts: its IDs fail as not decided, saying why.
 */
export async function runCheck(def: CheckDef, ctx: CheckContext, gradeOf: (id: string) => Grade): Promise<CheckOutcome[]> {
  const judge = new Judge(def.ids, gradeOf);
  if (def.needsLimits === true && !ctx.includeLimits) {
    judge.skipRest(LIMITS_SKIP_REASON);
    return judge.outcomes();
  }
  const left = runTimeLeft(ctx.runDeadline);
  if (left <= 0 && ctx.runDeadline !== undefined) {
    judge.failRest({ message: notRunMessage(ctx.runDeadline) });
    return judge.outcomes();
  }
  const own = def.timeoutMs ?? ctx.checkTimeoutMs;
  const abort = new AbortController();
  try {
    const message = checkDeadlineMessage(own, left < own ? ctx.runDeadline : undefined);
    await withTimeout(runInCheckScope(abort.signal, () => def.run(ctx, judge)), Math.min(own, left), message, () => abort.abort(new Error(message)));
  } catch (error) {
    const message = ctx.http.redact(error instanceof Error ? error.message : String(error));
    if (error instanceof CheckHttpError) {
      judge.failRest({ message: `request failed: ${message}`, curl: error.curl });
    } else if (error instanceof CheckTimeout) {
      judge.failRest({ message });
    } else {
      judge.failRest({ message: `the check could not decide: ${message}` });
    }
  }
  return judge.outcomes();
}
