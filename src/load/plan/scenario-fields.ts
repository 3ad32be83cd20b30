// The scenario's plain parts (target, executor, request, run, cancellation), field by field, from the
// flag table's paths: a row whose path is `run.seed` reads and writes that field, and gives its JSON
// Schema (range, set, duration or text, and its help as the description). So a flag with such a path
// is a scenario field, in the schema and both ways between scenario and options, with no other edit.
import type { LoadFlag } from './load-flag-table.ts';

type Schema = Record<string, unknown>;

/** The parts whose fields are options; `search`'s fields are the shell's (sweepSteps, repeat, abBlock…), by its kind. */
export const FIELD_PARTS = ['target', 'executor', 'request', 'run', 'cancellation'] as const;
export type FieldPart = (typeof FIELD_PARTS)[number] | 'search';

export interface ScenarioField {
  part: FieldPart;
  field: string;
  option: string;
  row: LoadFlag;
}

const PATH = /^(target|executor|request|run|cancellation|search)\.([A-Za-z]+)$/;

/** Each executor kind's fields (their schemas are the rows'), and those it requires besides `kind`. */
export const EXECUTOR_KINDS = {
  closed: { fields: ['concurrency', 'engine'], required: [], description: 'closed loop' },
  open: { fields: ['rate', 'arrival', 'burstiness', 'ramp', 'rampShape'], required: ['rate'], description: 'open loop: latency from the intended send time' },
  capped: { fields: ['rate', 'arrival', 'burstiness', 'ramp', 'rampShape', 'maxConcurrency'], required: ['rate', 'maxConcurrency'], description: 'open loop capped at maxConcurrency in flight' },
  trace: { fields: ['speed', 'window', 'maxConcurrency'], required: [], description: "the arrivals of the workload's trace" },
} as const;

/**
 * Each search kind's fields (their schemas are the rows'), those it requires besides `kind`, and the
 * switch that chooses it (`ab`: its baseUrl is the option).
 */
export const SEARCH_KINDS = {
  none: { fields: [], required: [], description: undefined, flag: undefined },
  sweep: { fields: ['steps'], required: [], description: undefined, flag: 'sweep' },
  capacity: { fields: ['tolerance', 'budget'], required: [], description: undefined, flag: 'findCapacity' },
  repeat: { fields: ['times'], required: ['times'], description: undefined, flag: undefined },
  ab: { fields: ['block', 'blockRequests', 'assign'], required: ['baseUrl'], description: 'A/B in one run: the same workload against target.baseUrl (A) and baseUrl (B), compared over paired blocks (iari report compare RUN)', flag: undefined },
} as const;

/** The rows that are fields of a plain part, in the table's order. */
export function scenarioFieldsOf(rows: readonly LoadFlag[]): ScenarioField[] {
  return rows.flatMap((row) => {
    const m = row.option === undefined || row.path === undefined ? null : PATH.exec(row.path);
    return m === null ? [] : [{ part: m[1] as FieldPart, field: m[2] as string, option: row.option as string, row }];
  });
}

/** The row's help as one line: the field's description. */
const described = (row: LoadFlag): Schema => (row.help === undefined ? {} : { description: row.help.join(' ') });

/** A field's JSON Schema: the row's own, else from its range, set, kind (a switch, a duration `D`) or text. */
export function fieldSchema(row: LoadFlag): Schema {
  if (row.schema !== undefined) return { ...row.schema };
  const r = row.rule;
  if (r !== undefined) return { type: r.integer ? 'integer' : 'number', ...(r.aboveMin === true ? { exclusiveMinimum: r.min } : { minimum: r.min }), maximum: r.max, ...described(row) };
  if (row.choices !== undefined) return { enum: [...row.choices], ...described(row) };
  if (row.parse === 'switch') return { type: 'boolean', ...described(row) };
  if (row.arg === 'D') return { type: ['string', 'number'], description: `${row.help?.join(' ') ?? 'a duration'}; e.g. "10s", "500ms", "1m30s" (a bare number is seconds)` };
  return { type: 'string', minLength: 1, ...described(row) };
}

/** A part's properties (the fields named, in that order, when given). */
export function partProperties(fields: readonly ScenarioField[], part: FieldPart, only?: readonly string[]): Record<string, Schema> {
  const own = fields.filter((f) => f.part === part);
  const chosen = only === undefined ? own : only.map((name) => own.find((f) => f.field === name)).filter((f): f is ScenarioField => f !== undefined);
  return Object.fromEntries(chosen.map((f) => [f.field, fieldSchema(f.row)]));
}

/** A scenario value as its option's, and back (`extraBody`: an object in a scenario, JSON text as an option). */
const TO_OPTION: Readonly<Record<string, (v: unknown) => unknown>> = { extraBody: (v) => (typeof v === 'object' ? JSON.stringify(v) : v), abBlock: (v) => String(v) };
const TO_SCENARIO: Readonly<Record<string, (v: unknown) => unknown>> = { extraBody: (v) => bodyOf(v as string), headers: (v) => ({ ...(v as object) }) };

/** A part's fields (those named, when given) into the options. */
export function partToOptions(fields: readonly ScenarioField[], part: FieldPart, value: object | undefined, into: Record<string, unknown>, only?: readonly string[]): void {
  if (value === undefined) return;
  const v = value as Record<string, unknown>;
  for (const f of fields) {
    if (f.part !== part || v[f.field] === undefined || (only !== undefined && !only.includes(f.field))) continue;
    into[f.option] = (TO_OPTION[f.option] ?? ((x: unknown) => x))(v[f.field]);
  }
}

/** The options' values of a part's fields (absent ones absent), the fields named when given. */
export function partFromOptions(fields: readonly ScenarioField[], part: FieldPart, o: object, only?: readonly string[]): Record<string, unknown> {
  const v = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.part !== part || v[f.option] === undefined || (only !== undefined && !only.includes(f.field))) continue;
    out[f.field] = (TO_SCENARIO[f.option] ?? ((x: unknown) => x))(v[f.option]);
  }
  return out;
}

const WORKLOAD_PATH = /^workload ([a-z]+)\.([A-Za-z]+)$/;

/** A field of a workload part (`workload dataset.size`): the kind it belongs to, its name there and its option. */
export interface WorkloadField {
  kind: string;
  field: string;
  option: string;
}

/** The rows that are fields of a workload part, in the table's order (a kind's first is its key: the part is there when its option is). */
export function workloadFieldsOf(rows: readonly LoadFlag[]): WorkloadField[] {
  return rows.flatMap((row) => {
    const m = row.option === undefined || row.path === undefined ? null : WORKLOAD_PATH.exec(row.path);
    return m === null ? [] : [{ kind: m[1] as string, field: m[2] as string, option: row.option as string }];
  });
}

/** A workload part's fields into the options (`defaults`: the part's values when it leaves them out). */
export function workloadToOptions(fields: readonly WorkloadField[], part: { kind: string }, into: Record<string, unknown>, defaults: object = {}): void {
  const v = { ...defaults, ...part } as Record<string, unknown>;
  for (const f of fields) if (f.kind === part.kind && v[f.field] !== undefined) into[f.option] = v[f.field];
}

/** The part of this kind the options ask for: none unless its key option is given. */
export function workloadFromOptions(fields: readonly WorkloadField[], kind: string, o: object): Record<string, unknown> | undefined {
  const own = fields.filter((f) => f.kind === kind);
  const v = o as Record<string, unknown>;
  if (own[0] === undefined || v[own[0].option] === undefined) return undefined;
  return { kind, ...Object.fromEntries(own.flatMap((f) => (v[f.option] === undefined ? [] : [[f.field, v[f.option]]]))) };
}

/** `--extra-body` text that is a JSON object reads better in a scenario as the object; `@FILE` stays. */
function bodyOf(text: string): Record<string, unknown> | string {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}
