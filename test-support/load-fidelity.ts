import type { RequestTiming } from '../src/load/measure/request-timer.ts';

/** The part of the mock's send log the comparison needs (mock-server SendLogRecord). */
export interface SentEvent {
  writtenNs: bigint;
  tokens: number;
  content: boolean;
}

export interface FidelityReport {
  /** Requests found in the send log and compared. */
  matched: number;
  /** Requests iari finished that the send log does not hold (or lacked an x-request-id). */
  missing: number;
  /** Requests whose token-bearing events or token counts differ from the mock's schedule. */
  tokenMismatches: number;
  /** Per request: iari's first-token arrival minus the mock's write of the first content event (µs). */
  ttftErrorsUs: number[];
  /** Per token: iari's per-token gap minus the mock's (µs), same k-token split on both sides. */
  itlErrorsUs: number[];
}

/**
 * Compares iari's stamps with the mock's true write times (both on process.hrtime, one host).
 * TTFT error = arrival stamp - write time of the first content event: everything between the
 * server's write and iari's clock (kernel, event loop, parsing). ITL error per token = iari's
 * gap/k - the mock's gap/k for the same event.
 */
export function compareWithSendLog(timings: readonly RequestTiming[], lookup: (requestId: string) => readonly SentEvent[] | undefined): FidelityReport {
  const out: FidelityReport = { matched: 0, missing: 0, tokenMismatches: 0, ttftErrorsUs: [], itlErrorsUs: [] };
  for (const t of timings) {
    if (t.error !== null) continue;
    const sent = t.requestId === null ? undefined : lookup(t.requestId);
    if (sent === undefined) {
      out.missing++;
      continue;
    }
    const truth = sent.filter((e) => e.content && e.tokens > 0 && e.writtenNs > 0n);
    const seen = t.tokenEvents.filter((e) => e.tokens > 0);
    out.matched++;
    if (truth.length !== seen.length || truth.some((e, i) => e.tokens !== seen[i]?.tokens)) {
      out.tokenMismatches++;
      continue;
    }
    const first = truth[0];
    const firstSeen = seen[0];
    if (first === undefined || firstSeen === undefined) continue;
    out.ttftErrorsUs.push(Number(firstSeen.atNs - first.writtenNs) / 1000);
    for (let i = 1; i < truth.length; i++) {
      const a = truth[i];
      const b = seen[i];
      const pa = truth[i - 1];
      const pb = seen[i - 1];
      if (a === undefined || b === undefined || pa === undefined || pb === undefined) continue;
      const err = Number(b.atNs - pb.atNs - (a.writtenNs - pa.writtenNs)) / 1000 / a.tokens;
      for (let k = 0; k < a.tokens; k++) out.itlErrorsUs.push(err);
    }
  }
  return out;
}
