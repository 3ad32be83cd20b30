// What a load run calls: a baseline read before its first request, reads every interval while it
// runs, a last read after its last request ended; then the section for load.json.
import type { ConnectionOptions } from '../client/connection-options.ts';
import { ServerScraper, type ScrapeLog } from './scraper.ts';
import { buildServerSection, type ClientRequest, type ClientWindow, type ServerSection } from './server-section.ts';

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
  stop(records: readonly ClientRequest[], w: ClientWindow): Promise<ServerSection>;
}

/** Takes the baseline read, then reads every interval until stop(). */
export async function beginServerMetrics(o: ServerMetricsOptions, target: { baseUrl: string; token: string; connection?: ConnectionOptions }): Promise<ServerMetricsRun> {
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
  await scraper.scrapeOnce();
  scraper.start();
  return {
    stop: async (records, w) => {
      const log: ScrapeLog = await scraper.stop();
      return buildServerSection(log, records, w);
    },
  };
}
