import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { ToolCallReport } from './load-result.ts';
import { seededRandom } from '../seeded-random.ts';
import { checkNumber, loadUsage, RUN_LOAD_NAMES, type LoadNames } from './load-option-names.ts';

/**
 * Tool calls under load (`--tools builtin|FILE`, `--tool-share P`): a share of the requests
 * declare tools, and every tool call in their answers is judged as OpenRouter's tool-call quality
 * taxonomy does (https://openrouter.ai/docs/features/tool-calling): its arguments must parse as a
 * JSON object, name a declared function, and validate against that function's parameters schema.
 * Judged on the main thread once per finished request (never per read), from the calls the check
 * worker assembled.
 */

export interface ToolDef {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ToolsSpec {
  /** `builtin` or the file the definitions came from. */
  source: string;
  tools: ToolDef[];
  /** Share of requests that declare the tools (seeded per request). */
  share: number;
}

/** What the assembled answer called (arguments as joined, at most 64 KiB each). */
export interface ToolCallSeen {
  name: string | null;
  arguments: string;
}

export type InvalidKind = 'not_json' | 'unknown_function' | 'schema_mismatch';

export const BUILTIN_TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city', 'unit'], additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_flights',
      description: 'Flights between two airports on a date.',
      parameters: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string', format: 'date' }, passengers: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['from', 'to', 'date'], additionalProperties: false },
    },
  },
];

/** `tools` (`--tools builtin|FILE`: a JSON array of {"type":"function","function":{name, parameters}}) and `toolShare` (`--tool-share P`), typed. */
export function toolsFromOptions(tools: string | undefined, share: number | undefined, names: LoadNames = RUN_LOAD_NAMES): ToolsSpec | undefined {
  if (tools === undefined) {
    if (share !== undefined) throw loadUsage(names, `${names.name('toolShare')} needs ${names.name('tools')}`);
    return undefined;
  }
  const p = share === undefined ? 1 : checkNumber(names, 'toolShare', share);
  if (tools === 'builtin') return { source: 'builtin', tools: BUILTIN_TOOLS, share: p };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(tools, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: ${names.name('tools')} ${tools}: ${code ?? `not JSON (${(error as Error).message})`}`);
  }
  const ok = Array.isArray(parsed) && parsed.length > 0 && parsed.every((t) => typeof t === 'object' && t !== null && (t as ToolDef).type === 'function' && typeof (t as ToolDef).function?.name === 'string');
  if (!ok) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: ${names.name('tools')} ${tools}: must be a non-empty JSON array of {"type":"function","function":{"name":...,"parameters":{...}}}`);
  const defs = parsed as ToolDef[];
  judge(defs, tools);
  return { source: tools, tools: defs, share: p };
}

/** Whether request `seq` declares the tools (seeded, so a run is reproducible). */
export function declaresTools(spec: ToolsSpec, seed: number, seq: number): boolean {
  return spec.share >= 1 || seededRandom((seed ^ Math.imul(seq + 1, 0x9e3779b1) ^ 0x7001ca11) >>> 0)() < spec.share;
}

/** Adds `tools` to a request body built without them (its last character is the closing brace). */
export function withTools(body: (seq: number) => string, spec: ToolsSpec, seed: number): (seq: number) => string {
  const json = `,"tools":${JSON.stringify(spec.tools)}}`;
  return (seq) => {
    const b = body(seq);
    return declaresTools(spec, seed, seq) ? b.slice(0, b.lastIndexOf('}')) + json : b;
  };
}

/** Compiles each function's parameters schema once (a schema ajv cannot compile is a usage error). */
export function judge(defs: readonly ToolDef[], source = 'builtin'): (calls: readonly ToolCallSeen[]) => InvalidKind[] {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const byName = new Map<string, ValidateFunction>();
  for (const d of defs) {
    try {
      byName.set(d.function.name, ajv.compile(d.function.parameters ?? { type: 'object' }));
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.USAGE, `iari load: --tools ${source}: the parameters of ${d.function.name} are not a JSON Schema ajv can compile: ${(error as Error).message}`);
    }
  }
  return (calls) =>
    calls.map((c): InvalidKind | null => {
      let args: unknown;
      try {
        args = JSON.parse(c.arguments);
      } catch {
        return 'not_json';
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'not_json';
      const validate = c.name === null ? undefined : byName.get(c.name);
      if (validate === undefined) return 'unknown_function';
      return validate(args) ? null : 'schema_mismatch';
    }).filter((k): k is InvalidKind => k !== null);
}

export class ToolCallAcc {
  requestsWithTools = 0;
  requestsCalling = 0;
  requestsInvalid = 0;
  calls = 0;
  invalid: Record<InvalidKind, number> = { not_json: 0, unknown_function: 0, schema_mismatch: 0 };
  readonly firstCall: Histogram = newHistogram();

  constructor(readonly check: (calls: readonly ToolCallSeen[]) => InvalidKind[] = () => []) {}

  /** One successful measured request that declared tools: the calls it made and the latency to its first tool-call delta (µs, from the intended send). */
  add(calls: readonly ToolCallSeen[] | undefined, firstCallUs: number | null): void {
    this.requestsWithTools++;
    if (calls === undefined || calls.length === 0) return;
    this.requestsCalling++;
    this.calls += calls.length;
    const bad = this.check(calls);
    if (bad.length > 0) this.requestsInvalid++;
    for (const k of bad) this.invalid[k]++;
    if (firstCallUs !== null) record(this.firstCall, firstCallUs);
  }
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 1e6) / 1e6);

export function buildToolCallReport(a: ToolCallAcc, source: string): ToolCallReport | undefined {
  if (a.requestsWithTools === 0) return undefined;
  const invalid = a.invalid.not_json + a.invalid.unknown_function + a.invalid.schema_mismatch;
  return {
    tools: source,
    requestsWithTools: a.requestsWithTools,
    requestsCalling: a.requestsCalling,
    callRate: ratio(a.requestsCalling, a.requestsWithTools),
    calls: a.calls,
    invalidCalls: invalid,
    invalidRate: ratio(invalid, a.calls),
    invalidByKind: { ...a.invalid },
    invalidRateByKind: { not_json: ratio(a.invalid.not_json, a.calls), unknown_function: ratio(a.invalid.unknown_function, a.calls), schema_mismatch: ratio(a.invalid.schema_mismatch, a.calls) },
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
    for (const k of ['not_json', 'unknown_function', 'schema_mismatch'] as const) a.invalid[k] += r.invalidByKind[k];
    if (r.firstToolCall !== null) a.firstCall.add(decodeHistogram(r.firstToolCall.hdr));
  }
  return buildToolCallReport(a, source);
}

export function toolCallLine(r: ToolCallReport | undefined, fmt: (us: number | null | undefined) => string): string | null {
  if (r === undefined) return null;
  const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;
  return `tool calls (--tools ${r.tools}): ${r.requestsCalling} of ${r.requestsWithTools} requests with tools called one (${pct(r.callRate)}); ${r.calls} calls, ${r.invalidCalls} invalid (${pct(r.invalidRate)}): arguments not JSON ${r.invalidByKind.not_json}, unknown function ${r.invalidByKind.unknown_function}, schema mismatch ${r.invalidByKind.schema_mismatch}; first tool-call delta p50 ${fmt(r.firstToolCall?.percentiles.p50)}`;
}
