import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoad, type LoadConfig } from '../../src/load/run-load.ts';
import type { WorkloadSpec } from '../../src/load/workloads/workload.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { mergeResults } from '../../src/load/results/merge.ts';
import { buildComparison } from '../../src/compare/compare-report.ts';
import type { CompareSide } from '../../src/compare/compare-inputs.ts';
import { BUILTIN_TOOLS, declaresTools } from '../../src/load/workloads/tool-calls.ts';
import { toolsFromOptions } from '../../src/load/plan/workload-options.ts';
import { cancelPlan, loadConfig, serverMetricsDefault, startLoadMock } from './load-fixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-resp-tools-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * `iari load --api responses` with tools, cancellation, SLOs, shards and compare against the mock,
 * whose POST /v1/responses calls a declared tool whenever tools are given (function_call items,
 * arguments streamed as response.function_call_arguments.delta), stops at max_output_tokens with
 * status incomplete, and closes a stream whose client left (its send log says interrupted).
 */
describe('Responses tool calls, cancellation, SLOs, shards and compare under load', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: 4, completionTokens: 8, tokensPerChunk: 2, capacity: 8 });
  });
  afterAll(() => mock.close());

  async function load(over: Partial<LoadConfig> = {}): Promise<{ result: LoadResult; records: RequestRecord[] }> {
    const records: RequestRecord[] = [];
    const { result } = await runLoad(loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'undici' }, { api: 'responses', checkIn: 'in-process', durationS: 0.8, seed: 3, onRecord: (r) => records.push(r), ...over }));
    return { result, records: records.filter((r) => r.phase === 'measure') };
  }
  const spec = (tools: NonNullable<ReturnType<typeof toolsFromOptions>>, output: number | null = null): WorkloadSpec => ({ input: { kind: 'prompts' }, output: output === null ? null : { mean: output, stdev: 0 }, maxTokensField: 'max_tokens', extraBody: null, tools });

  it('LOAD-TOOLS: every function_call of the builtin tools is judged valid; TTFT is the first arguments delta, the first tool call its item (with it or before)', async () => {
    const slo = ['tool_calls.invalid_rate<0.01', 'ttft.p50<2s'];
    const { result, records } = await load({ workload: spec({ source: 'builtin', tools: BUILTIN_TOOLS, share: 1 }), slos: parseSlos(slo), sloExprs: slo });
    const ok = records.filter((r) => r.error === null);
    expect(ok.length).toBeGreaterThan(3);
    expect(result.counts.failed).toBe(0);
    const t = result.toolCalls!;
    expect(t).toMatchObject({ requestsWithTools: ok.length, requestsCalling: ok.length, invalidCalls: 0 });
    expect(t.calls).toBeGreaterThanOrEqual(ok.length);
    // The answer is the call: TTFT is its first arguments delta, and the first tool call its output_item.added, which comes with it or before.
    expect(t.firstToolCall?.count).toBe(ok.length);
    expect(result.metrics.ttft?.count).toBe(ok.length);
    expect(t.firstToolCall!.percentiles.p50).toBeLessThanOrEqual(result.metrics.ttft!.percentiles.p50);
    expect(t.firstToolCall!.percentiles.p50).toBeGreaterThan(result.metrics.ttft!.percentiles.p50 - 20_000);
    expect(result.slos.map((s) => [s.expr, s.passed])).toEqual([['tool_calls.invalid_rate<0.01', true], ['ttft.p50<2s', true], ['errors.rate<=5%', true]]);
  }, 60_000);

  it('LOAD-TOOLS: arguments that break the declared schema are schema_mismatch on the seeded share; a call cut by max_output_tokens (status incomplete) is cut, never invalid', async () => {
    const file = join(tmp, 'tools.json');
    writeFileSync(file, JSON.stringify([{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{8}$' } }, required: ['order_id'] } } }]));
    const tools = toolsFromOptions(file, 0.5)!;
    const { result, records } = await load({ workload: spec(tools) });
    const ok = records.filter((r) => r.error === null);
    const declared = ok.filter((r) => declaresTools(tools, 3, r.seq)).length;
    expect(declared).toBeGreaterThan(0);
    expect(declared).toBeLessThan(ok.length);
    expect(result.toolCalls).toMatchObject({ requestsWithTools: declared, invalidByKind: { not_json: 0, unknown_function: 0, schema_mismatch: declared }, invalidRate: 1 });
    // --output-tokens 16 (max_output_tokens' least) for calls the mock would make 200 tokens long: every call is cut in its arguments, and the Response says incomplete (max_output_tokens).
    const cut = await load({ workload: spec({ source: 'builtin', tools: BUILTIN_TOOLS, share: 1 }, 16), extraHeaders: () => ({ 'x-iari-completion-tokens': '200' }) });
    const c = cut.result.toolCalls!;
    expect(cut.result.counts.failed).toBe(0);
    expect(c.calls).toBeGreaterThan(0);
    expect(c.cutCalls).toBe(c.requestsCalling);
    expect(c.invalidCalls).toBe(0);
  }, 60_000);

  it('LOAD-CANCEL: cut Responses streams are closed on the wire and counted apart (after 3 tokens of output deltas); with --server-metrics the mock releases every cut', async () => {
    const { result, records } = await load({ durationS: 1.2, cancellation: cancelPlan(0.5, '3tokens'), serverMetrics: serverMetricsDefault, maxTokens: 400, extraHeaders: () => ({ 'x-iari-completion-tokens': '300' }) });
    expect(result.errors.total).toBe(0);
    const c = result.cancellation!;
    expect(c.cancelled).toBeGreaterThan(0);
    expect(c.phase.prefill).toBe(0);
    expect(records.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    const all: RequestRecord[] = [];
    await load({ durationS: 0.6, cancellation: cancelPlan(0.5, '3tokens'), maxTokens: 400, extraHeaders: () => ({ 'x-iari-completion-tokens': '300' }), onRecord: (r) => all.push(r) });
    await new Promise((r) => setTimeout(r, 100));
    const cutOnes = all.filter((r) => r.phase === 'cancelled');
    expect(cutOnes.length).toBeGreaterThan(0);
    for (const r of cutOnes) expect(mock.sendLog.get(r.requestId ?? '')?.interrupted).toBe(true);
    expect(cutOnes.every((r) => (r.cancelled?.tokens ?? 0) >= 3)).toBe(true);
    for (const r of all.filter((x) => x.phase === 'measure')) expect(mock.sendLog.get(r.requestId ?? '')?.interrupted).toBe(false);
    expect(c.leak?.verdict).toBe('released');
  }, 60_000);

  it('LOAD-SHARD: two Responses shards merge into counts and token totals that add up; compare names a run that went to another API', async () => {
    const a = await load({ shard: { index: 0, count: 2 } });
    const b = await load({ shard: { index: 1, count: 2 } });
    const merged = mergeResults([a.result, b.result], 'merged');
    expect(merged.meta.config.api).toBe('responses');
    expect(merged.counts.ok).toBe(a.result.counts.ok + b.result.counts.ok);
    expect(merged.counts.outputTokens).toBe(a.result.counts.outputTokens + b.result.counts.outputTokens);
    const chat = (await runLoad(loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'undici' }, { checkIn: 'in-process', durationS: 0.5 }))).result;
    const side = (r: LoadResult): CompareSide => ({ source: r.meta.runId, load: r, records: null, conformance: null });
    expect(buildComparison(side(chat), side(a.result)).notes).toContain('the runs went to different APIs: base chat-completions, new responses (the rows compare the server\'s two endpoints)');
    expect(buildComparison(side(b.result), side(a.result)).notes.some((n) => n.includes('different APIs'))).toBe(false);
  }, 60_000);

  it('LOAD-SERVER-METRICS: --server-metrics reconciles the mock\'s own counters with the Responses usage exactly: generated, prompt and cached tokens, requests finished', async () => {
    const own = await startLoadMock({ ttftMs: 5, itlMs: 1, completionTokens: [4, 12], prefixCache: { blockTokens: 16, capacityBlocks: 4096, prefillMsPerToken: 0.01 } });
    try {
      const records: RequestRecord[] = [];
      const slo = ['server.reconcile'];
      const { result } = await runLoad(loadConfig(own, { kind: 'closed', concurrency: 3, engine: 'undici' }, {
        api: 'responses',
        durationS: 1.2,
        preWindowMs: 10_000,
        workload: { input: { kind: 'synthetic', length: { mean: 40, stdev: 0 } }, output: null, maxTokensField: 'max_tokens', extraBody: null, prefix: { tokens: 200, groups: 2 } },
        serverMetrics: { url: null, headers: [], intervalMs: 100 },
        slos: parseSlos(slo),
        sloExprs: slo,
        onRecord: (r) => records.push(r),
      }));
      const finding = (id: string) => result.server?.reconciliation.find((f) => f.id === id);
      expect(records.length).toBeGreaterThan(0);
      expect(records.every((r) => r.error === null)).toBe(true);
      const sum = (k: 'outputTokens' | 'promptTokens' | 'cachedTokens'): number => records.reduce((a, r) => a + (r[k] ?? 0), 0);
      expect(sum('cachedTokens')).toBeGreaterThan(0);
      expect(finding('generated_tokens')).toMatchObject({ verdict: 'agree', server: sum('outputTokens'), client: sum('outputTokens') });
      expect(finding('prompt_tokens')).toMatchObject({ verdict: 'agree', server: sum('promptTokens'), client: sum('promptTokens') });
      expect(finding('cached_tokens')).toMatchObject({ verdict: 'agree', server: sum('cachedTokens'), client: sum('cachedTokens') });
      expect(finding('requests_finished')).toMatchObject({ verdict: 'agree', server: records.length, client: records.length });
      expect(result.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: true });
    } finally {
      await own.close();
    }
  }, 60_000);
});
