// What a load run calls: a baseline read before its first request, reads every interval while it
// runs, a last read after its last request ended; then the section for load.json.
import type { ConnectionOptions } from '../client/connection-options.ts';
import { ServerScraper, type ScrapeLog } from './scraper.ts';
import { buildServerSection, type ClientRequest, type ClientWindow, type PrimingRecord, type ServerSection } from './server-section.ts';

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

export interface ServerMetricsRun {
  /** Takes the baseline read (after priming, before the first request), then reads every interval until stop(). */
  begin(): Promise<void>;
  /** `priming`: a shard's priming request (null: none sent); absent for a run that is not a shard. */
  stop(records: readonly ClientRequest[], w: ClientWindow, priming?: PrimingRecord | null): Promise<ServerSection>;
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
  return {
    begin: async () => {
      await scraper.scrapeOnce();
      scraper.start();
    },
    stop: async (records, w, priming) => {
      const log: ScrapeLog = await scraper.stop();
      return buildServerSection(log, records, w, priming);
    },
  };
}
