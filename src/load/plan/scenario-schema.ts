// The JSON Schema of a load scenario (a scenario file, `runScenario()`'s argument, load.json's
// `scenario`). The plain parts' fields (target, executor, request, run, cancellation) come from the
// flag table's rows (scenario-fields.ts: range, set, kind, help), the workload parts from
// WORKLOAD_KINDS, so the file, the flags and the library refuse the same values. Combinations (a
// ramp without a rate…) are the one validator's (validateLoadOptions).
import { choiceSchema, NUMBER_RULES, type NumberOption } from './load-option-names.ts';
import { WORKLOAD_KINDS } from './scenario-workloads.ts';
import { LOAD_FLAGS, type LoadFlag } from './load-flag-table.ts';
import { EXECUTOR_KINDS, partProperties, scenarioFieldsOf } from './scenario-fields.ts';

type Schema = Record<string, unknown>;

const ranged = (option: NumberOption, description: string): Schema => {
  const r = NUMBER_RULES[option] as { min: number; max: number; integer: boolean; aboveMin?: boolean };
  return { type: r.integer ? 'integer' : 'number', ...(r.aboveMin === true ? { exclusiveMinimum: r.min } : { minimum: r.min }), maximum: r.max, description };
};
const duration = (description: string): Schema => ({ type: ['string', 'number'], description: `${description}; e.g. "10s", "500ms", "1m30s" (a bare number is seconds)` });
const text = (description: string): Schema => ({ type: 'string', minLength: 1, description });
const object = (properties: Record<string, Schema>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(description === undefined ? {} : { description }),
});
const kind = (k: string): Schema => ({ const: k });

/** The schema of a scenario whose flags are these rows. */
export function scenarioSchemaOf(rows: readonly LoadFlag[]): Schema {
  const fields = scenarioFieldsOf(rows);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://iari.dev/schemas/load-scenario.json',
    title: 'iari load scenario',
    ...object({
      $schema: { type: 'string' },
      target: object(partProperties(fields, 'target')),
      executor: {
        description: 'how requests are issued',
        oneOf: Object.entries(EXECUTOR_KINDS).map(([k, e]) => object({ kind: kind(k), ...partProperties(fields, 'executor', e.fields) }, ['kind', ...e.required], e.description)),
      },
      workload: {
        type: 'array',
        description: 'the workload\'s parts, at most one of each kind (none: the built-in prompts)',
        items: {
          oneOf: Object.entries(WORKLOAD_KINDS).map(([k, w]) => object({ kind: kind(k), ...(w.properties as Record<string, Schema>) }, ['kind', ...(w.required as readonly string[])], w.summary)),
        },
      },
      request: object(partProperties(fields, 'request')),
      run: object(partProperties(fields, 'run')),
      search: {
        description: 'what runs around the run',
        oneOf: [
          object({ kind: kind('none') }, ['kind']),
          object({ kind: kind('sweep'), steps: ranged('sweepSteps', 'at most this many steps (default 6)') }, ['kind']),
          object({ kind: kind('capacity'), tolerance: text('relative width of the final interval, "5%" or "0.05"'), budget: duration('total time of the search (default 10m)') }, ['kind']),
          object({ kind: kind('repeat'), times: ranged('repeat', 'runs of the same configuration') }, ['kind', 'times']),
          object(
            {
              kind: kind('ab'),
              baseUrl: text("the second server (B), http(s)://host[:port][/v1]; target.baseUrl is A. B's token is never in a scenario: B on A's origin gets A's, else iari load --ab-token-env NAME"),
              block: duration('blocks: one block (default 3s; 1s..60s); random: the window compared pair by pair'),
              blockRequests: ranged('abBlockRequests', 'blocks: each block ends after this many measured requests (then block is its ceiling x10)'),
              assign: choiceSchema('abAssign', 'blocks (default): A B, B A, ... one side at a time; random: each request to A or B at random (seeded by run.seed), both at once'),
            },
            ['kind', 'baseUrl'],
            'A/B in one run: the same workload against target.baseUrl (A) and baseUrl (B), compared over paired blocks (iari report compare RUN)',
          ),
        ],
      },
      cancellation: object(partProperties(fields, 'cancellation'), ['rate'], 'the client cancels a share of its requests'),
      slos: { type: 'array', items: { type: 'string', minLength: 1 }, description: "thresholds such as 'ttft.p95<800ms'" },
    }),
  };
}

export const SCENARIO_SCHEMA: Schema = scenarioSchemaOf(LOAD_FLAGS);
