// Run-to-run noise measured where the user runs: `iari report noise RUN...` over runs of one
// configuration writes noise.json, and `iari report compare --noise-floors FILE` widens each row's
// within-run interval by it. Two runs of one configuration differ by more than either run's
// sampling error (the machine's load and pauses, the server's state move a whole run, and no test
// within a run sees that); only identical runs on the user's machine measure how much.
//
// Per row key: the standard deviation s of one run's value over the calibration runs (of ln(value)
// for durations and rates, of the value itself for ratios). Two single runs then differ by
// s·√2 with n - 1 degrees of freedom, so the 95% half-width of their difference is
// t(0.975, n - 1) · s · √2 (on the log scale: a relative spread).
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { LoadResult } from '../load/results/load-result.ts';
import { repeatValues } from '../load/search/repeat.ts';
import { meanSummary, studentQuantile } from '../statistics.ts';

export const NOISE_SCHEMA = 'iari.noise/1' as const;

/** Fewest runs a calibration needs (2 degrees of freedom; 5 or more give a far tighter estimate). */
export const MIN_CALIBRATION_RUNS = 3;

export interface NoiseKey {
  /** Runs that carried the key. */
  runs: number;
  /** log: s is of ln(value) (a relative spread); absolute: s is in the row's unit (ratios). */
  scale: 'log' | 'absolute';
  sd: number;
  /** 95% half-width of the difference of two single runs: t(0.975, runs - 1) · sd · √2. */
  halfWidth: number;
}

export interface NoiseCalibration {
  schema: typeof NOISE_SCHEMA;
  createdAt: string;
  runs: number;
  runIds: string[];
  /** The configuration the runs shared: a comparison of other runs gets a note. */
  config: { mode: string; maxTokens: number; windowS: number; minRequests: number };
  keys: Record<string, NoiseKey>;
}

export function loadMode(r: LoadResult): string {
  const m = r.meta.mode;
  return m.kind === 'open' ? `rate ${m.rate}/s` : `concurrency ${m.concurrency}`;
}

function usage(message: string): HarnessError {
  return new HarnessError(HarnessErrorCode.USAGE, `iari report noise: ${message}`);
}

/** One run's values per key: the repeated runs' values when it carries them (iari load --repeat), else its own. */
function valuesOf(r: LoadResult): Record<string, number[]> {
  const rep = (r as LoadResult & { repeat?: { values: Record<string, number[]> } }).repeat;
  return rep?.values ?? repeatValues([r]);
}

const isRatio = (key: string): boolean => key === 'errors.rate' || key === 'goodput.fraction';

/** The calibration of `results`, runs of one configuration (a --repeat run counts as its runs). */
export function calibrate(results: readonly LoadResult[], now = new Date()): NoiseCalibration {
  const first = results[0];
  if (first === undefined) throw usage('give at least one run directory or load.json');
  for (const r of results) {
    if (loadMode(r) !== loadMode(first)) throw usage(`the runs are not one configuration: ${first.meta.runId} ran at ${loadMode(first)}, ${r.meta.runId} at ${loadMode(r)}`);
    if (r.meta.config.maxTokens !== first.meta.config.maxTokens) throw usage(`the runs are not one configuration: max_tokens ${first.meta.config.maxTokens} and ${r.meta.config.maxTokens}`);
  }
  const pooled: Record<string, number[]> = {};
  let runs = 0;
  for (const r of results) {
    const v = valuesOf(r);
    runs += Math.max(0, ...Object.values(v).map((x) => x.length));
    for (const [k, xs] of Object.entries(v)) (pooled[k] ??= []).push(...xs);
  }
  if (runs < MIN_CALIBRATION_RUNS) throw usage(`needs at least ${MIN_CALIBRATION_RUNS} runs of one configuration (got ${runs}); 5 or more measure the spread far better, e.g. iari load --repeat 5`);
  const keys: Record<string, NoiseKey> = {};
  for (const [key, xs] of Object.entries(pooled)) {
    if (xs.length < MIN_CALIBRATION_RUNS) continue;
    const ratio = isRatio(key);
    // ln of a zero value is undefined: such a key has no relative spread to measure.
    if (!ratio && xs.some((x) => !(x > 0))) continue;
    const s = meanSummary(ratio ? xs : xs.map(Math.log)).sd;
    keys[key] = { runs: xs.length, scale: ratio ? 'absolute' : 'log', sd: s, halfWidth: studentQuantile(xs.length - 1) * s * Math.SQRT2 };
  }
  const windows = results.map((r) => r.throughput.windowS).sort((a, b) => a - b);
  return {
    schema: NOISE_SCHEMA,
    createdAt: now.toISOString(),
    runs,
    runIds: results.flatMap((r) => (r as LoadResult & { repeat?: { runIds: string[] } }).repeat?.runIds ?? [r.meta.runId]),
    config: { mode: loadMode(first), maxTokens: first.meta.config.maxTokens, windowS: windows[Math.floor(windows.length / 2)] ?? 0, minRequests: Math.min(...results.map((r) => r.counts.finished)) },
    keys,
  };
}

/** Reads and checks a noise.json (a file, or a directory holding noise.json). */
export function assertNoiseCalibration(v: unknown, file: string): NoiseCalibration {
  const bad = (why: string): HarnessError => new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report compare: --noise-floors ${file}: ${why}`, { hint: 'write one with: iari report noise RUN... (3 or more runs of one configuration)' });
  const o = v as Partial<NoiseCalibration> | null;
  if (o === null || typeof o !== 'object' || o.schema !== NOISE_SCHEMA) throw bad(`not a ${NOISE_SCHEMA} file`);
  if (typeof o.keys !== 'object' || o.keys === null || typeof o.runs !== 'number' || typeof o.config !== 'object') throw bad('keys, runs or config is missing');
  for (const [k, x] of Object.entries(o.keys)) {
    if (typeof x !== 'object' || x === null || !(x.halfWidth >= 0) || (x.scale !== 'log' && x.scale !== 'absolute')) throw bad(`key ${k} has no valid halfWidth and scale`);
  }
  return o as NoiseCalibration;
}

/**
 * The interval of new - base that two single runs of one configuration span around the observed
 * values, by the calibration; null when it has no figure for the key or a value is not positive.
 */
export function calibratedInterval(key: NoiseKey, base: number, next: number): { low: number; high: number } | null {
  if (key.scale === 'absolute') return { low: next - base - key.halfWidth, high: next - base + key.halfWidth };
  if (!(base > 0) || !(next > 0)) return null;
  return { low: next * Math.exp(-key.halfWidth) - base, high: next * Math.exp(key.halfWidth) - base };
}
