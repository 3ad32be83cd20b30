/**
 * A deadline that does not count time spent waiting out rate limits: it fires once `ms` of the
 * check's own time have passed, `paused()` (the run's waited milliseconds, which only grow) being
 * credited back at each expiry, but never later than `hardMs` after it was armed. Returns the cancel.
 * The runner's per-check deadline (check-runner.ts) and the client process's bound on one operation
 * (client-process.ts) both use it.
 */
export function pausedDeadline(ms: number, paused: () => number, onExpire: (extended: boolean) => void, hardMs = Infinity): () => void {
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  let credited = paused();
  let budget = ms;
  const arm = (): void => {
    timer = setTimeout(() => {
      const extra = paused() - credited;
      credited += extra;
      if (extra > 0 && budget < hardMs) {
        budget += extra;
        arm();
        return;
      }
      onExpire(hardMs <= budget);
    }, Math.max(0, Math.min(budget, hardMs) - (performance.now() - started)));
  };
  arm();
  return () => clearTimeout(timer);
}
