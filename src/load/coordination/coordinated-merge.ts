import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import type { LoadResult } from '../results/load-result.ts';
import { mergeResults } from '../results/merge.ts';
import type { CoordinationOutcome } from './coordinator.ts';
import { coordinatedShard, skewOf } from './coordination-report.ts';
import type { CoordinatedShard, RunCoordination } from '../results/coordination-section.ts';

/**
 * The coordinator's merged result: the shards' results merged exactly (results/merge.ts, over the
 * window in which all ran), with every shard's clock, the achieved start skew and who stopped the
 * run. A shard without a result is named in the section and in the merge's warnings.
 */
export function mergeCoordinated(outcome: CoordinationOutcome, runId: string): LoadResult {
  if (outcome.kind === 'unregistered') throw new HarnessError(HarnessErrorCode.COORDINATION_FAILED, outcome.detail);
  if (outcome.results.length === 0) throw new HarnessError(HarnessErrorCode.COORDINATION_FAILED, `no shard sent a result${outcome.stop === null ? '' : ` (${outcome.stop.detail})`}`);
  const merged = mergeResults(outcome.results.map((r) => r.result), runId);
  const shards: CoordinatedShard[] = [
    ...outcome.results.map((r) => {
      const late = r.result.coordination?.role === 'shard' ? r.result.coordination.lateMs : 0;
      return coordinatedShard(r.shard, r.host, r.clocks.start, r.clocks.end, late, r.clocks.injectedMs);
    }),
    ...outcome.missing.map((m) => ({ shard: m.shard, host: m.host, offsetStartMs: null, offsetEndMs: null, driftPpm: null, startMs: null, missing: m.why })),
  ].sort((a, b) => a.shard - b.shard);
  const starts = shards.flatMap((s) => (s.startMs === null ? [] : [s.startMs]));
  const coordination: RunCoordination = {
    role: 'coordinator',
    t0Ms: outcome.t0Ms,
    shards,
    startSkewMs: skewOf(starts),
    window: { startMs: merged.meta.measureStartEpochMs, endMs: merged.meta.measureEndEpochMs, seconds: merged.throughput.windowS },
    stop: outcome.stop,
  };
  const warnings = outcome.missing.map((m) => `shard ${m.shard}/${outcome.count} (${m.host}): ${m.why}`);
  return { ...merged, coordination, validity: { ...merged.validity, valid: merged.validity.valid && warnings.length === 0, warnings: [...merged.validity.warnings, ...warnings] } };
}
