import { recordStop } from '../../sections/section-run.ts';
import type { AnyRunRecord } from '../../sections/section-contract.ts';
import { loadRunRecords } from './load-sections.ts';
import type { LoadResult } from './load-result.ts';

/**
 * Why a load run failed whatever its SLOs, or null (docs/load.md, "No verdict without data"): a run
 * in which no request finished, or none succeeded, is a failed run (exit 3), with or without --slo.
 */
export function runFailure(r: Pick<LoadResult, 'counts' | 'errors'> & Partial<Pick<LoadResult, 'coordination'>>, records: readonly AnyRunRecord[] = loadRunRecords): string | null {
  // A run its record says was stopped (a coordinated shard died, or breached an abort SLO) fails, naming it.
  const stopped = recordStop(records, r as unknown as Readonly<Record<string, unknown>>);
  if (stopped !== null) return stopped;
  const c = r.counts;
  if (c.finished === 0) return `no request finished in the measured window (${c.started} started, ${c.abortedAtEnd} aborted at end)`;
  if (c.ok === 0) return `no request succeeded: all ${c.finished} finished requests failed (${errorBreakdown(r.errors)})`;
  return null;
}

/** "http_status=4024 (500 x4024), timeout=4": errors by class, with the statuses of `http_status`. */
export function errorBreakdown(e: Pick<LoadResult['errors'], 'byClass' | 'byStatus'>): string {
  const parts = Object.entries(e.byClass)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => {
      const statuses = c === 'http_status' ? Object.entries(e.byStatus).sort((a, b) => b[1] - a[1]) : [];
      return `${c}=${n}${statuses.length === 0 ? '' : ` (${statuses.map(([s, k]) => `${s} x${k}`).join(', ')})`}`;
    });
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** Whether the run passed: every SLO met and `runFailure` null. */
export function loadRunPassed(r: Pick<LoadResult, 'counts' | 'errors' | 'slosPassed'> & Partial<Pick<LoadResult, 'coordination'>>): boolean {
  return r.slosPassed && runFailure(r) === null;
}
