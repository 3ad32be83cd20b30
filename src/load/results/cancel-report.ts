import { decodeHistogram, encodeHistogram, newHistogram, record, type Histogram } from './hdr.ts';
import type { CancellationReport, LoadResult } from './load-result.ts';
import type { LeakFinding, ReleaseReport } from '../../server-metrics/cancel-release.ts';
import type { ResultSection, SectionTile } from '../../sections/section-contract.ts';
import { sumCounts } from '../../sections/counts.ts';

/** Counts the measured requests --cancel-rate chose to cut, by how they ended (cancellation.ts). */
export class CancelAcc {
  chosen = 0;
  cancelled = 0;
  endedFirst = 0;
  abortedAtEnd = 0;
  prefill = 0;
  decode = 0;
  /** Send to cut, µs; token-bearing events before the cut. */
  readonly cutUs: Histogram = newHistogram();
  readonly cutTokens: Histogram = newHistogram();

  cut(afterUs: number, tokens: number): void {
    this.chosen++;
    this.cancelled++;
    if (tokens === 0) this.prefill++;
    else this.decode++;
    record(this.cutUs, Math.max(1, afterUs));
    // The histogram holds values from 1: a token count is recorded plus one.
    record(this.cutTokens, tokens + 1);
  }

  /** A chosen request that ended before its point, or was still in flight at the end. */
  uncut(how: 'endedFirst' | 'abortedAtEnd'): void {
    this.chosen++;
    this[how]++;
  }
}

export function buildCancellationReport(acc: CancelAcc, plan: { rate: number; text: string }, server: { release: ReleaseReport | null; leak: LeakFinding | null }): CancellationReport {
  return { rate: plan.rate, after: plan.text, chosen: acc.chosen, cancelled: acc.cancelled, endedFirst: acc.endedFirst, abortedAtEnd: acc.abortedAtEnd, ...distributions(acc.cutUs, acc.cutTokens), phase: { prefill: acc.prefill, decode: acc.decode }, release: server.release, leak: server.leak };
}

function distributions(cutUs: Histogram, cutTokens: Histogram): Pick<CancellationReport, 'cutMs' | 'cutTokens'> {
  if (cutUs.totalCount === 0) return { cutMs: null, cutTokens: null };
  // A percentile is its bucket's highest equivalent value: never shown above the largest value recorded.
  const ms = (p: number): number => Math.round(Math.min(cutUs.getValueAtPercentile(p), cutUs.maxValue) / 100) / 10;
  return {
    cutMs: { p50: ms(50), p95: ms(95), max: Math.round(cutUs.maxValue / 100) / 10, hdr: encodeHistogram(cutUs) },
    cutTokens: { p50: Math.min(cutTokens.getValueAtPercentile(50), cutTokens.maxValue) - 1, max: cutTokens.maxValue - 1, mean: Math.round((cutTokens.mean - 1) * 10) / 10, hdr: encodeHistogram(cutTokens) },
  };
}

/**
 * Shards add their counts and histograms. The server's release and leak are each shard's view of
 * one server: the merged result keeps the worst leak verdict (a leak seen by any shard stands; not
 * observed by one makes the whole not observed unless another saw a leak) and drops the release
 * distribution, which only a single run's reads can time.
 */
export function mergeCancellationReports(parts: readonly (CancellationReport | undefined)[]): CancellationReport | undefined {
  const given = parts.filter((p): p is CancellationReport => p !== undefined);
  const first = given[0];
  if (first === undefined) return undefined;
  const n = sumCounts(given, ['chosen', 'cancelled', 'endedFirst', 'abortedAtEnd'] as const);
  const us = newHistogram();
  const tokens = newHistogram();
  for (const r of given) {
    if (r.cutMs !== null) us.add(decodeHistogram(r.cutMs.hdr));
    if (r.cutTokens !== null) tokens.add(decodeHistogram(r.cutTokens.hdr));
  }
  const leaks = given.map((r) => r.leak);
  const leak = leaks.find((l) => l?.verdict === 'leak') ?? leaks.find((l) => l === null || l.verdict === 'not observed') ?? first.leak;
  return {
    rate: first.rate,
    after: first.after,
    ...n,
    ...distributions(us, tokens),
    phase: sumCounts(given.map((r) => r.phase), ['prefill', 'decode'] as const),
    release: given.length === 1 ? first.release : null,
    leak: leak ?? null,
  };
}

/** `cancelled: 31 of 100 measured requests cut by the client (--cancel-rate 0.3 --cancel-after decode) ...` */
export function cancellationText(c: CancellationReport): string {
  const when = c.cutMs === null ? '' : `, cut ${c.cutMs.p50} ms (p50) / ${c.cutMs.max} ms (max) after the send, after ${c.cutTokens?.p50 ?? 0} tokens (p50): ${c.phase.prefill} in prefill, ${c.phase.decode} in decode`;
  const uncut = c.endedFirst + c.abortedAtEnd > 0 ? `; ${c.endedFirst} chosen ended before ${c.endedFirst === 1 ? 'its' : 'their'} point${c.abortedAtEnd > 0 ? `, ${c.abortedAtEnd} ${c.abortedAtEnd === 1 ? 'was' : 'were'} in flight at the end` : ''}` : '';
  return `${c.cancelled} request${c.cancelled === 1 ? '' : 's'} cut by the client (--cancel-rate ${c.rate} --cancel-after ${c.after}; ${c.chosen} chosen)${when}${uncut}: not errors, not in the latency percentiles; goodput and error rate are over the requests that were not cut`;
}

/** `server release: ...` or null without --server-metrics. */
export function releaseText(r: ReleaseReport | null): string | null {
  if (r === null) return null;
  if (r.cuts === 0) return 'server release: no read followed a cut';
  const timed = r.released === 0 ? 'none seen released' : `released within p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, max ${r.maxMs} ms`;
  return `server release: ${r.released} of ${r.cuts} cuts ${timed}${r.unreleased > 0 ? `, ${r.unreleased} still held at the last read` : ''} (upper bounds: each release lies within the last ${r.resolutionMs ?? '?'} ms before it, median)`;
}

/** The summary's lines about cancellation, or none without --cancel-rate. */
export function cancellationLines(r: Pick<LoadResult, 'cancellation'>): string[] {
  const c = r.cancellation;
  if (c === undefined) return [];
  const out = [`cancelled: ${cancellationText(c)}`];
  const release = releaseText(c.release);
  if (release !== null) out.push(release);
  out.push(c.leak === null ? 'server leak check: not observed (give --server-metrics to read the server\'s running count before and after the run)' : `server leak check: ${c.leak.message}`);
  return out;
}

function cancellationTile(c: CancellationReport): SectionTile {
  const release = releaseText(c.release);
  const leak = c.leak === null ? 'Server leak check: not observed (no --server-metrics).' : `Server leak check: ${c.leak.message}.`;
  const tone = c.leak?.verdict === 'leak' ? 'bad' : c.leak?.verdict === 'released' ? 'good' : 'neutral';
  return {
    id: 'cancellation',
    title: 'Cancellation',
    notes: [
      { tone: 'neutral', text: `Cancelled: ${cancellationText(c)}.${release === null ? '' : ` ${release}.`}` },
      { tone, text: leak },
    ],
  };
}

/** The server's view of the cuts (--server-metrics), read when the run ends; null: not measured. */
export type CancelServerFacts = () => { release: ReleaseReport | null; leak: LeakFinding | null };

/** The `cancellation` section of load.json: absent without --cancel-rate (`plan` undefined). */
export function cancellationSection(plan?: { rate: number; text: string }, server?: CancelServerFacts): ResultSection<CancellationReport, CancelAcc> {
  return {
    key: 'cancellation',
    place: 'outcome',
    open: () => new CancelAcc(),
    collect(acc, r) {
      if (r.outcome === 'cancelled') {
        if (r.cut !== undefined) acc.cut(r.cut.afterUs, r.cut.tokens);
      } else if (r.timing.cancelPlanned === true) acc.uncut(r.outcome === 'aborted' ? 'abortedAtEnd' : 'endedFirst');
    },
    build: (acc) => (plan === undefined ? undefined : buildCancellationReport(acc, plan, server?.() ?? { release: null, leak: null })),
    merge: (parts) => mergeCancellationReports(parts),
    summary: (out) => cancellationLines({ cancellation: out }),
    tile: cancellationTile,
    slos: [],
  };
}
