// load.json's `server` section behind the result-section contract (src/sections/section-contract.ts):
// built from the run's reads of /metrics when the run ends (not per request: it collects nothing),
// merged across shards by server-merge.ts, its summary block at the summary's end, its tile after the
// report's over-time charts, and the `server.` SLOs in their own grammar (server-slo.ts).
import type { ResultSection, SectionSlo } from '../sections/section-contract.ts';
import { mergeServerSections } from './server-merge.ts';
import type { ServerSection } from './server-section.ts';
import { observeServerSlo, parseServerSlo, serverSloHelp } from './server-slo.ts';
import { serverBlock } from './server-summary.ts';
import { serverTile } from './server-tile.ts';

const serverSlo: SectionSlo<ServerSection> = {
  metric: 'server',
  stats: ['reconcile', 'preemptions', 'running.max', 'running.mean', 'waiting.max', 'waiting.mean', 'kv_cache_usage.max', 'kv_cache_usage.mean'],
  unit: 'count',
  help: serverSloHelp,
  observe: (out, stat) => observeServerSlo(stat, out).observed,
  noData: 'the run read no server metrics (give --server-metrics)',
  noDataFor: (out, stat) => observeServerSlo(stat, out).noData ?? 'the run read no server metrics (give --server-metrics)',
  parse: (expr) => {
    const p = parseServerSlo(expr);
    return typeof p === 'string' ? p : { stat: p.stat, op: p.op, threshold: p.threshold, unit: p.unit };
  },
  // The server's counters are judged whether or not a measured request finished.
  judgeWithoutRequests: true,
};

/**
 * The server section. `read`: the run's section, read when the run ends (--server-metrics; absent
 * or undefined: the run read no metrics, so load.json has no `server`). Merging, summaries and
 * reports use it unbound.
 */
export function serverResultSection(read?: () => ServerSection | undefined): ResultSection<ServerSection, undefined> {
  return {
    key: 'server',
    place: 'end',
    open: () => undefined,
    collect() {},
    build: () => read?.(),
    merge: (parts) => mergeServerSections(parts),
    summary: (out, _fmt, run) => serverBlock(out, run.counts?.warmupExcluded ?? 0).split('\n'),
    tile: (out, run) => serverTile(out, run.timeslices ?? []),
    slos: [serverSlo],
  };
}
