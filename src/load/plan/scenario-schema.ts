// The JSON Schema of a load scenario (a scenario file, `runScenario()`'s argument, load.json's
// `scenario`). The fields of target, executor, request, run, cancellation and search come from the
// flag table's rows (scenario-fields.ts: range, set, kind, help as the description); the workload
// parts' from WORKLOAD_KINDS, described by their rows' help, and a row's field the kind does not
// list is added from the row; so the file, the flags and the library refuse the same values.
// Combinations (a ramp without a rate…) are the one validator's (validateLoadOptions).
import { WORKLOAD_KINDS } from './scenario-workloads.ts';
import { LOAD_FLAGS, type LoadFlag } from './load-flag-table.ts';
import { EXECUTOR_KINDS, fieldSchema, partProperties, scenarioFieldsOf, SEARCH_KINDS } from './scenario-fields.ts';

type Schema = Record<string, unknown>;

const text = (description: string): Schema => ({ type: 'string', minLength: 1, description });
const object = (properties: Record<string, Schema>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(description === undefined ? {} : { description }),
});
const kind = (k: string): Schema => ({ const: k });

/** A workload kind's properties: its own, each described by its row's help; a row's field it does not list, from the row. */
function workloadProperties(rows: readonly LoadFlag[], k: string, own: Record<string, Schema>): Record<string, Schema> {
  const props: Record<string, Schema> = { ...own };
  for (const row of rows) {
    const field = row.path?.startsWith(`workload ${k}.`) === true ? row.path.slice(`workload ${k}.`.length) : undefined;
    if (field === undefined) continue;
    const mine = props[field];
    props[field] = mine === undefined ? fieldSchema(row) : row.help === undefined ? mine : { ...mine, description: row.help.join(' ') };
  }
  return props;
}

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
          oneOf: Object.entries(WORKLOAD_KINDS).map(([k, w]) => object({ kind: kind(k), ...workloadProperties(rows, k, w.properties as Record<string, Schema>) }, ['kind', ...(w.required as readonly string[])], w.summary)),
        },
      },
      request: object(partProperties(fields, 'request')),
      run: object(partProperties(fields, 'run')),
      search: {
        description: 'what runs around the run',
        oneOf: Object.entries(SEARCH_KINDS).map(([k, q]) =>
          object(
            { kind: kind(k), ...(k === 'ab' ? { baseUrl: text("the second server (B), http(s)://host[:port][/v1]; target.baseUrl is A. B's token is never in a scenario: B on A's origin gets A's, else iari load --ab-token-env NAME") } : {}), ...partProperties(fields, 'search', q.fields) },
            ['kind', ...q.required],
            q.description,
          ),
        ),
      },
      cancellation: object(partProperties(fields, 'cancellation'), ['rate'], 'the client cancels a share of its requests'),
      slos: { type: 'array', items: { type: 'string', minLength: 1 }, description: "thresholds such as 'ttft.p95<800ms'" },
    }),
  };
}

export const SCENARIO_SCHEMA: Schema = scenarioSchemaOf(LOAD_FLAGS);
