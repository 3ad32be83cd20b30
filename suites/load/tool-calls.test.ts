import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { BUILTIN_TOOLS, declaresTools, type ToolsSpec } from '../../src/load/workloads/tool-calls.ts';
import { toolsFromOptions } from '../../src/load/plan/workload-options.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-tools-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Tool calls under load against the mock, which calls a declared tool whenever tools are given and
 * breaks its calls on request (x-iari-fault): tool-arguments-invalid-json (the closing brace cut),
 * tool-name-undeclared ("<name>_v2"). Its generator ignores `pattern`, so a schema with one is not
 * met. The fault goes on every other request, so the rate of the kind is the faulted share of calls.
 * Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
 * check the same events, token counts and stamps).
 */
describe('tool calls under load against the mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 1, completionTokens: 4, tokensPerChunk: 4 });
  });
  afterAll(() => mock.close());

  async function run(tools: ToolsSpec, fault: string | null, slo: string[] = [], stream = true): Promise<{ result: Awaited<ReturnType<typeof runLoadConfig>>['result']; records: RequestRecord[] }> {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, {
        checkIn: 'in-process',
        durationS: 1,
        seed: 3,
        stream,
        slos: parseSlos(slo),
        sloExprs: slo,
        workload: { input: { kind: 'prompts' }, output: null, maxTokensField: 'max_tokens', extraBody: null, tools },
        ...(fault === null ? {} : { extraHeaders: (seq: number) => (seq % 2 === 0 ? { 'x-iari-fault': fault } : {}) }),
        onRecord: (r) => records.push(r),
      }),
    );
    return { result, records };
  }

  it('LOAD-TOOLS: without a fault every call of the builtin tools is valid and tool_calls.invalid_rate<0.01 is met', async () => {
    const { result, records } = await run({ source: 'builtin', tools: BUILTIN_TOOLS, share: 1 }, null, ['tool_calls.invalid_rate<0.01']);
    const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
    const t = result.toolCalls!;
    expect(t.requestsWithTools).toBe(ok.length);
    expect(t.requestsCalling).toBe(ok.length);
    expect(t.calls).toBeGreaterThanOrEqual(ok.length);
    expect(t.invalidCalls).toBe(0);
    expect(result.slos[0]).toMatchObject({ passed: true, observed: 0 });
  }, 60_000);

  // The mock renames functions in whole answers only: that fault runs with --no-stream (the whole-body path).
  for (const [fault, kind, stream] of [
    ['tool-arguments-invalid-json', 'not_json', true],
    ['tool-name-undeclared', 'unknown_function', false],
  ] as const) {
    it(`LOAD-TOOLS: the mock fault ${fault} shows as ${kind} calls at the faulted share, and breaches tool_calls.invalid_rate<0.01 (${stream ? 'streamed' : 'whole answers'})`, async () => {
      const { result, records } = await run({ source: 'builtin', tools: BUILTIN_TOOLS, share: 1 }, fault, ['tool_calls.invalid_rate<0.01'], stream);
      const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
      const faulted = ok.filter((r) => r.seq % 2 === 0).length;
      const t = result.toolCalls!;
      expect(faulted).toBeGreaterThan(0);
      // Every answer calls the same number of tools (the mock calls both builtin tools in parallel).
      const perAnswer = t.calls / t.requestsCalling;
      expect(Number.isInteger(perAnswer)).toBe(true);
      expect(t.invalidByKind[kind]).toBe(faulted * perAnswer);
      expect(t.invalidCalls).toBe(t.invalidByKind[kind]);
      expect(t.invalidRate).toBeCloseTo(faulted / ok.length, 5);
      expect(t.requestsInvalid).toBe(faulted);
      expect(result.slos[0]?.passed).toBe(false);
      expect(result.slosPassed).toBe(false);
    }, 60_000);
  }

  it('LOAD-TOOLS: arguments that break the declared schema (a pattern the mock ignores) are schema_mismatch; --tool-share declares tools on the seeded share of requests', async () => {
    const file = join(tmp, 'tools.json');
    writeFileSync(file, JSON.stringify([{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{8}$' } }, required: ['order_id'] } } }]));
    const tools = toolsFromOptions(file, 0.5)!;
    const { result, records } = await run(tools, null);
    const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
    const declared = ok.filter((r) => declaresTools(tools, 3, r.seq)).length;
    expect(declared).toBeGreaterThan(0);
    expect(declared).toBeLessThan(ok.length);
    const t = result.toolCalls!;
    expect(t.requestsWithTools).toBe(declared);
    expect(t.invalidByKind).toEqual({ not_json: 0, unknown_function: 0, schema_mismatch: declared });
    expect(t.invalidRate).toBe(1);
  }, 60_000);
});
