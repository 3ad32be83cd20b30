// The run-to-run noise floor of each percentile: the smallest relative change `iari report compare`
// calls significant between two single runs. Two runs of one configuration differ by more than
// either run's sampling error: the machine's load, GC and the neighbours move a whole run, and no
// test within a run sees that. Each floor is the larger of 3 x the root-mean-square log ratio and
// 1.25 x the largest change seen over 20 pairs of identical runs, rounded up to 5%
// (`npx tsx scripts/compare-false-positives.ts --keep DIR`: iari load defaults against `iari mock`
// on a shared 2-core machine at load 5-8). Tails are wide: one client pause moves a p99 of 135 requests. Repeated runs (--repeat on both
// sides) measure the run-to-run spread themselves and are tested without a floor.
import type { PercentileKey } from '../load/results/load-result.ts';

type Floors = Record<PercentileKey, number>;

const flat = (x: number): Floors => ({ p50: x, p90: x, p95: x, p99: x, 'p99.9': x });

export const NOISE_FLOORS: Record<string, Floors> = {
  ttft: { p50: 0.05, p90: 0.4, p95: 0.95, p99: 2.15, 'p99.9': 2.4 },
  itl: { p50: 0.1, p90: 0.25, p95: 0.65, p99: 3.35, 'p99.9': 6.9 },
  tpot: { p50: 0.05, p90: 0.1, p95: 0.2, p99: 0.6, 'p99.9': 1.25 },
  e2e: { p50: 0.15, p90: 0.05, p95: 0.05, p99: 0.35, 'p99.9': 0.4 },
  // A few milliseconds on loopback: client scheduling noise is most of it.
  ttfb: { p50: 2.4, p90: 7.55, p95: 17.65, p99: 21.15, 'p99.9': 22.3 },
  output_tps: { ...flat(0.05), 'p99.9': 0.1 },
};

/** The floor of a row key such as ttft.p95 (0 for rows without one). */
export function noiseFloor(key: string): number {
  const dot = key.indexOf('.');
  const metric = key.slice(0, dot);
  const stat = key.slice(dot + 1) as PercentileKey;
  return NOISE_FLOORS[metric]?.[stat] ?? 0;
}
