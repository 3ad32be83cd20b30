import { decodeHistogram, newHistogram, percentileOrNull } from '../results/hdr.ts';
import type { Timeslice } from '../results/load-result.ts';
import { fmtUs } from '../results/summary.ts';

// The coordinator's live view: once a second, the second that just ended, merged over every shard
// from the slices their heartbeats carry (histograms added, never percentiles averaged).

interface LiveShard {
  started: number;
  finished: number;
  failed: number;
  dead: boolean;
  slices: ReadonlyMap<number, Timeslice>;
}

/** The merged figures of epoch second `epochS` (coordinator clock) and the totals so far. */
export function liveFigures(shards: readonly LiveShard[], epochS: number): { finished: number; failed: number; ttftP50Us: number | null; ttftP95Us: number | null; totalFinished: number; totalFailed: number; alive: number } {
  const ttft = newHistogram();
  let finished = 0;
  let failed = 0;
  for (const s of shards) {
    const slice = s.slices.get(epochS);
    if (slice === undefined) continue;
    finished += slice.finished;
    failed += slice.failed;
    ttft.add(decodeHistogram(slice.ttftHdr));
  }
  return {
    finished,
    failed,
    ttftP50Us: percentileOrNull(ttft, 50),
    ttftP95Us: percentileOrNull(ttft, 95),
    totalFinished: shards.reduce((a, s) => a + s.finished, 0),
    totalFailed: shards.reduce((a, s) => a + s.failed, 0),
    alive: shards.filter((s) => !s.dead).length,
  };
}

/** One line, in the style of iari load's progress line. */
export function liveLine(shards: readonly LiveShard[], epochS: number, t0Ms: number, count: number): string {
  const f = liveFigures(shards, epochS);
  const elapsed = (epochS + 1 - t0Ms / 1000).toFixed(1);
  return `${elapsed}s  shards ${f.alive}/${count}  done ${f.totalFinished} (+${f.finished}/s)  errors ${f.totalFailed} (+${f.failed}/s)  ttft p50 ${fmtUs(f.ttftP50Us)} p95 ${fmtUs(f.ttftP95Us)}\n`;
}
