import type { LoadResult, RequestRecord, Sweep, SweepStep } from '../results/load-result.ts';
import { runLoadConfig, type LoadConfig } from '../run-load.ts';

export interface SweepOptions {
  /** Growth factor between steps (default 2). */
  factor?: number;
  /** At most this many steps (default 8). */
  maxSteps?: number;
  onStep?: (step: SweepStep, index: number) => void;
}

/** Open loop: saturated when the server completes less than this share of the offered rate. */
const RATE_SATURATION = 0.9;
/** Closed loop: saturated when doubling concurrency adds less than this share of throughput. */
const CONCURRENCY_GAIN = 1.1;
/** A step whose error rate exceeds this stops the sweep. */
export const ERROR_STOP = 0.5;

/** The SLO nearest to breaking, as observed / threshold (inverted for '>' SLOs): > 1 breaks it; null without SLOs. */
export function sloRatio(r: LoadResult): number | null {
  let worst: number | null = null;
  for (const s of r.slos) {
    const o = s.observed;
    const up = s.op === '<' || s.op === '<=';
    const ratio = o === null ? Infinity : up ? (s.threshold === 0 ? (o === 0 ? 0 : Infinity) : o / s.threshold) : o === 0 ? Infinity : s.threshold / o;
    worst = worst === null ? ratio : Math.max(worst, ratio);
  }
  return worst;
}

export function stepOf(level: number, r: LoadResult, saturated: boolean): SweepStep {
  const p = (m: 'ttft' | 'itl' | 'e2e', k: 'p95' | 'p99'): number | null => r.metrics[m]?.percentiles[k] ?? null;
  const perUser = r.metrics.output_tps?.percentiles.p50;
  const ratio = sloRatio(r);
  return {
    level,
    achievedRps: r.throughput.okRps,
    outputTokensPerS: r.throughput.outputTokensPerS,
    ttftP95Us: p('ttft', 'p95'),
    ttftP99Us: p('ttft', 'p99'),
    itlP99Us: p('itl', 'p99'),
    e2eP99Us: p('e2e', 'p99'),
    errorRate: r.errors.rate,
    goodputRps: r.goodput.goodputRps,
    slosMet: r.slosPassed && r.counts.finished > 0,
    saturated,
    perUserTokensPerS: perUser === undefined ? null : perUser / 1000,
    sloRatio: ratio === null || Number.isFinite(ratio) ? ratio : null,
  };
}

/** The load config of one level: the rate (open loop) or the concurrency, rounded (closed loop). */
export function atLevel(base: LoadConfig, level: number, tag: string): LoadConfig {
  const mode = base.mode.kind === 'open' ? { ...base.mode, rate: level } : { ...base.mode, concurrency: Math.round(level) };
  return { ...base, mode, runId: `${base.runId}-${tag}` };
}

/** Runs one level: the runner shared by the sweep and the capacity search (capacity-search.ts). */
export function runLevel(base: LoadConfig, level: number, tag: string): Promise<{ result: LoadResult; records: RequestRecord[] }> {
  return runLoadConfig(atLevel(base, level, tag));
}

/** Open loop: the server completed less than RATE_SATURATION of the offered rate. */
export function rateSaturated(level: number, r: LoadResult): boolean {
  return r.throughput.okRps < RATE_SATURATION * level;
}

/**
 * Steps the rate (open loop) or concurrency (closed loop) up by `factor` from the configured
 * value until an SLO breaks, the server saturates, errors dominate, or maxSteps is reached.
 * Returns the result of the best step (the highest level meeting every SLO; the first step
 * when none did) with the whole curve in `sweep`.
 */
export async function runSweep(base: LoadConfig, o: SweepOptions = {}): Promise<{ result: LoadResult; records: RequestRecord[] }> {
  const factor = o.factor ?? 2;
  const maxSteps = o.maxSteps ?? 8;
  const steps: SweepStep[] = [];
  const results: LoadResult[] = [];
  let best: { level: number; result: LoadResult; records: RequestRecord[] } | null = null;
  let firstRecords: RequestRecord[] = [];
  let stopReason: Sweep['stopReason'] = 'max_steps';
  let level = base.mode.kind === 'open' ? base.mode.rate : base.mode.concurrency;
  let prevRps = 0;
  for (let i = 0; i < maxSteps; i++) {
    if (base.signal?.aborted === true) {
      stopReason = 'interrupted';
      break;
    }
    const { result, records } = await runLevel(base, level, `step${i}`);
    results.push(result);
    if (i === 0) firstRecords = records;
    // Ctrl-C: this step was cut short at the interrupt; keep its partial figures on the curve and stop.
    if (result.interrupted === true) {
      const step = stepOf(level, result, false);
      steps.push(step);
      o.onStep?.(step, i);
      if (i === 0 && step.slosMet) best = { level, result, records };
      stopReason = 'interrupted';
      break;
    }
    const saturated = base.mode.kind === 'open' ? rateSaturated(level, result) : i > 0 && result.throughput.okRps < CONCURRENCY_GAIN * prevRps;
    const step = stepOf(level, result, saturated);
    steps.push(step);
    o.onStep?.(step, i);
    if (step.slosMet && !saturated) best = { level, result, records };
    if (!step.slosMet) {
      stopReason = 'slo_breached';
      break;
    }
    if (step.errorRate > ERROR_STOP) {
      stopReason = 'errors';
      break;
    }
    if (saturated) {
      stopReason = 'saturated';
      break;
    }
    prevRps = result.throughput.okRps;
    level = base.mode.kind === 'open' ? level * factor : Math.max(Math.round(level) + 1, Math.round(level * factor));
  }
  const chosen = best?.result ?? results[0];
  if (chosen === undefined) throw new Error('sweep ran no step');
  const sweep: Sweep = { kind: base.mode.kind === 'open' ? 'rate' : 'concurrency', steps, best: best?.level ?? null, stopReason };
  const interrupted = stopReason === 'interrupted' ? { interrupted: true } : {};
  return { result: { ...chosen, meta: { ...chosen.meta, runId: base.runId }, sweep, slosPassed: best !== null && chosen.slosPassed, ...interrupted }, records: best?.records ?? firstRecords };
}
