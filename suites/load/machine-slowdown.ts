import { availableParallelism, loadavg } from 'node:os';

/**
 * How many times slower than a quiet machine this one runs now: the 1-minute load average per core,
 * at least 1, at most `cap`. Wall-clock bounds in tests that spawn a CLI or time a whole run are
 * multiplied by it, so a bound keeps its meaning on a quiet CI machine (factor 1) and does not turn
 * into a false failure when other work shares the cores.
 */
export function slowdown(cap = 6): number {
  const perCore = (loadavg()[0] ?? 0) / Math.max(1, availableParallelism());
  return Math.min(cap, Math.max(1, perCore));
}
