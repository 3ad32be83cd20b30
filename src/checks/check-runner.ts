import type { Grade } from './verdicts.ts';
import type { CheckContext, CheckDef, CheckOutcome } from './check-types.ts';
import { Judge } from './judge.ts';
import { CheckHttpError } from './check-http.ts';

export const LIMITS_SKIP_REASON = 'rate-limit checks consume quota; run with --include limits';

class CheckTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`the check did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one check, fail-closed: an exception, a timeout or a transport error inside the check
 * becomes a `fail` with evidence on every ID the check had not yet decided; it never escapes.
 */
export async function runCheck(def: CheckDef, ctx: CheckContext, gradeOf: (id: string) => Grade): Promise<CheckOutcome[]> {
  const judge = new Judge(def.ids, gradeOf);
  if (def.needsLimits === true && !ctx.includeLimits) {
    judge.skipRest(LIMITS_SKIP_REASON);
    return judge.outcomes();
  }
  try {
    await withTimeout(def.run(ctx, judge), def.timeoutMs ?? ctx.checkTimeoutMs);
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
