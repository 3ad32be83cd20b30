// What a load run calls: a baseline read before its first request, reads every interval while it
// runs, a last read after its last request ended; then the section for load.json.
import type { ConnectionOptions } from '../client/connection-options.ts';
import { ServerScraper, type ScrapeLog, type ScrapePoint } from './scraper.ts';
import { buildServerSection, type ClientRequest, type ClientWindow, type PrimingRecord, type ServerSection } from './server-section.ts';
import { busyOf, leakOf, releaseOf, type ClientSpan, type LeakFinding, type ReleaseReport } from './cancel-release.ts';

export interface ServerMetricsOptions {
  /** The metrics URL; null: the target's origin + /metrics. */
  url: string | null;
  /** Headers for the metrics URL (--server-metrics-header), sent there whatever its origin. */
  headers: readonly { name: string; value: string }[];
  intervalMs: number;
  /** Bound of one read, ms (default four intervals, from 250 ms to 2 s). */
  timeoutMs?: number;
}

export function metricsUrlFor(baseUrl: string, given: string | null): string {
  return given ?? `${new URL(baseUrl).origin}/metrics`;
}

/** What the client cut (--cancel-rate): the cut instants, every request's span, and when the last request ended. */
export interface ClientCuts {
  cuts: readonly bigint[];
  spans: readonly ClientSpan[];
  lastEndNs: bigint;
  /** The run's own priming request was cut at the pre-window deadline just before the pre-run read: the server may still have held it then. */
  primingCut?: boolean;
}

/** After a run with cuts: reads every CUT_READ_MS for CUT_WINDOW_MS after each cut, and up to SETTLE_MS after the run for the count to come back. */
export const CUT_READ_MS = 50;
export const CUT_WINDOW_MS = 1000;
export const SETTLE_MS = 3000;

export interface ServerMetricsRun {
  /** Takes the baseline read (after priming, before the first request), then reads every interval until stop(). */
  begin(): Promise<void>;
  /** The client cut a request just now: read faster for a while (the release is timed to that resolution). */
  cut(): void;
  /** `priming`: a shard's priming request (null: none sent); absent for a run that is not a shard. */
  stop(records: Iterable<ClientRequest>, w: ClientWindow, cuts?: ClientCuts, priming?: PrimingRecord | null): Promise<{ section: ServerSection; release: ReleaseReport | null; leak: LeakFinding | null }>;
}

/**
 * The scraper of one run. A shard (`beforePriming`) reads once before its priming request too:
 * iari report merge needs that read and the priming's usage to reconcile the shards exactly.
 */
export async function openServerMetrics(o: ServerMetricsOptions, target: { baseUrl: string; token: string; connection?: ConnectionOptions }, beforePriming: boolean): Promise<ServerMetricsRun> {
  const url = metricsUrlFor(target.baseUrl, o.url);
  const scraper = new ServerScraper({
    url,
    targetOrigin: new URL(target.baseUrl).origin,
    token: target.token,
    headers: o.headers,
    intervalMs: o.intervalMs,
    timeoutMs: o.timeoutMs ?? Math.max(250, Math.min(2000, o.intervalMs * 4)),
    ...(target.connection === undefined ? {} : { connection: target.connection }),
  });
  if (beforePriming) await scraper.readBeforePriming();
  let before: ScrapePoint | undefined;
  let fast = false;
  return {
    begin: async () => {
      await scraper.scrapeOnce();
      before = scraper.points[0];
      scraper.start();
    },
    cut: () => {
      fast = true;
      scraper.hurry(CUT_WINDOW_MS, CUT_READ_MS);
    },
    stop: async (records, w, cuts, priming) => {
      const withCuts = cuts !== undefined && cuts.cuts.length > 0;
      const read = before === undefined ? null : busyOf(before.reading.gauges);
      // The pre-run level is the server's without the run's own priming request (cut just before that read when it outlived its deadline).
      const baseline = read === null ? null : Math.max(0, read - (cuts?.primingCut === true ? 1 : 0));
      // The server is given SETTLE_MS to come back to its pre-run level before a leak is called.
      const settled = (p: ScrapePoint): boolean => baseline !== null && (busyOf(p.reading.gauges) ?? Infinity) <= baseline;
      const log: ScrapeLog = await scraper.stop(true, withCuts ? (sc) => sc.settle(settled, SETTLE_MS, 100) : undefined);
      const section = buildServerSection(log, records, w, priming);
      if (!withCuts) return { section, release: null, leak: null };
      const reads = log.points.map((p) => ({ atNs: p.atNs, busy: busyOf(p.reading.gauges) }));
      const release = before === undefined || baseline === null ? null : releaseOf({ atNs: before.atNs, busy: baseline }, reads, cuts.cuts, cuts.spans, o.intervalMs, fast ? Math.min(CUT_READ_MS, o.intervalMs) : null);
      // Only a read taken after the last request ended can say whether the server came back.
      const last = log.points[log.points.length - 1];
      const after = last !== undefined && last.atNs >= cuts.lastEndNs ? { atNs: last.atNs, busy: busyOf(last.reading.gauges) } : undefined;
      const beforeRead = before === undefined ? undefined : { atNs: before.atNs, busy: baseline };
      return { section, release, leak: leakOf(beforeRead, after, cuts.lastEndNs, cuts.cuts.length) };
    },
  };
}
