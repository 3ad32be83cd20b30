// `--fail-on` regression gates of `iari report compare` (docs/load.md, "Comparing runs"):
//   ttft.p95>+10%        relative change of a load metric (also -5% with <, for throughput)
//   ttft.p95>+50ms       absolute change of a duration
//   errors.rate>+0.5pp   change of a ratio in percentage points
//   conformance.new_fail>0   count of new failures (also fixed, changed)
// A load gate trips only when its change is also significant (the row's test), so noise between
// two runs of one configuration does not fail CI; it exits 3. A conformance gate exits 1.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { ConformanceDiff } from './conformance-compare.ts';
import type { MetricRow } from './load-compare.ts';

export interface Gate {
  expr: string;
  key: string;
  op: '>' | '<';
  kind: 'percent' | 'pp' | 'us' | 'count' | 'absolute';
  /** Percent as a fraction, pp as a fraction, µs, or a plain number. */
  value: number;
}

export interface GateResult {
  expr: string;
  tripped: boolean;
  /** Which exit code the gate maps to when tripped. */
  scope: 'load' | 'conformance';
  message: string;
}

const conformanceKeys = ['conformance.new_fail', 'conformance.fixed', 'conformance.changed'] as const;
const pattern = /^([a-z0-9_]+\.[a-z0-9_.]+?)\s*([<>])\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*(%|pp|us|µs|ms|s)?$/;

function usage(expr: string, why: string): HarnessError {
  return new HarnessError(HarnessErrorCode.THRESHOLD_INVALID, `iari report compare: --fail-on '${expr}': ${why}`, {
    hint: "e.g. --fail-on 'ttft.p95>+10%' --fail-on 'errors.rate>+0.5pp' --fail-on 'throughput.rps<-5%' --fail-on 'conformance.new_fail>0'",
  });
}

/** Parses one gate; `loadKeys` are the row keys a load comparison can produce. */
export function parseGate(expr: string, loadKeys: ReadonlySet<string>): Gate {
  const m = pattern.exec(expr.trim());
  if (m === null) throw usage(expr, 'expected <metric>.<stat><op><change>, e.g. ttft.p95>+10%');
  const [, key = '', op = '>', num = '', unit] = m;
  const value = Number(num);
  if ((conformanceKeys as readonly string[]).includes(key)) {
    if (unit !== undefined) throw usage(expr, `${key} is a count and takes no unit`);
    return { expr, key, op: op as '>' | '<', kind: 'count', value };
  }
  if (!loadKeys.has(key)) throw usage(expr, `unknown metric "${key}" (known: ${[...loadKeys, ...conformanceKeys].join(', ')})`);
  if (unit === '%') return { expr, key, op: op as '>' | '<', kind: 'percent', value: value / 100 };
  if (unit === 'pp') {
    if (!/\.(rate|fraction)$/.test(key)) throw usage(expr, 'pp (percentage points) applies to errors.rate and goodput.fraction');
    return { expr, key, op: op as '>' | '<', kind: 'pp', value: value / 100 };
  }
  if (unit !== undefined) {
    if (/^(throughput|goodput|errors|output_tps)\./.test(key)) throw usage(expr, `${key} is not a duration`);
    const scale = unit === 's' ? 1_000_000 : unit === 'ms' ? 1000 : 1;
    return { expr, key, op: op as '>' | '<', kind: 'us', value: value * scale };
  }
  throw usage(expr, 'give the change with a unit: % (relative), pp (ratios) or ms/s/us (durations)');
}

function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

export function evaluateGates(gates: readonly Gate[], rows: readonly MetricRow[] | null, conformance: ConformanceDiff | null): GateResult[] {
  return gates.map((g): GateResult => {
    if (g.kind === 'count') {
      if (conformance === null) return { expr: g.expr, tripped: false, scope: 'conformance', message: `${g.expr}: no conformance.json on both sides, not evaluated` };
      const list = g.key === 'conformance.new_fail' ? conformance.newFail : g.key === 'conformance.fixed' ? conformance.fixed : conformance.changed.map((c) => c.id);
      const n = list.length;
      const tripped = g.op === '>' ? n > g.value : n < g.value;
      return { expr: g.expr, tripped, scope: 'conformance', message: `${g.key} = ${n}${n > 0 ? ` (${list.join(', ')})` : ''}${tripped ? `, gate ${g.expr} failed` : ''}` };
    }
    const r = rows?.find((x) => x.key === g.key);
    if (r === undefined || r.change === null) return { expr: g.expr, tripped: false, scope: 'load', message: `${g.expr}: ${g.key} is not on both sides, not evaluated` };
    const measured = g.kind === 'percent' ? r.relative : r.change;
    if (measured === null) return { expr: g.expr, tripped: false, scope: 'load', message: `${g.expr}: base ${g.key} is 0, no relative change` };
    const beyond = g.op === '>' ? measured > g.value : measured < g.value;
    const tripped = beyond && r.significant;
    const shown = g.kind === 'percent' ? pct(measured) : g.kind === 'pp' ? `${measured >= 0 ? '+' : ''}${(measured * 100).toFixed(2)}pp` : `${measured >= 0 ? '+' : ''}${(measured / 1000).toFixed(1)} ms`;
    const sig = r.p === null ? 'no test' : `${r.significant ? 'significant' : 'not significant'}, p=${r.p < 0.001 ? '<0.001' : r.p.toFixed(3)}`;
    const message = `${g.key} changed ${shown} (${sig})${tripped ? `: gate ${g.expr} failed` : beyond ? `: beyond ${g.expr} but not significant, gate holds` : ''}`;
    return { expr: g.expr, tripped, scope: 'load', message };
  });
}
