import { checkScopeSignal, formatDuration } from './check-deadline.ts';

/**
 * The fetch handed to client libraries run as checks (the openai SDK): the same bounds as the
 * checks' own requests. A total deadline for the whole exchange, body included (a server that
 * dribbles or streams for ever cannot keep it open); the running check's signal (aborted when the
 * check passes its deadline); redirects are not followed, so the token never travels to the
 * origin a redirect names (README, Secrets).
 */
export function boundedFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signals = [deadline];
    const scoped = checkScopeSignal();
    if (scoped !== undefined) signals.push(scoped);
    if (init?.signal != null) signals.push(init.signal);
    try {
      return await fetch(input, { ...init, signal: AbortSignal.any(signals), redirect: 'manual' });
    } catch (error) {
      if (deadline.aborted) throw new Error(`no response head within the request deadline of ${formatDuration(timeoutMs)} (--request-timeout)`, { cause: error });
      throw error;
    }
  };
}
