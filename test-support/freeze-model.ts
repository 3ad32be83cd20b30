/**
 * The coordinated-omission proof. The mock stalls for `freezeS` seconds from `startS` (seconds
 * after the run's t = 0): every stream's next write waits for the stall to end, and the rest of
 * its schedule shifts by the time it waited. A request sent at t whose schedule is looked at
 * t + a_j therefore finishes late by (end - p), where p is the first of those inside the stall.
 * That is the analytic latency an honest open-loop measurement must report; a closed loop sends
 * almost nothing during the stall and so hides it.
 */
export interface Freeze {
  startS: number;
  freezeS: number;
}

/** Extra latency (s) of a request sent at `sentS` whose writes are due `offsetsS` after it. */
export function stallOf(f: Freeze, sentS: number, offsetsS: readonly number[]): number {
  const end = f.startS + f.freezeS;
  for (const a of offsetsS) {
    const p = sentS + a;
    if (p >= f.startS) return p < end ? end - p : 0;
  }
  return 0;
}

/** Analytic latencies (µs): base service time plus each request's stall. */
export function analyticLatenciesUs(sentS: readonly number[], baseUs: number, f: Freeze, offsetsS: readonly number[]): number[] {
  return sentS.map((t) => baseUs + stallOf(f, t, offsetsS) * 1e6);
}

/**
 * When the mock looks at its schedule (s after the request): on arrival (it then writes the
 * head), at the first token (ttft) and at every later write (itl apart).
 */
export function writeOffsetsS(ttftMs: number, itlMs: number, contentEvents: number): number[] {
  return [0, ...Array.from({ length: contentEvents }, (_, j) => (ttftMs + j * itlMs) / 1000)];
}
