/**
 * The coordinated-omission proof: the server stalls for `freezeS` seconds from `startS` (seconds
 * after the schedule start). A request that arrives during the stall is answered when the stall
 * ends, so its latency from the intended send is S + (startS + freezeS - t). That is the analytic
 * latency an honest open-loop measurement must report.
 */
export interface Freeze {
  startS: number;
  freezeS: number;
}

export function stallOf(f: Freeze, intendedS: number): number {
  const end = f.startS + f.freezeS;
  return intendedS >= f.startS && intendedS < end ? end - intendedS : 0;
}

/**
 * Simulates the stall on the bundled mock with its per-request latency override: a request due
 * inside the window gets its first token delayed until the window ends (used when the mock has
 * no freeze control of its own).
 */
export function freezeHeaders(f: Freeze, baseTtftMs: number): (seq: number, intendedS: number) => Record<string, string> | undefined {
  return (_seq, intendedS) => {
    const stall = stallOf(f, intendedS);
    return stall > 0 ? { 'x-iari-ttft-ms': (baseTtftMs + stall * 1000).toFixed(3) } : undefined;
  };
}

/** Analytic latencies (µs) for the given intended send times and base service time (µs). */
export function analyticLatenciesUs(intendedS: readonly number[], baseUs: number, f: Freeze): number[] {
  return intendedS.map((t) => baseUs + stallOf(f, t) * 1e6);
}
