// How a server releases the work of requests the client cut (--cancel-rate with --server-metrics):
// after each cut, how long until the server's running count no longer holds it; and at the end of
// the run, whether that count came back to its level before the run (a leak when it did not). It
// takes the client's requests by shape (no import from the load room). docs/load.md, "Cancellation".

/** One read of the server's running and waiting gauges on iari's monotonic clock. */
export interface BusyRead {
  atNs: bigint;
  /** running + waiting (requests the server holds), or null when the read had no running gauge. */
  busy: number | null;
}

/**
 * A client request as the release needs it: when the server surely had it (its answer's head arrived),
 * and when the client stopped waiting for it (null: never, within the reads). A request never answered
 * is left out: the server may or may not hold it, and counting it held keeps a release time an upper bound.
 */
export interface ClientSpan {
  sentNs: bigint;
  endNs: bigint | null;
}

export interface ReleaseReport {
  /** How the figures are computed, in one sentence (load.json and report.html show it). */
  method: string;
  /** Cuts the reads could follow (a read before and after each). */
  cuts: number;
  /** Of them, seen released by a later read. */
  released: number;
  /** Still held by the server at the last read of the run. */
  unreleased: number;
  /** Upper bounds of the release time (cut to the first read that shows it released), ms; null without a release. */
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
  /** Median, over the released cuts, of the span from the later of the cut and the read before to the read that showed the release, ms: the figures' resolution. */
  resolutionMs: number | null;
}

export interface LeakFinding {
  /**
   * `leak`: the server still held more requests than before the run when the settle time was over;
   * `released`: it came back to its pre-run level; `not observed`: no read could say (no running
   * gauge, a failed baseline or final read): never read as "no leak".
   */
  verdict: 'leak' | 'released' | 'not observed';
  /** running + waiting before the run, and at the last read after it. */
  before: number | null;
  after: number | null;
  /** How long after the run's last request the last read was taken, ms. */
  settleMs: number | null;
  message: string;
}

/** Release times are bounded by the reads: the first read after a cut that no longer shows it held. */
export function releaseOf(base: { atNs: bigint; busy: number }, reads: readonly BusyRead[], cuts: readonly bigint[], spans: readonly ClientSpan[], intervalMs: number, fastMs: number | null): ReleaseReport | null {
  const usable = reads.filter((r): r is { atNs: bigint; busy: number } => r.busy !== null && r.atNs > base.atNs).sort((a, b) => (a.atNs < b.atNs ? -1 : a.atNs > b.atNs ? 1 : 0));
  if (cuts.length === 0) return null;
  const ordered = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sent = spans.map((s) => s.sentNs).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const ended = spans.map((s) => s.endNs).filter((e): e is bigint => e !== null).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const delays: number[] = [];
  const gaps: number[] = [];
  let next = 0;
  const pending: bigint[] = [];
  let prevAt: bigint | null = null;
  // The client's requests in flight at each read: answered (the server has them) and not yet ended (a cut request ended at its cut).
  const heldAt = usable.map((r) => Math.max(0, r.busy - base.busy - (countAtOrBefore(sent, r.atNs) - countAtOrBefore(ended, r.atNs))));
  // Cuts released by each read: the cuts so far less what the server still holds of them.
  const releasedBy = usable.map((r, i) => Math.max(0, countAtOrBefore(ordered, r.atNs) - (heldAt[i] as number)));
  let released = 0;
  for (const [i, r] of usable.entries()) {
    while (next < ordered.length && (ordered[next] as bigint) <= r.atNs) pending.push(ordered[next++] as bigint);
    const prev = prevAt ?? base.atNs;
    prevAt = r.atNs;
    // A request the server finished a moment before the client read its end makes one read look like a
    // release: a release counts only when the next read still shows it (the figure stays an upper bound).
    const confirmed = Math.min(releasedBy[i] as number, releasedBy[i + 1] ?? (releasedBy[i] as number));
    // The oldest cuts are released first.
    while (released < confirmed && pending.length > 0) {
      released++;
      const cut = pending.shift() as bigint;
      delays.push(Number(r.atNs - cut) / 1e6);
      // Released somewhere after both the cut and the read before this one: that span is the figure's uncertainty.
      gaps.push(Number(r.atNs - (cut > prev ? cut : prev)) / 1e6);
    }
  }
  const followed = delays.length + pending.length;
  const sorted = [...delays].sort((a, b) => a - b);
  const q = (p: number): number | null => (sorted.length === 0 ? null : round1(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number));
  const gapSorted = [...gaps].sort((a, b) => a - b);
  return {
    method: `each cut is released at the first read of the server's running + waiting gauges that no longer holds it: the server's count above its pre-run level, less the client's answered requests in flight at that read, is what it still holds of the cuts (oldest released first), when the next read agrees; a release time is the cut to that read, an upper bound (reads every ${intervalMs} ms${fastMs === null ? '' : `, every ${fastMs} ms for a second after each cut`}). Other traffic to the server shows as held work`,
    cuts: followed,
    released: delays.length,
    unreleased: pending.length,
    p50Ms: q(50),
    p95Ms: q(95),
    maxMs: sorted.length === 0 ? null : round1(sorted[sorted.length - 1] as number),
    resolutionMs: gapSorted.length === 0 ? null : round1(gapSorted[Math.floor(gapSorted.length / 2)] as number),
  };
}

/**
 * The leak finding: the last read after the run against the read before it. Fails closed: a run
 * without a running gauge, or without both reads, is `not observed`.
 */
export function leakOf(before: BusyRead | undefined, after: BusyRead | undefined, lastEndNs: bigint | null, cancelled: number): LeakFinding {
  const settleMs = after === undefined || lastEndNs === null ? null : Math.max(0, Math.round(Number(after.atNs - lastEndNs) / 1e6));
  if (before?.busy == null || after?.busy == null) {
    const why = before === undefined || after === undefined ? 'a read before or after the run failed' : "the server's /metrics has no running gauge iari maps";
    return { verdict: 'not observed', before: before?.busy ?? null, after: after?.busy ?? null, settleMs, message: `not observed: ${why}, so whether the ${cancelled} cut request${cancelled === 1 ? '' : 's'} were released is unknown (this is not a "no leak")` };
  }
  const b = before.busy;
  const a = after.busy;
  if (a > b) {
    return { verdict: 'leak', before: b, after: a, settleMs, message: `LEAK: the server still holds ${a - b} request${a - b === 1 ? '' : 's'} more than before the run (running + waiting ${a}, was ${b}) ${settleMs ?? '?'} ms after the last request ended; ${cancelled} request${cancelled === 1 ? ' was' : 's were'} cut by the client, so the server likely never released cancelled work` };
  }
  return { verdict: 'released', before: b, after: a, settleMs, message: `released: running + waiting back to ${a} (was ${b} before the run) ${settleMs ?? '?'} ms after the last request ended` };
}

/** running + waiting of a reading (waiting absent counts 0); null without a running gauge. */
export function busyOf(gauges: { running?: number; waiting?: number }): number | null {
  return gauges.running === undefined ? null : gauges.running + (gauges.waiting ?? 0);
}

function countAtOrBefore(sorted: readonly bigint[], at: bigint): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as bigint) <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
