// The priming request as the server section takes it (a shard records it: iari report merge counts
// every shard's priming inside the joined window, docs/server-metrics.md "Reconciliation").
import type { RequestTiming } from './measure/request-timer.ts';
import type { PrimingRecord } from '../server-metrics/server-section.ts';

/** A priming cut at the pre-window deadline (or still being checked) is `aborted`: its usage is unknown. */
export function primingRecord(t: RequestTiming, epochMsOf: (ns: bigint) => number): PrimingRecord {
  const first = t.tokenEvents[0];
  const cached = t.extras?.cachedTokens;
  return {
    request: {
      phase: t.abortedAtEnd ? 'aborted' : 'measure',
      outputTokens: t.abortedAtEnd ? 0 : t.outputTokens,
      tokenSource: t.abortedAtEnd ? 'none' : t.tokenSource,
      ...(t.abortedAtEnd || t.promptTokens <= 0 ? {} : { promptTokens: t.promptTokens }),
      ...(t.abortedAtEnd || cached === undefined || cached === null ? {} : { cachedTokens: cached }),
      intendedUs: 0,
      sentUs: 0,
      ttftUs: first === undefined ? null : Number(first.atNs - t.sentNs) / 1000,
      error: t.error,
    },
    sentEpochMs: epochMsOf(t.sentNs),
    endEpochMs: t.endNs === null ? null : epochMsOf(t.endNs),
  };
}
