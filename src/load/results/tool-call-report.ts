import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { ToolCallReport } from './load-result.ts';
import type { InvalidKind, ToolCallSeen } from '../workloads/tool-calls.ts';

/** The tool-call validity of a run (--tools): counted per finished request, built into load.json, merged across shards, printed. */

export class ToolCallAcc {
  requestsWithTools = 0;
  requestsCalling = 0;
  requestsInvalid = 0;
  calls = 0;
  /** Calls cut by the request's output bound (the answer's last call, when it ended at "length"): not judged. */
  cutCalls = 0;
  invalid: Record<InvalidKind, number> = { not_json: 0, unknown_function: 0, schema_mismatch: 0 };
  readonly firstCall: Histogram = newHistogram();

  constructor(readonly check: (calls: readonly ToolCallSeen[]) => InvalidKind[] = () => []) {}

  /**
   * One successful measured request that declared tools: the calls it made, the latency to its first
   * tool-call delta (µs, from the intended send), and whether the answer stopped at its output bound.
   * Issue 43: every call that did not parse had finish_reason "length", cut by the request's own
   * max_tokens; the answer's last call is then the request's bound, not the server's: counted as cut,
   * never as invalid. The calls before it ended before it began, and are judged.
   */
  add(calls: readonly ToolCallSeen[] | undefined, firstCallUs: number | null, cutAtLimit = false): void {
    this.requestsWithTools++;
    if (calls === undefined || calls.length === 0) return;
    this.requestsCalling++;
    this.calls += calls.length;
    const whole = cutAtLimit ? calls.slice(0, -1) : calls;
    if (cutAtLimit) this.cutCalls++;
    const bad = this.check(whole);
    if (bad.length > 0) this.requestsInvalid++;
    for (const k of bad) this.invalid[k]++;
    if (firstCallUs !== null) record(this.firstCall, firstCallUs);
  }
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 1e6) / 1e6);

export function buildToolCallReport(a: ToolCallAcc, source: string): ToolCallReport | undefined {
  if (a.requestsWithTools === 0) return undefined;
  const invalid = a.invalid.not_json + a.invalid.unknown_function + a.invalid.schema_mismatch;
  const judged = a.calls - a.cutCalls;
  return {
    tools: source,
    requestsWithTools: a.requestsWithTools,
    requestsCalling: a.requestsCalling,
    callRate: ratio(a.requestsCalling, a.requestsWithTools),
    calls: a.calls,
    cutCalls: a.cutCalls,
    invalidCalls: invalid,
    invalidRate: ratio(invalid, judged),
    invalidByKind: { ...a.invalid },
    invalidRateByKind: { not_json: ratio(a.invalid.not_json, judged), unknown_function: ratio(a.invalid.unknown_function, judged), schema_mismatch: ratio(a.invalid.schema_mismatch, judged) },
    requestsInvalid: a.requestsInvalid,
    firstToolCall: a.firstCall.totalCount === 0 ? null : summarize(a.firstCall, 'us'),
  };
}

export function mergeToolCallReports(reports: readonly (ToolCallReport | undefined)[]): ToolCallReport | undefined {
  const a = new ToolCallAcc();
  let source = '';
  for (const r of reports) {
    if (r === undefined) continue;
    source = r.tools;
    a.requestsWithTools += r.requestsWithTools;
    a.requestsCalling += r.requestsCalling;
    a.requestsInvalid += r.requestsInvalid;
    a.calls += r.calls;
    a.cutCalls += r.cutCalls ?? 0;
    for (const k of ['not_json', 'unknown_function', 'schema_mismatch'] as const) a.invalid[k] += r.invalidByKind[k];
    if (r.firstToolCall !== null) a.firstCall.add(decodeHistogram(r.firstToolCall.hdr));
  }
  return buildToolCallReport(a, source);
}

export function toolCallLine(r: ToolCallReport | undefined, fmt: (us: number | null | undefined) => string): string | null {
  if (r === undefined) return null;
  const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;
  return `tool calls (--tools ${r.tools}): ${r.requestsCalling} of ${r.requestsWithTools} requests with tools called one (${pct(r.callRate)}); ${r.calls} calls${r.cutCalls ? ` (${r.cutCalls} cut by the output bound, not judged)` : ''}, ${r.invalidCalls} invalid (${pct(r.invalidRate)} of those judged): arguments not JSON ${r.invalidByKind.not_json}, unknown function ${r.invalidByKind.unknown_function}, schema mismatch ${r.invalidByKind.schema_mismatch}; first tool-call delta p50 ${fmt(r.firstToolCall?.percentiles.p50)}`;
}
