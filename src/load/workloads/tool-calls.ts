import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { seededRandom } from '../../seeded-random.ts';
import type { ToolDeclaration } from '../../protocols/protocol.ts';

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
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface ToolsSpec {
  /** `builtin` or the file the definitions came from. */
  source: string;
  tools: ToolDef[];
  /** Share of requests that declare the tools (seeded per request). */
  share: number;
  /** The least max_tokens a request that declares the tools asks for (set when the user chose no output length). */
  outputFloor?: number;
}

/**
 * Issue 43: "Every call that did not parse had finish_reason "length", cut by iari's default of 64
 * tokens." A builtin call is about 40 tokens of JSON; chat templates wrap it (Qwen's <tool_call>
 * tags, Hermes' JSON envelope) and some models think first, so a request that declares tools asks
 * for at least 256 unless the user chose an output length (--max-tokens, --output-tokens).
 */
export const TOOL_CALL_OUTPUT_FLOOR = 256;

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

/** Whether request `seq` declares the tools (seeded, so a run is reproducible). */
export function declaresTools(spec: ToolsSpec, seed: number, seq: number): boolean {
  return spec.share >= 1 || seededRandom((seed ^ Math.imul(seq + 1, 0x9e3779b1) ^ 0x7001ca11) >>> 0)() < spec.share;
}

/** The definitions as every API declares a function tool (the run's protocol writes them on its wire). */
export function toolDeclarations(defs: readonly ToolDef[]): ToolDeclaration[] {
  return defs.map(({ function: f }) => ({ name: f.name, ...(f.description === undefined ? {} : { description: f.description }), ...(f.parameters === undefined ? {} : { parameters: f.parameters }), ...(f.strict === undefined ? {} : { strict: f.strict }) }));
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
