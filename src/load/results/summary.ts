import type { Collector } from './collector.ts';
import { percentileOrNull } from './hdr.ts';
import { percentileKeys, type LoadResult, type MetricName } from './load-result.ts';
import { connectionText, engineNote, workloadText } from './run-text.ts';
import { errorBreakdown, runFailure } from './run-verdict.ts';
import { capacityLines } from './capacity-report.ts';
import { notApplicable, recordLines, recordStop, sectionLines, type SectionResult } from '../../sections/section-run.ts';
import type { AnyRunRecord, AnySection } from '../../sections/section-contract.ts';
import { defaultLoadSections, loadRunRecords } from './load-sections.ts';

export function fmtUs(us: number | null | undefined): string {
  if (us === null || us === undefined) return '-';
  if (us >= 1_000_000) return `${(us / 1_000_000).toFixed(2)}s`;
  if (us >= 1000) return `${(us / 1000).toFixed(us >= 100_000 ? 0 : 2)}ms`;
  return `${Math.round(us)}us`;
}

/** One line for a terminal, rewritten in place about four times a second. */
export function progressLine(c: Collector, elapsedS: number, plan: { durationS: number | null; requests: number | null }): string {
  const goal = plan.durationS !== null ? `/${plan.durationS}s` : plan.requests !== null ? ` (${c.finished}/${plan.requests} req)` : '';
  // Answers with no TTFT (embeddings, the sections say) show end-to-end latency, and the sections' figures for the tokens.
  const live = c.sections.progress();
  const whole = live.lacks.has('ttft');
  const h = whole ? c.hist.e2e : c.hist.ttft;
  return `${elapsedS.toFixed(1)}s${goal}  started ${c.started}  done ${c.finished}  in flight ${c.inFlight}  errors ${c.failed}  ${whole ? 'e2e' : 'ttft'} p50 ${fmtUs(percentileOrNull(h, 50))} p99 ${fmtUs(percentileOrNull(h, 99))}  ${live.lacks.has('output_tps') ? live.texts.join('  ') : `tokens ${c.outputTokens}`}`;
}

function pad(cells: string[][]): string {
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')).join('\n');
}

const rows: [MetricName, string][] = [
  ['ttfb', 'time to first byte'],
  ['ttft', 'time to first token'],
  ['server_ttft', "the server's own: llama.cpp timings.prompt_ms"],
  ['itl', 'inter-token latency (per token)'],
  ['tpot', 'time per output token'],
  ['e2e', 'end-to-end latency'],
  ['service_ttft', 'ttft from actual send'],
  ['service_e2e', 'e2e from actual send'],
  ['schedule_lag', 'schedule lag'],
  ['event_loop_lag', 'client event-loop lag'],
];

/** The summary printed at the end of a run. */
export function summaryTable(r: LoadResult, sections: readonly AnySection[] = defaultLoadSections, records: readonly AnyRunRecord[] = loadRunRecords): string {
  const figures = r as unknown as SectionResult;
  const m = r.meta.mode;
  const mode = m.kind === 'open' && m.trace !== undefined ? `open loop, trace replay of ${m.trace.file} (${m.trace.format}, ${m.trace.kept} requests${m.trace.skipped > 0 ? `, ${m.trace.skipped} failed rows skipped` : ''}, speed x${m.trace.speed}${m.trace.window === null ? '' : `, window ${m.trace.window.startS}s-${m.trace.window.endS ?? ''}${m.trace.window.endS === null ? '' : 's'}`}, mean ${m.rate}/s over ${m.trace.spanS.toFixed(3)} s)${m.maxConcurrency === undefined ? '' : `, CAPPED at ${m.maxConcurrency} in flight`}` : m.kind === 'open' ? `open loop, ${m.rate}/s ${m.arrival}${m.burstiness === undefined ? '' : ` (burstiness ${m.burstiness})`}${m.ramp === undefined ? '' : `, ramped ${m.ramp.shape === 'linear' ? 'linearly from 0' : 'exponentially from 1%'} to the rate over ${m.ramp.durationS} s`} (seed ${m.seed})${m.maxConcurrency === undefined ? '' : `, CAPPED at ${m.maxConcurrency} in flight (arrivals wait for a slot: coordinated omission; the wait is the schedule lag)`}` : `closed loop, concurrency ${m.concurrency} (${m.engine})`;
  const out: string[] = [];
  const failure = runFailure(r, records);
  const errorGate = r.slos.find((s) => s.isDefault === true && !s.passed);
  if (failure !== null) out.push(`iari load: FAILED: ${failure}`);
  else if (errorGate !== undefined && errorGate.observed !== null) {
    out.push(`iari load: FAILED: ${(errorGate.observed * 100).toFixed(2)}% of the finished requests failed (${errorBreakdown(r.errors)}), over the default gate ${errorGate.expr}; give your own with --slo 'errors.rate<X%' (docs/load.md, "Failed runs")`);
  }
  const stopped = recordStop(records, figures) !== null;
  out.push(`iari load: ${mode}, ${r.throughput.windowS}s measured${r.interrupted === true ? (stopped ? ' (STOPPED by the coordinator: figures up to the stop)' : ' (INTERRUPTED by Ctrl-C: figures up to the interrupt)') : ''}, latency from the ${r.meta.latencyOrigin} send time`);
  out.push(...recordLines(records, figures));
  const conn = r.meta.target === 'external' ? connectionText(r.meta) : null;
  if (conn !== null) out.push(`target: ${r.meta.baseUrl} (${conn})`);
  const note = engineNote(r.meta);
  if (note !== null) out.push(`engine: ${note}`);
  out.push(
    `requests: ${r.counts.finished} finished (${r.counts.ok} ok, ${r.counts.failed} failed), ${r.cancellation === undefined ? '' : `${r.cancellation.cancelled} cancelled by the client, `}${r.counts.warmupExcluded} warmup excluded, ${r.counts.abortedAtEnd} aborted at end; ${r.meta.config.stream ? `every stream checked (${r.counts.events} events)` : 'every body checked'}`,
  );
  const cells = [['metric', ...percentileKeys, 'mean', 'max', 'n']];
  for (const [k, label] of rows) {
    const h = r.metrics[k];
    if (h === undefined) continue;
    cells.push([`${k} (${label})`, ...percentileKeys.map((p) => fmtUs(h.percentiles[p])), fmtUs(h.mean), fmtUs(h.max), String(h.count)]);
  }
  const tps = r.metrics.output_tps;
  if (tps !== undefined) cells.push(['output tok/s per request', ...percentileKeys.map((p) => (tps.percentiles[p] / 1000).toFixed(1)), (tps.mean / 1000).toFixed(1), (tps.max / 1000).toFixed(1), String(tps.count)]);
  out.push(pad(cells));
  const na = notApplicable(sections, figures);
  const outputTps = !na.has('output_tps') ? `${r.throughput.outputTokensPerS} output tok/s (${r.counts.tokenSource})` : 'output tok/s not applicable';
  out.push(`throughput: ${r.throughput.rps} successful req/s, ${outputTps}${r.throughput.achievedArrivalRate !== null ? `, achieved arrival rate ${r.throughput.achievedArrivalRate}/s` : ''}`);
  const w = workloadText(r.meta);
  if (w !== null) out.push(`workload: ${w}`);
  out.push(...sectionLines(sections, figures, 'workload', { us: fmtUs }));
  const pctGood = `${(r.goodput.fraction * 100).toFixed(1)}%`;
  out.push(r.goodput.slos.length === 0
    ? `goodput: ${r.goodput.goodputRps} req/s, every successful request (${pctGood} of requests): no per-request SLO was given (e.g. --slo '${na.has('ttft') ? 'e2e' : 'ttft'}.p95<800ms')`
    : `goodput: ${r.goodput.goodputRps} req/s (${pctGood} of requests met ${r.goodput.slos.join(', ')})`);
  out.push(`errors: ${r.errors.total} (${(r.errors.rate * 100).toFixed(2)}%)${r.errors.total > 0 ? ` by class and status: ${errorBreakdown(r.errors)}` : ''}`);
  out.push(...sectionLines(sections, figures, 'outcome', { us: fmtUs }));
  for (const s of r.slos) {
    const obs = s.observed === null ? `no data: ${s.noData ?? 'no sample in the measured window'}` : s.unit === 'us' ? fmtUs(s.observed) : String(Math.round(s.observed * 1e4) / 1e4);
    out.push(`SLO ${s.passed ? 'met     ' : 'BREACHED'} ${s.expr}${s.isDefault === true ? ' (iari\'s default error gate)' : ''} (observed ${obs})`);
  }
  if (r.sweep?.capacity !== undefined) out.push(...capacityLines(r.sweep, fmtUs));
  else if (r.sweep !== null) {
    out.push(`sweep (${r.sweep.kind}): best ${r.sweep.best ?? 'none'}, stopped: ${r.sweep.stopReason}`);
    for (const s of r.sweep.steps) out.push(`  ${String(s.level).padStart(8)}  ${s.achievedRps} rps  ttft p99 ${fmtUs(s.ttftP99Us)}  itl p99 ${fmtUs(s.itlP99Us)}  errors ${(s.errorRate * 100).toFixed(1)}%  ${s.slosMet ? 'SLOs met' : 'SLOs breached'}${s.saturated ? ' saturated' : ''}`);
  }
  if (r.priming?.detail !== undefined) out.push(`priming: ${r.priming.detail}`);
  for (const w of r.validity.warnings) out.push(`warning: ${w}`);
  // The sections placed at the end: a block of their own after a blank line.
  const end = sectionLines(sections, figures, 'end', { us: fmtUs });
  if (end.length > 0) out.push('', ...end);
  return out.join('\n') + '\n';
}
