// `iari load --find-capacity`: the highest rate (open loop) or concurrency (closed loop) at which every
// SLO holds. Brackets it by doubling (or halving) from the configured level, then narrows the interval
// between the last level that met every SLO and the first that broke one, by interpolation on the SLO
// ratio kept inside the middle of the interval (bisection when there is nothing to interpolate), until
// the interval is within the tolerance. A level that broke an SLO by less than twice its threshold, or
// whose SLO ratio is within 10% of 1, is run again (best of 3): a single client pause must not end the
// search. No more runs start than the line printed before any traffic promised.
// Every run goes through the sweep's level runner (sweep.ts runLevel) and is kept as evidence.
import type { CapacityLevel, CapacitySearch, LoadResult, RequestRecord, Sweep, SweepStep } from '../results/load-result.ts';
import type { LoadConfig } from '../run-load.ts';
import { ERROR_STOP, rateSaturated, runLevel, stepOf } from './sweep.ts';

export const DEFAULT_TOLERANCE = 0.05;
/** Default total time of a search, s. */
export const DEFAULT_BUDGET_S = 600;
/** A run whose SLO ratio is within this of 1 is near the boundary: its level is run again. */
export const NOISE_BAND = 0.1;
/**
 * Issue 43: "A level that broke the SLO 163x was run again 'to confirm'." A break at twice the
 * threshold or more (or with errors past the sweep's stop, or an open loop that could not offer its
 * rate) is no client pause: it decides at once.
 */
export const CLEAR_BREAK_RATIO = 2;
/** Runs of one level at most (its verdict is the majority). */
export const MAX_RUNS_PER_LEVEL = 3;
/** Interpolated levels stay inside this share of the interval from either end. */
const KEEP_INSIDE = 0.25;
const MAX_RATE = 100_000;
const MAX_CONCURRENCY = 10_000;
const MIN_RATE = 0.01;

export interface CapacityOptions {
  tolerance?: number;
  budgetS?: number;
  /** The longest one run may take, s (pre-window, warmup, duration, grace): no run starts unless it fits the budget. */
  levelBoundS: number;
  onStep?: (step: SweepStep, index: number) => void;
  /** Clock, s (tests). */
  now?: () => number;
  /** The level runner (tests may replace it; default sweep.ts runLevel). */
  run?: (base: LoadConfig, level: number, tag: string) => Promise<{ result: LoadResult; records: RequestRecord[] }>;
}

interface Judged {
  level: number;
  met: boolean;
  ratio: number | null;
  /** A run that met every SLO at this level (the report of the capacity level). */
  passing: { result: LoadResult; records: RequestRecord[] } | null;
  first: { result: LoadResult; records: RequestRecord[] };
}

/** The most runs a budget allows, and what to say about it before any traffic. */
export function capacityBound(budgetS: number, levelBoundS: number): { maxRuns: number; line: string } {
  const maxRuns = Math.max(1, Math.floor(budgetS / levelBoundS));
  return { maxRuns, line: `at most ${maxRuns} runs of at most ${Math.ceil(levelBoundS)} s each; ends within ${Math.ceil(Math.max(budgetS, levelBoundS))} s (--budget)` };
}

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? null) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** The next level inside (lo, hi): where the SLO ratio's log crosses 0, kept off both ends; the midpoint without ratios. */
export function nextLevel(lo: number, hi: number, ratioLo: number | null, ratioHi: number | null, integer: boolean): number {
  const w = hi - lo;
  let x = lo + w / 2;
  if (ratioLo !== null && ratioHi !== null && ratioLo > 0 && ratioHi > ratioLo) {
    const gLo = Math.log(ratioLo);
    const gHi = Math.log(ratioHi);
    if (gLo < 0 && gHi > 0) x = lo + (w * -gLo) / (gHi - gLo);
  }
  x = Math.min(hi - w * KEEP_INSIDE, Math.max(lo + w * KEEP_INSIDE, x));
  if (!integer) return Number(x.toPrecision(4));
  return Math.min(hi - 1, Math.max(lo + 1, Math.round(x)));
}

/** The interval is narrow enough: within the tolerance, or adjacent integers (concurrency). */
export function converged(lo: number, hi: number, tolerance: number, integer: boolean): boolean {
  return (hi - lo) / lo <= tolerance || (integer && hi - lo <= 1);
}

export async function runCapacitySearch(base: LoadConfig, o: CapacityOptions): Promise<{ result: LoadResult; records: RequestRecord[] }> {
  const tolerance = o.tolerance ?? DEFAULT_TOLERANCE;
  const budgetS = o.budgetS ?? DEFAULT_BUDGET_S;
  const now = o.now ?? (() => performance.now() / 1000);
  const run = o.run ?? runLevel;
  const integer = base.mode.kind === 'closed';
  const start = now();
  const steps: SweepStep[] = [];
  const levels: CapacityLevel[] = [];
  const end: { stop: Sweep['stopReason'] } = { stop: 'converged' };
  let firstRun: { result: LoadResult; records: RequestRecord[] } | null = null;
  // Issue 43: "The --find-capacity start line says 'at most 9 runs', then 13 ran": the runs the line promised bound the search too.
  const { maxRuns } = capacityBound(budgetS, o.levelBoundS);
  const fits = (): boolean => steps.length === 0 || (steps.length < maxRuns && now() - start + o.levelBoundS <= budgetS);

  /** Runs a level (again when near the boundary); null when the budget or Ctrl-C stopped it before a verdict. */
  const judge = async (level: number, phase: 'bracket' | 'search'): Promise<Judged | null> => {
    const verdicts: boolean[] = [];
    const ratios: number[] = [];
    let passing: Judged['passing'] = null;
    let first: Judged['first'] | null = null;
    while (verdicts.length < MAX_RUNS_PER_LEVEL) {
      if (base.signal?.aborted === true) {
        end.stop = 'interrupted';
        return null;
      }
      if (!fits()) {
        end.stop = 'budget';
        return null;
      }
      const got = await run(base, level, `c${steps.length}`);
      firstRun ??= got;
      first ??= got;
      const r = got.result;
      const saturated = base.mode.kind === 'open' && rateSaturated(level, r);
      const step: SweepStep = { ...stepOf(level, r, saturated), phase: verdicts.length === 0 ? phase : 'repeat' };
      steps.push(step);
      o.onStep?.(step, steps.length - 1);
      if (r.interrupted === true) {
        end.stop = 'interrupted';
        return null;
      }
      // Open loop: a server completing less than 90% of the offered rate does not serve it, whatever the SLOs say.
      const met = step.slosMet && !saturated && step.errorRate <= ERROR_STOP;
      verdicts.push(met);
      if (step.sloRatio !== null && step.sloRatio !== undefined) ratios.push(step.sloRatio);
      if (met) passing = got;
      const yes = verdicts.filter(Boolean).length;
      const no = verdicts.length - yes;
      // A break is confirmed by a second run (one client pause can break a p95 of a few dozen
      // requests, and the first run also warms the server and the client); a run near the boundary too.
      const ratio = step.sloRatio ?? null;
      const clearBreak = saturated || step.errorRate > ERROR_STOP || ratio === null || ratio >= CLEAR_BREAK_RATIO;
      const near = (!met && !clearBreak) || (ratio !== null && Math.abs(ratio - 1) <= NOISE_BAND);
      // One clear run decides; near the boundary, the majority of up to 3.
      if ((verdicts.length === 1 && !near) || Math.max(yes, no) * 2 > MAX_RUNS_PER_LEVEL) break;
    }
    const met = verdicts.filter(Boolean).length * 2 > verdicts.length;
    const ratio = median(ratios);
    levels.push({ level, runs: verdicts.length, met, sloRatio: ratio });
    return { level, met, ratio, passing: met ? passing : null, first: first! };
  };

  let lo: Judged | null = null;
  let hi: Judged | null = null;
  const startLevel = base.mode.kind === 'open' ? base.mode.rate : base.mode.concurrency;
  const first = await judge(startLevel, 'bracket');
  if (first !== null) {
    if (first.met) lo = first;
    else hi = first;
  }
  // Bracket: double until a level breaks, or halve until one holds.
  while (first !== null && (lo === null || hi === null)) {
    if (lo !== null) {
      const up = integer ? Math.max(lo.level + 1, lo.level * 2) : lo.level * 2;
      if (up > (integer ? MAX_CONCURRENCY : MAX_RATE)) {
        end.stop = 'never_broke';
        break;
      }
      const j = await judge(up, 'bracket');
      if (j === null) break;
      if (j.met) lo = j;
      else hi = j;
    } else if (hi !== null) {
      const down = integer ? Math.floor(hi.level / 2) : Number((hi.level / 2).toPrecision(4));
      if (down < (integer ? 1 : MIN_RATE)) {
        end.stop = 'none_met';
        break;
      }
      const j = await judge(down, 'bracket');
      if (j === null) break;
      if (j.met) lo = j;
      else hi = j;
    }
  }
  // Narrow: interpolate (or bisect) between the last level that held and the first that broke.
  while (lo !== null && hi !== null && !converged(lo.level, hi.level, tolerance, integer)) {
    const j = await judge(nextLevel(lo.level, hi.level, lo.ratio, hi.ratio, integer), 'search');
    if (j === null) break;
    if (j.met) lo = j;
    else hi = j;
  }
  if (end.stop === 'converged' && (lo === null || hi === null)) end.stop = lo === null ? 'none_met' : 'never_broke';
  const capacity: CapacitySearch = {
    tolerance,
    budgetS,
    levelBoundS: o.levelBoundS,
    wallS: Math.round((now() - start) * 10) / 10,
    capacity: lo?.level ?? null,
    breaking: hi?.level ?? null,
    relativeWidth: lo !== null && hi !== null ? (hi.level - lo.level) / lo.level : null,
    converged: lo !== null && hi !== null && converged(lo.level, hi.level, tolerance, integer),
    levels,
  };
  const chosen = lo?.passing ?? firstRun;
  if (chosen === null) throw new Error('capacity search ran no level');
  const sweep: Sweep = { kind: integer ? 'concurrency' : 'rate', steps, best: capacity.capacity, stopReason: end.stop, capacity };
  const interrupted = end.stop === 'interrupted' ? { interrupted: true } : {};
  const r = chosen.result;
  return { result: { ...r, meta: { ...r.meta, runId: base.runId }, sweep, slosPassed: lo !== null && r.slosPassed, ...interrupted }, records: chosen.records };
}
