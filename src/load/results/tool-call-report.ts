import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { ToolCallReport } from './load-result.ts';
import type { ResultSection, SectionSlo, SectionTile } from '../../sections/section-contract.ts';
import { tileNum, tilePct, tileUs } from '../../sections/tile-format.ts';
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

const invalidKinds = [
  ['not_json', 'arguments not JSON'],
  ['unknown_function', 'unknown function'],
  ['schema_mismatch', 'arguments break the schema'],
] as const;

function toolCallTile(t: ToolCallReport): SectionTile {
  return {
    id: 'tool-calls',
    title: 'Tool calls',
    stats: [
      { label: 'call rate', value: tilePct(t.callRate), hint: `${tileNum(t.requestsCalling, 0)} of ${tileNum(t.requestsWithTools, 0)} requests that declared tools called one` },
      { label: 'calls', value: tileNum(t.calls, 0), ...(t.cutCalls ? { hint: `${tileNum(t.cutCalls, 0)} cut by the request's output bound (finish "length"): not judged` } : {}) },
      { label: 'invalid rate', value: tilePct(t.invalidRate), tone: t.invalidCalls > 0 ? 'bad' : 'good', hint: `${tileNum(t.invalidCalls, 0)} invalid calls; ${tileNum(t.requestsInvalid, 0)} requests had at least one` },
      { label: 'first tool call p50', value: tileUs(t.firstToolCall?.percentiles.p50) },
    ],
    caption: `Tools: ${t.tools}; ${tileNum(t.requestsWithTools, 0)} successful requests declared them.`,
    table: {
      head: ['invalid kind', 'calls', 'share of calls'],
      rows: [...invalidKinds.map(([k, name]) => [{ code: k, note: name }, tileNum(t.invalidByKind[k], 0), tilePct(t.invalidRateByKind[k])]), [{ strong: 'any' }, tileNum(t.invalidCalls, 0), tilePct(t.invalidRate)]],
      numeric: [1, 2],
    },
    charts: [
      {
        kind: 'bars',
        title: 'Invalid tool calls by kind (share of calls)',
        series: ['invalid rate'],
        groups: invalidKinds.map(([k]) => ({ label: k, values: [t.invalidRateByKind[k] * 100] })),
        xLabel: '% of calls',
        format: 'percent',
      },
    ],
  };
}

/** `--slo 'tool_calls.invalid_rate<1%'`: read from the toolCalls section (no call made: no data). */
const toolCallSlo: SectionSlo<ToolCallReport> = {
  metric: 'tool_calls',
  stats: ['invalid_rate', 'call_rate', 'not_json_rate', 'unknown_function_rate', 'schema_mismatch_rate'],
  unit: 'ratio',
  help: 'with --tools: tool_calls.invalid_rate<0.01 (also call_rate, not_json_rate, unknown_function_rate, schema_mismatch_rate)',
  observe(t, stat) {
    if (t === undefined) return null;
    if (stat === 'call_rate') return t.requestsWithTools === 0 ? null : t.callRate;
    if (t.calls === 0) return null;
    if (stat === 'invalid_rate') return t.invalidRate;
    const kind = stat.replace(/_rate$/, '') as keyof ToolCallReport['invalidRateByKind'];
    return t.invalidRateByKind[kind];
  },
  noData: 'no tool call was made in the measured window (give --tools; a server that never calls a tool has no invalid rate)',
};

/** --tools: which requests declared tools, and the judge of their calls (workloads/tool-calls.ts). */
export interface ToolsSeen {
  source: string;
  declares: (seq: number) => boolean;
  check: (calls: readonly ToolCallSeen[]) => InvalidKind[];
}

/** The `toolCalls` section of load.json: absent without --tools (`tools` undefined). */
export function toolCallSection(tools?: ToolsSeen): ResultSection<ToolCallReport, ToolCallAcc> {
  return {
    key: 'toolCalls',
    place: 'workload',
    open: () => new ToolCallAcc(tools?.check),
    collect(acc, r) {
      if (r.outcome !== 'ok' || tools?.declares(r.timing.seq) !== true) return;
      const x = r.timing.extras;
      acc.add(x?.toolCalls, x?.firstToolCallNs === undefined ? r.ttftUs : Number(x.firstToolCallNs - r.timing.intendedNs) / 1000, x?.cutAtLimit === true);
    },
    build: (acc) => (tools === undefined ? undefined : buildToolCallReport(acc, tools.source)),
    merge: (parts) => mergeToolCallReports(parts),
    summary: (out, fmt) => [toolCallLine(out, fmt.us) ?? ''].filter((l) => l !== ''),
    tile: toolCallTile,
    slos: [toolCallSlo],
  };
}
