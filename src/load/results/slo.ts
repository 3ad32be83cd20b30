import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { percentileKeys, type LoadResult, type MetricName, type SloOp, type SloResult } from './load-result.ts';
import { sectionSlo, type SectionFigures } from '../../sections/section-run.ts';
import type { AnySection } from '../../sections/section-contract.ts';
import { defaultLoadSections } from './load-sections.ts';

/** Metrics an SLO can name, with the statistics each accepts and its unit. */
const durationMetrics = ['ttfb', 'ttft', 'itl', 'tpot', 'e2e', 'service_ttft', 'service_e2e', 'schedule_lag', 'event_loop_lag'] as const;
const durationStats = [...percentileKeys, 'mean', 'max'] as const;
/** Per-request metrics: an SLO on these also decides whether each request counts for goodput. */
const perRequestMetrics = new Set<string>(['ttfb', 'ttft', 'itl', 'tpot', 'e2e']);

const scalarMetrics: Record<string, { stats: readonly string[]; unit: SloResult['unit'] }> = {
  errors: { stats: ['rate', 'count'], unit: 'ratio' },
  throughput: { stats: ['rps', 'tokens'], unit: 'per_s' },
  goodput: { stats: ['rps', 'fraction'], unit: 'per_s' },
  output_tps: { stats: [...percentileKeys, 'mean', 'min'], unit: 'per_s' },
};

export interface Slo {
  expr: string;
  metric: string;
  stat: string;
  op: SloOp;
  /** Canonical unit: µs for durations, ratio for rates and fractions, per second otherwise. */
  threshold: number;
  unit: SloResult['unit'];
  perRequest: boolean;
  /** Applied by iari, not asked for: the default error-rate gate (withDefaultSlos). */
  isDefault?: true;
}

/**
 * docs/load.md, "Failed runs": a run in which more than 5% of the finished requests failed fails
 * (exit 3) whatever else it measured, unless the user's own errors SLO says what is acceptable
 * (`--slo 'errors.rate<20%'`, or `--slo 'errors.rate<=100%'` to accept any). Issue 43: 10,000
 * clients against a 4-slot server got 99.86% timeouts and exited 0.
 */
export const DEFAULT_ERROR_SLO = 'errors.rate<=5%';

/** The SLOs a run is judged by: the user's, plus the default error-rate gate where no errors SLO is given. */
export function withDefaultSlos(slos: readonly Slo[]): Slo[] {
  if (slos.some((s) => s.metric === 'errors')) return [...slos];
  return [...slos, { ...parseSlo(DEFAULT_ERROR_SLO), isDefault: true }];
}

const sloPattern = /^([a-z0-9_]+)\.([a-z0-9_.]+?)\s*(<=|>=|<|>)\s*([0-9]+(?:\.[0-9]+)?)\s*(us|µs|ms|s|%)?$/;

export function sloHelp(sections: readonly AnySection[] = defaultLoadSections): string {
  return [
    `durations: ${[...durationMetrics, ...sections.flatMap((x) => x.slos.filter((slo) => slo.unit === 'us').map((slo) => slo.metric))].join('|')} . ${durationStats.join('|')} with a unit us|ms|s (e.g. ttft.p95<800ms)`,
    'errors.rate<0.01 (or <1%), errors.count<=0, throughput.rps>=10, throughput.tokens>=500,',
    'goodput.rps>=5, goodput.fraction>=0.99, output_tps.p50>=20 (tokens/s per request),',
    ...sections.flatMap((x) => x.slos.map((slo) => slo.help)),
  ].join('\n');
}

/** Parses one `--slo` value; a malformed threshold or unknown metric is a usage error (exit 2). */
export function parseSlo(expr: string, sections: readonly AnySection[] = defaultLoadSections): Slo {
  const bad = (why: string): never => {
    throw new HarnessError(HarnessErrorCode.THRESHOLD_INVALID, `--slo '${expr}': ${why}`, { hint: sloHelp(sections) });
  };
  // A section's own grammar (server.reconcile, server.preemptions==0) takes its expressions whole.
  const own = sectionSlo(sections, /^([a-z0-9_]+)\./.exec(expr.trim())?.[1] ?? '')?.slo;
  if (own?.parse !== undefined) {
    const parsed = own.parse(expr);
    return typeof parsed === 'string' ? bad(parsed) : { expr, metric: own.metric, stat: parsed.stat, op: parsed.op, threshold: parsed.threshold, unit: parsed.unit, perRequest: false };
  }
  const m = sloPattern.exec(expr.trim());
  if (m === null) return bad('expected <metric>.<stat><op><number>[unit], e.g. ttft.p95<800ms');
  const [, metric = '', stat = '', op = '<', num = '', unit] = m;
  const value = Number(num);
  if (!Number.isFinite(value)) return bad('threshold is not a number');
  const section = sectionSlo(sections, metric)?.slo;
  if ((durationMetrics as readonly string[]).includes(metric) || section?.unit === 'us') {
    const stats: readonly string[] = section?.stats ?? durationStats;
    if (!stats.includes(stat)) return bad(`unknown statistic "${stat}" for ${metric} (use ${stats.join(', ')})`);
    if (unit === undefined || unit === '%') return bad(`a duration threshold needs a unit: us, ms or s`);
    const scale = unit === 's' ? 1_000_000 : unit === 'ms' ? 1000 : 1;
    return { expr, metric, stat, op: op as SloOp, threshold: value * scale, unit: 'us', perRequest: perRequestMetrics.has(metric) && (op === '<' || op === '<=') };
  }
  const scalar = scalarMetrics[metric] ?? (section === undefined ? undefined : { stats: section.stats, unit: section.unit });
  if (scalar === undefined) return bad(`unknown metric "${metric}" (known: ${[...durationMetrics, ...Object.keys(scalarMetrics), ...sections.flatMap((x) => x.slos.map((slo) => slo.metric))].join(', ')})`);
  if (!scalar.stats.includes(stat)) return bad(`unknown statistic "${stat}" for ${metric} (use ${scalar.stats.join(', ')})`);
  if (unit !== undefined && unit !== '%') return bad(`${metric}.${stat} takes no time unit`);
  const isRatio = (metric === 'errors' && stat === 'rate') || (metric === 'goodput' && stat === 'fraction') || section?.unit === 'ratio';
  const ratioSections = sections.flatMap((x) => x.slos.filter((slo) => slo.unit === 'ratio').map((slo) => `${slo.metric} rates`));
  if (unit === '%' && !isRatio) return bad(`% only applies to ${['errors.rate', 'goodput.fraction', ...ratioSections].join(', ').replace(/, ([^,]*)$/, ' and $1')}`);
  const threshold = unit === '%' ? value / 100 : value;
  if (isRatio && threshold > 1) return bad('a ratio threshold must be between 0 and 1 (or 0% to 100%)');
  const u: SloResult['unit'] = isRatio ? 'ratio' : metric === 'errors' ? 'count' : 'per_s';
  return { expr, metric, stat, op: op as SloOp, threshold, unit: u, perRequest: false };
}

export function parseSlos(exprs: readonly string[], sections: readonly AnySection[] = defaultLoadSections): Slo[] {
  return exprs.map((e) => parseSlo(e, sections));
}

export function compare(observed: number, op: SloOp, threshold: number): boolean {
  switch (op) {
    case '<':
      return observed < threshold;
    case '<=':
      return observed <= threshold;
    case '>':
      return observed > threshold;
    case '>=':
      return observed >= threshold;
    case '==':
      return observed === threshold;
  }
}

/** Per-request values used for goodput (µs). */
export interface RequestValues {
  ttfb: number | null;
  ttft: number | null;
  itl: number | null;
  tpot: number | null;
  e2e: number | null;
}

/** A request is good when it succeeded and meets every per-request SLO (each on its own value). */
export function requestIsGood(slos: readonly Slo[], ok: boolean, v: RequestValues): boolean {
  if (!ok) return false;
  for (const s of slos) {
    if (!s.perRequest) continue;
    const x = v[s.metric as keyof RequestValues];
    // A request with no value for the metric (e.g. one token: no ITL) does not break that SLO.
    if (x === null || x === undefined) continue;
    if (!compare(x, s.op, s.threshold)) return false;
  }
  return true;
}

/**
 * Evaluates every SLO against a finished (or merged) result. A metric with no sample in the
 * measured window is not met: `observed` is null and `noData` says why (no verdict without data).
 * `finished` is the number of measured requests that finished (ok or failed).
 */
export function evaluateSlos(slos: readonly Slo[], r: Pick<LoadResult, 'metrics' | 'errors' | 'throughput' | 'goodput'> & SectionFigures, finished: number, sections: readonly AnySection[] = defaultLoadSections): SloResult[] {
  return slos.map((s) => {
    const section = sectionSlo(sections, s.metric);
    const judge = finished > 0 || section?.slo.judgeWithoutRequests === true;
    const observed = !judge ? null : section === undefined ? observe(s, r) : section.slo.observe(r[section.key], s.stat);
    const noData = !judge
      ? 'no request finished in the measured window'
      : observed === null
        ? section !== undefined
          ? (section.slo.noDataFor?.(r[section.key], s.stat) ?? section.slo.noData)
          : `no successful request gave a ${s.metric} sample in the measured window`
        : undefined;
    return {
      expr: s.expr,
      metric: s.metric,
      stat: s.stat,
      op: s.op,
      threshold: s.threshold,
      observed,
      unit: s.unit,
      passed: observed !== null && compare(observed, s.op, s.threshold),
      perRequest: s.perRequest,
      ...(noData === undefined ? {} : { noData }),
      ...(s.isDefault === true ? { isDefault: true as const } : {}),
    };
  });
}

function observe(s: Slo, r: Pick<LoadResult, 'metrics' | 'errors' | 'throughput' | 'goodput'>): number | null {
  switch (s.metric) {
    case 'errors':
      return s.stat === 'rate' ? r.errors.rate : r.errors.total;
    case 'throughput':
      return s.stat === 'rps' ? r.throughput.rps : r.throughput.outputTokensPerS;
    case 'goodput':
      return s.stat === 'rps' ? r.goodput.goodputRps : r.goodput.fraction;
    default: {
      const h = r.metrics[s.metric as MetricName];
      if (h === undefined || h.count === 0) return null;
      const scale = s.metric === 'output_tps' ? 1 / 1000 : 1;
      if (s.stat === 'mean') return h.mean * scale;
      if (s.stat === 'max') return h.max * scale;
      if (s.stat === 'min') return h.min * scale;
      const p = h.percentiles[s.stat as keyof typeof h.percentiles];
      return p === undefined ? null : p * scale;
    }
  }
}
