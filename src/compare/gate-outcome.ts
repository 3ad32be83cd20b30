// What a `--fail-on` gate decides: trip, hold or inconclusive (docs/load.md, "Gates: trip, hold,
// inconclusive"). A gate reads the 95% interval of the change, never the point estimate alone:
//   trip          the interval lies wholly beyond the threshold
//   hold          it lies wholly on the safe side, and it includes run-to-run noise (repeats or a
//                 calibration), or the row counts requests (proportions) rather than timing them
//   inconclusive  anything else: too few samples or seconds, no interval, an interval straddling
//                 the threshold, or a within-run interval on the safe side with no estimate of
//                 run-to-run noise. Each names its reason and what would decide it.
// A within-run interval may trip but not hold: the machine's drift between two runs can hide a
// regression as well as fake one, and a held gate claims the change was tested (fail closed).
import type { ConformanceDiff } from './conformance-compare.ts';
import { conformanceCount } from './conformance-compare.ts';
import type { Gate } from './gates.ts';
import type { MetricRow, Untested } from './load-compare.ts';
import type { LoadResult } from '../load/results/load-result.ts';

export type GateOutcome = 'trip' | 'hold' | 'inconclusive';

/** Why a gate could not decide. */
export type InconclusiveCode = 'samples' | 'seconds' | 'pairs' | 'coin' | 'rate-of-good' | 'records' | 'missing' | 'base-zero' | 'no-interval' | 'invalid-run' | 'resolution' | 'straddles' | 'noise' | 'no-conformance' | 'untested-requirements';

export interface GateResult {
  expr: string;
  key: string;
  /** trip: the change's interval lies wholly beyond the threshold; hold: wholly on the safe side; else inconclusive. */
  outcome: GateOutcome;
  /** outcome === 'trip'. */
  tripped: boolean;
  /** Which exit code the gate maps to when tripped. */
  scope: 'load' | 'conformance';
  /** The interval the gate read, in its own units (a fraction for % and pp, µs, a count); null when there was none. */
  interval: { low: number; high: number } | null;
  inconclusive: { code: InconclusiveCode; reason: string; toDecide: string } | null;
  message: string;
}

/** What the gates need to know of the runs: the longer measured window (s), and why a run is invalid. */
export interface RunContext {
  windowS: number | null;
  /** One line per run flagged invalid (load.json validity): its timings include the client's own delay. */
  invalid?: string[];
  /** The client's timing resolution, µs: the larger median event-loop delay of the two runs (null: not measured). */
  resolutionUs?: number | null;
}

/** The context of two load results (either may be absent). */
export function runContext(base: LoadResult | null, next: LoadResult | null): RunContext {
  const invalid = ([['base', base], ['new', next]] as const).flatMap(([side, r]) => (r === null || r.validity.valid ? [] : [`the ${side} run is flagged invalid (${r.validity.warnings[0] ?? 'see its validity'}${r.validity.warnings.length > 1 ? `, and ${r.validity.warnings.length - 1} more` : ''})`]));
  const lags = [base, next].map((r) => r?.metrics.event_loop_lag?.percentiles.p50).filter((x): x is number => typeof x === 'number');
  return { windowS: base === null || next === null ? null : Math.max(base.throughput.windowS, next.throughput.windowS), invalid, resolutionUs: lags.length === 0 ? null : Math.max(...lags) };
}

/** The repeat count suggested for a run-to-run estimate (Welch over 5 runs a side: 8 degrees of freedom). */
export const SUGGESTED_REPEATS = 5;
const REPEAT_HINT = `--repeat ${SUGGESTED_REPEATS} on both sides`;
const NOISE_HINT = `an estimate of run-to-run noise: ${REPEAT_HINT}, or calibrate once with iari report noise RUN... (3 or more identical runs) and pass --noise-floors FILE, or run both servers in one A/B run (iari load --ab URL_B)`;
/** Past this many times the run length, a longer run is no practical answer. */
const MAX_PRACTICAL_FACTOR = 50;

function signed(g: Gate, x: number): string {
  const sign = x >= 0 ? '+' : '';
  if (g.kind === 'percent') return `${sign}${(x * 100).toFixed(1)}%`;
  if (g.kind === 'pp') return `${sign}${(x * 100).toFixed(2)}pp`;
  if (g.kind === 'us') return `${sign}${(x / 1000).toFixed(1)} ms`;
  return `${sign}${x}`;
}

function inconclusive(g: Gate, scope: GateResult['scope'], shown: string, code: InconclusiveCode, reason: string, toDecide: string, interval: GateResult['interval'] = null): GateResult {
  return { expr: g.expr, key: g.key, outcome: 'inconclusive', tripped: false, scope, interval, inconclusive: { code, reason, toDecide }, message: `${shown}: gate ${g.expr} is inconclusive, ${reason}; to decide it: ${toDecide}` };
}

function untestedReason(r: MetricRow, u: Untested): { code: InconclusiveCode; reason: string; toDecide: string } {
  const stat = r.key.slice(r.key.indexOf('.') + 1);
  switch (u.kind) {
    case 'samples': {
      const had = Math.min(u.base, u.new);
      const seconds = u.ratePerS > 0 ? Math.ceil(u.need / u.ratePerS) : null;
      return {
        code: 'samples',
        reason: `${stat} needs ≥ ${u.need} ${u.per} per side, this run had ${had}${u.base !== u.new ? ` (base ${u.base}, new ${u.new})` : ''}`,
        toDecide: `${seconds === null ? 'run longer' : `run ≥ ${seconds} s at this rate (${u.ratePerS.toFixed(1)}/s)`}, or use ${REPEAT_HINT}`,
      };
    }
    case 'seconds':
      return {
        code: 'seconds',
        reason: `its test needs ≥ ${u.need} whole measured seconds per side, base had ${u.base}, new ${u.new}`,
        toDecide: `run --duration ≥ ${u.need + 1}s, or use ${REPEAT_HINT}`,
      };
    case 'pairs': {
      const dropped = u.dropped.length === 0 ? '' : ` (left out: ${u.dropped.slice(0, 3).join('; ')}${u.dropped.length > 3 ? `; and ${u.dropped.length - 3} more` : ''})`;
      return {
        code: 'pairs',
        reason: `${stat} of an A/B run needs ≥ ${u.need} pairs of blocks with ≥ ${u.perBlock} ${u.per} in both blocks, this run had ${u.usable} of ${u.of}${dropped}`,
        toDecide: `blocks of ≥ ${u.perBlock} ${u.per} (--ab-block-requests ${u.perBlock}, or a longer --ab-block), and ≥ ${u.need} pairs (--duration)`,
      };
    }
    case 'coin':
      return { code: 'coin', reason: `in an A/B run at random (--ab-assign random) a coin sends each request to a side, so each side's ${r.key.split('.')[0]} is its share of one run, whatever the servers do`, toDecide: '--ab-assign blocks (each side takes the whole load in its blocks), or gates on the latencies and output_tps' };
    case 'rate-of-good':
      return { code: 'rate-of-good', reason: 'goodput per second has no test within one run (its seconds do not count good requests): its rate is tested in throughput.ok_rps, its share in goodput.fraction', toDecide: `gate throughput.ok_rps or goodput.fraction, or use ${REPEAT_HINT}` };
    case 'records':
      return { code: 'records', reason: `its 1 s blocks come from requests.ndjson, which one side lacks`, toDecide: `keep requests.ndjson beside load.json on both sides (iari load writes it), or use ${REPEAT_HINT}` };
    case 'missing':
      return { code: 'missing', reason: `${r.key} is not on both sides`, toDecide: 'runs that both measure it' };
  }
}

/** How much narrower the interval must get for the threshold to fall outside it, as the run-length factor that would do it. */
function narrowing(x: number, low: number, high: number, v: number): number | null {
  const reach = x > v ? x - low : high - x;
  const room = Math.abs(x - v);
  if (!(reach > 0) || !(room > 0)) return null;
  return (reach / room) ** 2;
}

function straddleHint(r: MetricRow, x: number, low: number, high: number, g: Gate, context: RunContext): string {
  const safeSide = g.op === '>' ? x <= g.value : x >= g.value;
  const k = narrowing(x, low, high, g.value);
  if (k === null || k > MAX_PRACTICAL_FACTOR) {
    const close = `the change (${signed(g, x)}) is too close to ${signed(g, g.value)} for a practical run to decide`;
    return r.noise === null && safeSide ? `${close}; holding would also need ${NOISE_HINT}` : close;
  }
  const factor = Math.max(1.5, Math.ceil(k * 2) / 2);
  if (r.noise === 'repeats') return `about ${factor}× as many repeats on both sides`;
  if (r.noise === 'paired') return `an A/B run about ${factor}× as long`;
  if (r.noise === 'calibration') return `the calibrated run-to-run spread spans the threshold: ${REPEAT_HINT} or more (the interval over the runs narrows as they add up)`;
  const longer = context.windowS === null ? `runs about ${factor}× as long` : `runs of ≥ ${Math.ceil(context.windowS * factor)} s (about ${factor}× as long)`;
  return safeSide ? `${longer} and ${NOISE_HINT}` : `${longer}, or ${REPEAT_HINT}`;
}

function source(r: MetricRow): string {
  if (r.noise === 'repeats') return 'over the repeated runs';
  if (r.noise === 'calibration') return `${r.test} widened by the noise calibration`;
  if (r.noise === 'paired') return 'over the paired A/B blocks';
  return r.test === 'proportions' ? 'proportions, over the requests' : `${r.test}, within each run`;
}

export function loadGate(g: Gate, rows: readonly MetricRow[] | null, context: RunContext): GateResult {
  const r = rows?.find((x) => x.key === g.key);
  if (r === undefined || r.change === null) return inconclusive(g, 'load', g.key, 'missing', `${g.key} is not on both sides`, 'load.json on both sides that both measure it');
  const measured = g.kind === 'percent' ? r.relative : r.change;
  if (measured === null) return inconclusive(g, 'load', g.key, 'base-zero', `base ${g.key} is 0, so it has no relative change`, 'a gate on the absolute change (ms, pp)');
  const shown = `${g.key} changed ${signed(g, measured)}`;
  if (r.test === null) {
    const u = untestedReason(r, r.untested ?? { kind: 'missing' });
    return inconclusive(g, 'load', shown, u.code, u.reason, u.toDecide);
  }
  const low = g.kind === 'percent' ? r.relativeLow : r.low;
  const high = g.kind === 'percent' ? r.relativeHigh : r.high;
  if (low === null || high === null) return inconclusive(g, 'load', shown, 'no-interval', `its ${r.test} test gives no interval of ${g.key} itself`, g.key === 'goodput.rps' ? `a gate on goodput.fraction, or ${REPEAT_HINT}` : REPEAT_HINT);
  const interval = { low, high };
  const range = `95% interval ${signed(g, low)} … ${signed(g, high)}`;
  // A run whose client could not keep up timed its own delay: no timing decides a gate either way.
  const invalid = context.invalid ?? [];
  const beyond = g.op === '>' ? low > g.value : high < g.value;
  const safe = g.op === '>' ? high <= g.value : low >= g.value;
  // An A/B run's blocks share the client's delay pair by pair, so it dilutes a change (both sides
  // slower by the same amount) but does not make one: a paired interval beyond the threshold still
  // trips; one on the safe side cannot hold, since the change may be larger than the client saw.
  if (invalid.length > 0 && r.noise === 'paired' && beyond) return { expr: g.expr, key: g.key, scope: 'load', interval, inconclusive: null, outcome: 'trip', tripped: true, message: `${shown}, ${range} (${source(r)}, though the client lagged: its delay hit both sides of each pair and dilutes a change), wholly beyond ${signed(g, g.value)}: gate ${g.expr} failed` };
  if (invalid.length > 0 && r.noise === 'paired' && r.test !== 'proportions') return inconclusive(g, 'load', shown, 'invalid-run', `${invalid.join('; ')}; in an A/B run that delay hits both sides of each pair, so it can dilute a change but not make one: the ${range} may trip, not hold`, 'an A/B run the client keeps up with (a quieter machine, or a lighter workload per block: lower --concurrency or --max-tokens)', interval);
  if (invalid.length > 0 && r.test !== 'proportions') return inconclusive(g, 'load', shown, 'invalid-run', `${invalid.join('; ')}, so its timings include the client's own delay`, 'runs the client keeps up with (a quieter machine, or less load per client)', interval);
  const base = { expr: g.expr, key: g.key, scope: 'load' as const, interval, inconclusive: null };
  // A latency change smaller than the client's own timing resolution (its median event-loop delay)
  // is not one the client can tell from its own delay: beyond a % threshold of a sub-millisecond
  // latency (ttfb on loopback) it would trip on the scheduling of two processes.
  const resolution = context.resolutionUs ?? null;
  if (beyond && r.unit === 'us' && resolution !== null && r.low !== null && r.high !== null && (g.op === '>' ? r.low < resolution : r.high > -resolution)) {
    const abs = `${(r.low / 1000).toFixed(2)} … ${(r.high / 1000).toFixed(2)} ms`;
    return inconclusive(g, 'load', shown, 'resolution', `the ${range} (${source(r)}) is beyond ${signed(g, g.value)}, but the change itself (${abs}) is within the client's timing resolution (its median event-loop delay, ${(resolution / 1000).toFixed(2)} ms)`, `a gate on a latency whose change the client can time (≥ ${(resolution / 1000).toFixed(1)} ms), or a less busy client`, interval);
  }
  if (beyond) return { ...base, outcome: 'trip', tripped: true, message: `${shown}, ${range} (${source(r)}), wholly beyond ${signed(g, g.value)}: gate ${g.expr} failed` };
  if (safe && (r.noise !== null || r.test === 'proportions')) return { ...base, outcome: 'hold', tripped: false, message: `${shown}, ${range} (${source(r)}), wholly within ${signed(g, g.value)}: gate holds` };
  if (safe) {
    return inconclusive(g, 'load', shown, 'noise', `the ${range} lies within ${signed(g, g.value)}, but it is within each run and does not include run-to-run noise, so it cannot hold`, NOISE_HINT, interval);
  }
  return inconclusive(g, 'load', shown, 'straddles', `the ${range} (${source(r)}) straddles ${signed(g, g.value)}`, straddleHint(r, measured, low, high, g, context), interval);
}

export function conformanceGate(g: Gate, conformance: ConformanceDiff | null): GateResult {
  if (conformance === null) return inconclusive(g, 'conformance', g.key, 'no-conformance', 'conformance.json is not on both sides', 'a conformance run (iari test) on both sides');
  const key = g.key as 'conformance.new_fail' | 'conformance.fixed' | 'conformance.changed';
  const c = conformanceCount(conformance, key);
  const interval = { low: c.low, high: c.high };
  const shown = `${g.key} = ${c.low}${c.ids.length > 0 ? ` (${c.ids.join(', ')})` : ''}`;
  const beyond = g.op === '>' ? c.low > g.value : c.high < g.value;
  const safe = g.op === '>' ? c.high <= g.value : c.low >= g.value;
  const base = { expr: g.expr, key: g.key, scope: 'conformance' as const, interval, inconclusive: null };
  if (beyond) return { ...base, outcome: 'trip', tripped: true, message: `${shown}, gate ${g.expr} failed` };
  if (safe) return { ...base, outcome: 'hold', tripped: false, message: `${shown}, gate holds` };
  return inconclusive(
    g,
    'conformance',
    shown,
    'untested-requirements',
    `it could be up to ${c.high}: ${c.could.join(', ')} ${c.could.length === 1 ? 'was' : 'were'} tested on one side only`,
    `run ${c.could.length === 1 ? 'it' : 'them'} on both sides (iari test --only ${c.could.join(',')})`,
    interval,
  );
}

export function evaluateGates(gates: readonly Gate[], rows: readonly MetricRow[] | null, conformance: ConformanceDiff | null, context: RunContext = { windowS: null }): GateResult[] {
  return gates.map((g) => (g.kind === 'count' ? conformanceGate(g, conformance) : loadGate(g, rows, context)));
}
