import { describe, expect, it } from 'vitest';
import { LOAD_FLAGS, type LoadFlag } from './load-flag-table.ts';
import { optionsToScenario, scenarioToOptions, type LoadScenario, type ScenarioOptions } from './scenario.ts';
import { scenarioSchemaOf, SCENARIO_SCHEMA } from './scenario-schema.ts';
import { scenarioFieldsOf } from './scenario-fields.ts';

const rows = LOAD_FLAGS as readonly LoadFlag[];
type Props = { properties: Record<string, { properties: Record<string, unknown> }> };
const partOf = (schema: unknown, part: string): Record<string, unknown> => (schema as Props).properties[part]?.properties ?? {};

describe('LOAD-SCENARIO: the scenario is built from the flag table', () => {
  it('a made-up row with a scenario path is a field of the schema and round-trips scenario -> options -> scenario with no other edit', () => {
    const cap: LoadFlag = { flag: 'example-cap', arg: 'N', section: 'load', parse: 'number', option: 'exampleCap', path: 'run.exampleCap', rule: { min: 1, max: 9, integer: true }, help: ['at most N of something', '(an example row)'] };
    const label: LoadFlag = { flag: 'example-label', arg: 'TEXT', section: 'requests', parse: 'text', option: 'exampleLabel', path: 'request.exampleLabel', help: ['an example text field'] };
    const pause: LoadFlag = { flag: 'example-pause', arg: 'D', section: 'requests', parse: 'text', option: 'examplePause', path: 'target.examplePause', help: ['an example duration'] };
    const skip: LoadFlag = { flag: 'example-skip', arg: 'N', section: 'workload', parse: 'number', option: 'exampleSkip', path: 'workload dataset.skip', rule: { min: 0, max: 9, integer: true }, help: ['an example workload field'] };
    const table = [...rows, cap, label, pause, skip];
    const schema = scenarioSchemaOf(table);
    expect(partOf(schema, 'run')['exampleCap']).toEqual({ type: 'integer', minimum: 1, maximum: 9, description: 'at most N of something (an example row)' });
    expect(partOf(schema, 'request')['exampleLabel']).toEqual({ type: 'string', minLength: 1, description: 'an example text field' });
    expect(partOf(schema, 'target')['examplePause']).toMatchObject({ type: ['string', 'number'] });
    const dataset = (schema as { properties: { workload: { items: { oneOf: { properties: Record<string, unknown> }[] } } } }).properties.workload.items.oneOf.find((k) => (k.properties['kind'] as { const: string }).const === 'dataset');
    expect(dataset?.properties['skip']).toEqual({ type: 'integer', minimum: 0, maximum: 9, description: 'an example workload field' });
    const scenario = { target: { baseUrl: 'http://127.0.0.1:9/v1', examplePause: '2s' }, executor: { kind: 'open', rate: 4 }, request: { stream: false, exampleLabel: 'x' }, workload: [{ kind: 'dataset', file: 'd.json', skip: 2 }], run: { duration: '5s', exampleCap: 7 }, search: { kind: 'none' } } as unknown as LoadScenario;
    const { options, shell } = scenarioToOptions(scenario, table);
    expect(options).toMatchObject({ exampleSkip: 2, exampleCap: 7, exampleLabel: 'x', examplePause: '2s', rate: 4, stream: false });
    expect(optionsToScenario(options, shell, table)).toEqual(scenario);
    // Without the rows, none of it is there.
    expect(partOf(SCENARIO_SCHEMA, 'run')['exampleCap']).toBeUndefined();
    expect(scenarioToOptions(scenario).options).not.toHaveProperty('exampleCap');
    expect(optionsToScenario({ exampleCap: 7 } as ScenarioOptions).run).toBeUndefined();
  });

  it('every row with a plain path is a schema field of its part, and each option round-trips through it', () => {
    const fields = scenarioFieldsOf(rows);
    expect(fields.length).toBeGreaterThan(25);
    for (const f of fields) {
      const kinds = (SCENARIO_SCHEMA as { properties: Record<string, { oneOf?: { properties: object }[] }> }).properties[f.part]?.oneOf;
      const props = kinds === undefined ? partOf(SCENARIO_SCHEMA, f.part) : Object.assign({}, ...kinds.map((k) => k.properties));
      expect(props, f.row.flag).toHaveProperty([f.field]);
    }
    const options: ScenarioOptions = { baseUrl: 'http://127.0.0.1:9', model: 'm', connectionReuse: 'never', rate: 2, arrival: 'gamma', burstiness: 0.5, ramp: '3s', rampShape: 'exponential', maxConcurrency: 3, api: 'responses', maxTokens: 9, outputTokens: '8,2', maxTokensField: 'both', stream: false, timeout: '4s', requestTimeout: '9s', extraBody: '{"a":1}', duration: '5s', requests: 7, warmup: '1s', seed: 3, shard: '0/2', cancelRate: 0.5, cancelAfter: 'prefill' };
    expect(scenarioToOptions(optionsToScenario(options)).options).toEqual(options);
    expect(optionsToScenario(options).request?.extraBody).toEqual({ a: 1 });
    // The search kinds' fields are the shell's options, by the rows' search.* paths.
    for (const shell of [{ sweep: true, sweepSteps: 3 }, { findCapacity: true, tolerance: '2%', budget: '5m' }, { repeat: 4 }, { ab: 'http://127.0.0.1:8', abBlock: '2s', abBlockRequests: 9, abAssign: 'random' }] as const) {
      expect(scenarioToOptions(optionsToScenario({}, shell)).shell, JSON.stringify(shell)).toEqual(shell);
    }
    // The workload parts' fields are the rows' `workload <kind>.<field>` paths too.
    const workload: ScenarioOptions = { prompts: 'p.jsonl', inputTokens: '64,8', dataset: 'd.json', datasetSize: 5, turns: '3', thinkTime: '1s', chain: 'resend', prefixTokens: 32, prefixGroups: 2, tools: 'builtin', toolShare: 0.5, embeddingsBatch: 4, embeddingsFormat: 'base64' };
    expect(optionsToScenario(workload).workload).toEqual([{ kind: 'prompts', file: 'p.jsonl' }, { kind: 'synthetic', inputTokens: '64,8' }, { kind: 'dataset', file: 'd.json', size: 5 }, { kind: 'conversations', turns: '3', thinkTime: '1s', chain: 'resend' }, { kind: 'prefixes', tokens: 32, groups: 2 }, { kind: 'tools', tools: 'builtin', share: 0.5 }, { kind: 'embeddings', batch: 4, encodingFormat: 'base64' }]);
    expect(scenarioToOptions(optionsToScenario(workload)).options).toEqual(workload);
    const trace: ScenarioOptions = { trace: 't.jsonl', traceFormat: 'mooncake', traceSpeed: 2, traceWindow: '1s-5s', maxConcurrency: 4 };
    expect(optionsToScenario(trace)).toMatchObject({ executor: { kind: 'trace', speed: 2, window: '1s-5s', maxConcurrency: 4 }, workload: [{ kind: 'trace', file: 't.jsonl', format: 'mooncake' }] });
    expect(scenarioToOptions(optionsToScenario(trace)).options).toEqual(trace);
    // A part that leaves out a value its kind defaults (embeddings' batch).
    expect(scenarioToOptions({ workload: [{ kind: 'embeddings' }] }).options).toEqual({ embeddingsBatch: 1 });
  });
});
