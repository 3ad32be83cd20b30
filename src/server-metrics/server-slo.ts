// SLOs on the server's own signals (`--slo 'server.waiting.max<8'`), and `server.reconcile`: the run
// fails when the server's counters disagree with what it served. A signal the server does not publish
// (or a run without --server-metrics) has no data, and an SLO without data is not met (fail closed).
import { reconcileHeld } from './reconcile.ts';
import type { GaugeKey } from './vocabulary.ts';

export type ServerSloOp = '<' | '<=' | '>' | '>=' | '==';

export interface ServerSlo {
  expr: string;
  metric: 'server';
  /** `reconcile`, `preemptions`, or `<gauge>.<max|mean>` (running, waiting, kv_cache_usage). */
  stat: string;
  op: ServerSloOp;
  threshold: number;
  unit: 'count' | 'ratio';
  perRequest: false;
}

const gaugeNames: Record<string, GaugeKey> = { running: 'running', waiting: 'waiting', kv_cache_usage: 'kvCacheUsage' };

export const serverSloHelp = "with --server-metrics: server.reconcile (the server's counters agree with the answers), server.waiting.max<8, server.running.mean<64, server.kv_cache_usage.max<0.9 (or <90%), server.preemptions==0";

/** Parses `server.…`; returns why not as a string (the caller makes the usage error). */
export function parseServerSlo(expr: string): ServerSlo | string {
  const e = expr.trim();
  if (e === 'server.reconcile') return { expr, metric: 'server', stat: 'reconcile', op: '==', threshold: 1, unit: 'count', perRequest: false };
  const m = /^server\.([a-z_]+)(?:\.([a-z]+))?\s*(==|<=|>=|<|>)\s*([0-9]+(?:\.[0-9]+)?)\s*(%)?$/.exec(e);
  if (m === null) return `expected server.reconcile or server.<signal>[.max|.mean]<op><number>, e.g. server.waiting.max<8 (${serverSloHelp})`;
  const [, signal = '', stat, op = '<', num = '', pct] = m;
  const value = Number(num);
  if (signal === 'preemptions') {
    if (stat !== undefined) return 'server.preemptions takes no statistic: it is the count over the run, e.g. server.preemptions==0';
    if (pct !== undefined) return 'server.preemptions is a count, not a percentage';
    return { expr, metric: 'server', stat: 'preemptions', op: op as ServerSloOp, threshold: value, unit: 'count', perRequest: false };
  }
  if (gaugeNames[signal] === undefined) return `unknown server signal "${signal}" (known: reconcile, running, waiting, kv_cache_usage, preemptions)`;
  if (stat !== 'max' && stat !== 'mean') return `server.${signal} needs a statistic: .max or .mean`;
  const ratio = signal === 'kv_cache_usage';
  if (pct !== undefined && !ratio) return `% only applies to server.kv_cache_usage`;
  const threshold = pct !== undefined ? value / 100 : value;
  if (ratio && threshold > 1) return 'server.kv_cache_usage is a fraction from 0 to 1 (or 0% to 100%)';
  return { expr, metric: 'server', stat: `${signal}.${stat}`, op: op as ServerSloOp, threshold, unit: ratio ? 'ratio' : 'count', perRequest: false };
}

/** What a server SLO observes in a run's server section (absent: the run read no metrics). */
export interface ServerSloInput {
  status: 'ok' | 'unmapped' | 'nothing';
  note: string | null;
  gauges: Partial<Record<GaugeKey, { max: number; mean: number }>>;
  counters: { preemptions?: { delta: number } };
  reconciliation: Parameters<typeof reconcileHeld>[0];
}

export function observeServerSlo(stat: string, server: ServerSloInput | undefined): { observed: number | null; noData?: string } {
  if (server === undefined) return { observed: null, noData: 'the run read no server metrics (give --server-metrics)' };
  if (server.status !== 'ok') return { observed: null, noData: server.note ?? 'the server published none of the signals iari maps' };
  if (stat === 'reconcile') {
    const held = reconcileHeld(server.reconciliation);
    return held === null ? { observed: null, noData: 'no reconciliation had data on both sides' } : { observed: held ? 1 : 0 };
  }
  if (stat === 'preemptions') {
    const d = server.counters.preemptions;
    return d === undefined ? { observed: null, noData: 'the server publishes no preemption counter' } : { observed: d.delta };
  }
  const [signal = '', which = 'max'] = stat.split('.');
  const key = gaugeNames[signal];
  const g = key === undefined ? undefined : server.gauges[key];
  if (g === undefined) return { observed: null, noData: `the server publishes no ${signal.replace(/_/g, ' ')} signal` };
  return { observed: which === 'mean' ? g.mean : g.max };
}
