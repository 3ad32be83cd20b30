import type { Collector } from './collector.ts';
import { summarize } from './hdr.ts';
import {
  metricNames,
  type Counts,
  type Goodput,
  type LoadResult,
  type MetricName,
  type RunMeta,
  type ShardInfo,
  type Sweep,
  type Validity,
} from './load-result.ts';
import { evaluateSlos, withDefaultSlos, type Slo } from './slo.ts';
import { orderResultKeys } from './result-keys.ts';
import type { SectionFigures } from '../../sections/section-run.ts';
import type { AnySection } from '../../sections/section-contract.ts';

/** Client event-loop lag p99 above this makes the run's timings suspect (flagged, not hidden). */
export const EVENT_LOOP_BUDGET_US = 10_000;
/** Open loop: schedule lag p99 above this is flagged too. */
export const SCHEDULE_LAG_BUDGET_US = 10_000;

export interface BuildInput {
  meta: RunMeta;
  collector: Collector;
  slos: readonly Slo[];
  shard: ShardInfo | null;
  sweep?: Sweep | null;
}

function tokenSource(c: Collector): Counts['tokenSource'] {
  const s = c.tokenSources;
  if (s.size === 0) return 'none';
  if (s.size > 1) return 'mixed';
  return s.has('usage') ? 'usage' : 'tokenizer';
}

export function buildResult(input: BuildInput): LoadResult {
  const { meta, collector: c } = input;
  const windowS = Math.max(1e-9, (meta.measureEndEpochMs - meta.measureStartEpochMs) / 1000);
  const metrics: LoadResult['metrics'] = {};
  for (const m of metricNames) {
    const h = c.hist[m];
    if (h.totalCount > 0) metrics[m] = summarize(h, m === 'output_tps' ? 'millitokens_per_s' : 'us');
  }
  const errors = c.errorSummary();
  const throughput = throughputOf(c, windowS, meta.mode.kind === 'open');
  const perRequest = input.slos.filter((s) => s.perRequest).map((s) => s.expr);
  const goodput = goodputOf(perRequest, c.good, c.finished, windowS);
  const sections = c.sections.build({ windowS, finished: c.finished, openLoop: meta.mode.kind === 'open' });
  return orderResultKeys({
    meta,
    counts: {
      started: c.started,
      finished: c.finished,
      ok: c.ok,
      failed: c.failed,
      warmupExcluded: c.warmup,
      abortedAtEnd: c.abortedAtEnd,
      outputTokens: c.outputTokens,
      promptTokens: c.promptTokens,
      tokenSource: tokenSource(c),
      events: c.events,
    },
    ...judged(input.slos, { metrics, errors, throughput, goodput, ...sections }, c.finished, c.sections.list),
    timeslices: c.timeslices(),
    sweep: input.sweep ?? null,
    shard: input.shard,
    mergedFrom: null,
    validity: validity(metrics, meta.mode.kind === 'open'),
    ...sections,
  });
}

/** The figures SLOs read: the run's own, and every section's by its key. */
type Measured = Pick<LoadResult, 'metrics' | 'errors' | 'throughput' | 'goodput'> & SectionFigures;

/** The measured part of a result with the SLO verdicts over it, in the result's key order. */
export function judged(slos: readonly Slo[], m: Measured, finished: number, sections?: readonly AnySection[]): Pick<LoadResult, 'throughput' | 'metrics' | 'errors' | 'slos' | 'slosPassed' | 'goodput'> {
  const results = evaluateSlos(withDefaultSlos(slos), m, finished, sections);
  return { throughput: m.throughput, metrics: m.metrics, errors: m.errors, slos: results, slosPassed: results.every((s) => s.passed), goodput: m.goodput };
}

/** Rates over the measured window from a run's (or merged shards') counts. */
export function throughputOf(
  c: { started: number; finished: number; ok: number; outputTokens: number },
  windowS: number,
  open: boolean,
): LoadResult['throughput'] {
  return {
    windowS: round(windowS, 3),
    rps: round(c.ok / windowS, 3),
    okRps: round(c.ok / windowS, 3),
    outputTokensPerS: round(c.outputTokens / windowS, 3),
    achievedArrivalRate: open ? round(c.started / windowS, 3) : null,
  };
}

export function goodputOf(slos: string[], goodRequests: number, finished: number, windowS: number): Goodput {
  return {
    slos,
    goodRequests,
    goodputRps: round(goodRequests / windowS, 3),
    fraction: finished === 0 ? 0 : round(goodRequests / finished, 6),
  };
}

export function validity(metrics: LoadResult['metrics'], open: boolean): Validity {
  const eld = metrics.event_loop_lag?.percentiles.p99 ?? 0;
  const lag = open ? (metrics.schedule_lag?.percentiles.p99 ?? 0) : null;
  const warnings: string[] = [];
  if (eld > EVENT_LOOP_BUDGET_US) warnings.push(`client event-loop lag p99 ${(eld / 1000).toFixed(1)} ms exceeds ${EVENT_LOOP_BUDGET_US / 1000} ms: the client was busy, timings include its own delay`);
  if (lag !== null && lag > SCHEDULE_LAG_BUDGET_US) warnings.push(`schedule lag p99 ${(lag / 1000).toFixed(1)} ms exceeds ${SCHEDULE_LAG_BUDGET_US / 1000} ms: requests left later than planned (latency is still measured from the intended time)`);
  return { valid: warnings.length === 0, eventLoopLagP99Us: eld, budgetUs: EVENT_LOOP_BUDGET_US, scheduleLagP99Us: lag, warnings };
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export const metricUnit = (m: MetricName): 'us' | 'millitokens_per_s' => (m === 'output_tps' ? 'millitokens_per_s' : 'us');
