import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { mergeTimeslices } from './collector.ts';
import { countsWithin } from '../coordination/coordination-report.ts';
import { decodeHistogram, newHistogram, summarize } from './hdr.ts';
import { errorClasses, LOAD_RESULT_SCHEMA, metricNames, type ErrorSummary, type LoadMode, type LoadResult } from './load-result.ts';
import { goodputOf, judged, round, throughputOf, validity } from './result-builder.ts';
import { parseSlos } from './slo.ts';
import { mergeSections, recordWindow, type SectionFigures } from '../../sections/section-run.ts';
import type { AnyRunRecord, AnySection } from '../../sections/section-contract.ts';
import { defaultLoadSections, loadRunRecords } from './load-sections.ts';
import { orderResultKeys } from './result-keys.ts';

/** Checks that a parsed file is a load result this version can merge. */
export function assertLoadResult(value: unknown, source: string): LoadResult {
  const v = value as Partial<LoadResult> | null;
  if (v === null || typeof v !== 'object' || v.meta?.schema !== LOAD_RESULT_SCHEMA || typeof v.counts !== 'object' || typeof v.metrics !== 'object') {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${source}: not an iari load result (meta.schema must be "${LOAD_RESULT_SCHEMA}")`);
  }
  return v as LoadResult;
}

function mergeMode(modes: LoadMode[]): LoadMode {
  const first = modes[0];
  if (first === undefined) throw new HarnessError(HarnessErrorCode.USAGE, 'nothing to merge');
  for (const m of modes) {
    if (m.kind !== first.kind) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, 'cannot merge open-loop and closed-loop results');
  }
  if (first.kind === 'closed') return { ...first, concurrency: modes.reduce((a, m) => a + (m.kind === 'closed' ? m.concurrency : 0), 0) };
  return { ...first, rate: round(modes.reduce((a, m) => a + (m.kind === 'open' ? m.rate : 0), 0), 6) };
}

/**
 * Exact merge of shard results: histograms add bucket by bucket (no percentile is averaged),
 * counts and error classes add, timeslices add by epoch second, and rates are recomputed over
 * the union of the measured windows (coordinated shards: over the whole seconds in which all ran).
 * SLOs are re-evaluated on the merged figures.
 */
export function mergeResults(results: readonly LoadResult[], runId: string, sections: readonly AnySection[] = defaultLoadSections, records: readonly AnyRunRecord[] = loadRunRecords): LoadResult {
  const first = results[0];
  if (first === undefined) throw new HarnessError(HarnessErrorCode.USAGE, 'iari report merge: give at least one run directory');
  const shardCounts = new Set(results.map((r) => r.shard?.count ?? 1));
  const seen = new Set<number>();
  for (const r of results) {
    if (r.shard !== null) {
      if (seen.has(r.shard.index)) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `shard ${r.shard.index}/${r.shard.count} appears twice`);
      seen.add(r.shard.index);
    }
  }
  const warnings: string[] = [];
  if (shardCounts.size > 1) warnings.push(`shards disagree on the shard count (${[...shardCounts].join(', ')})`);
  const expected = [...shardCounts][0] ?? 1;
  if (results.length !== expected) warnings.push(`merged ${results.length} of ${expected} shards`);
  const sloExprs = first.meta.config.slos;
  for (const r of results) {
    if (JSON.stringify(r.meta.config.slos) !== JSON.stringify(sloExprs)) warnings.push(`run ${r.meta.runId} used different SLOs; the first run's are applied`);
  }
  // Results whose records say they ran as one (coordinated shards: one clock, one start) are judged
  // over the window in which all ran, its whole seconds; others over the union of their windows.
  const allRan = recordWindow(records, results.map((r) => ({ figures: r as unknown as SectionFigures, startMs: r.meta.measureStartEpochMs, endMs: r.meta.measureEndEpochMs })));
  const startMs = allRan?.startMs ?? Math.min(...results.map((r) => r.meta.measureStartEpochMs));
  const endMs = allRan?.endMs ?? Math.max(...results.map((r) => r.meta.measureEndEpochMs));
  const windowS = allRan === null ? Math.max(1e-9, (endMs - startMs) / 1000) : allRan.endS - allRan.firstS;

  const metrics: LoadResult['metrics'] = {};
  for (const m of metricNames) {
    const parts = results.map((r) => r.metrics[m]).filter((x) => x !== undefined);
    if (parts.length === 0) continue;
    const h = newHistogram();
    for (const p of parts) h.add(decodeHistogram(p.hdr));
    metrics[m] = summarize(h, parts[0]?.unit ?? 'us');
  }

  const sum = (f: (r: LoadResult) => number): number => results.reduce((a, r) => a + f(r), 0);
  const finished = sum((r) => r.counts.finished);
  const failed = sum((r) => r.counts.failed);
  const byClass = Object.fromEntries(errorClasses.map((c) => [c, sum((r) => r.errors.byClass[c] ?? 0)])) as ErrorSummary['byClass'];
  const addMaps = (f: (r: LoadResult) => Record<string, number>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const r of results) for (const [k, v] of Object.entries(f(r))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const errors: ErrorSummary = {
    total: failed,
    rate: finished === 0 ? 0 : failed / finished,
    byClass,
    byStatus: addMaps((r) => r.errors.byStatus),
    byFinding: addMaps((r) => r.errors.byFinding),
    examples: results.flatMap((r) => r.errors.examples).slice(0, 20),
  };
  const sources = new Set(results.map((r) => r.counts.tokenSource).filter((s) => s !== 'none'));
  const ok = sum((r) => r.counts.ok);
  const outputTokens = sum((r) => r.counts.outputTokens);
  const started = sum((r) => r.counts.started);
  const mode = mergeMode(results.map((r) => r.meta.mode));
  const timeslices = mergeTimeslices(results.map((r) => r.timeslices), startMs);
  const throughput = throughputOf(allRan === null ? { started, finished, ok, outputTokens } : countsWithin(timeslices, allRan.firstS, allRan.endS), windowS, mode.kind === 'open');
  const goodput = goodputOf(first.goodput.slos, sum((r) => r.goodput.goodRequests), finished, windowS);
  const v = validity(metrics, mode.kind === 'open');
  for (const r of results) for (const w of r.validity.warnings) v.warnings.push(`shard ${r.shard?.index ?? '-'}: ${w}`);
  v.warnings.push(...warnings);
  v.valid = v.valid && results.every((r) => r.validity.valid) && warnings.length === 0;
  const merged = mergeSections(sections, results as unknown as readonly SectionFigures[], { windowS, results: results.length });
  return orderResultKeys({
    meta: {
      ...first.meta,
      runId,
      startedAt: results.map((r) => r.meta.startedAt).sort()[0] ?? first.meta.startedAt,
      endedAt: results.map((r) => r.meta.endedAt).sort().at(-1) ?? first.meta.endedAt,
      measureStartEpochMs: startMs,
      measureEndEpochMs: endMs,
      mode,
      config: { ...first.meta.config, requests: first.meta.config.requests === null ? null : sum((r) => r.meta.config.requests ?? 0) },
    },
    counts: {
      started,
      finished,
      ok,
      failed,
      warmupExcluded: sum((r) => r.counts.warmupExcluded),
      abortedAtEnd: sum((r) => r.counts.abortedAtEnd),
      outputTokens,
      promptTokens: sum((r) => r.counts.promptTokens),
      tokenSource: sources.size === 0 ? 'none' : sources.size > 1 || sources.has('mixed') ? 'mixed' : ([...sources][0] ?? 'none'),
      events: sum((r) => r.counts.events),
    },
    ...judged(parseSlos(sloExprs, sections), { metrics, errors, throughput, goodput, ...merged }, finished, sections),
    timeslices,
    sweep: null,
    shard: null,
    mergedFrom: results.map((r) => ({ runId: r.meta.runId, shard: r.shard })),
    validity: v,
    ...merged,
  });
}

