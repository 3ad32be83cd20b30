// `--fail-on` regression gates of `iari report compare` (docs/load.md, "Comparing runs"):
//   ttft.p95>+10%        relative change of a load metric (also -5% with <, for throughput)
//   ttft.p95>+50ms       absolute change of a duration
//   errors.rate>+0.5pp   change of a ratio in percentage points
//   conformance.new_fail>0   count of new failures (also fixed, changed)
// Each gate trips, holds or is inconclusive (gate-outcome.ts); a tripped load gate exits 3, a tripped
// conformance gate 1, an inconclusive one 4 unless --inconclusive pass.
import { HarnessError, HarnessErrorCode } from '../errors.ts';

export interface Gate {
  expr: string;
  key: string;
  op: '>' | '<';
  kind: 'percent' | 'pp' | 'us' | 'count' | 'absolute';
  /** Percent as a fraction, pp as a fraction, µs, or a plain number. */
  value: number;
}

export const conformanceKeys = ['conformance.new_fail', 'conformance.fixed', 'conformance.changed'] as const;
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
