import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { validateEmbeddingsRequest } from '../../src/protocols/embeddings/embeddings-request.ts';
import type { EmbeddingsReport } from '../../src/protocols/embeddings/embeddings-section.ts';
import type { WorkloadSpec } from '../../src/load/workloads/workload.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';
import { bodies } from '../../test-support/workload-bodies.ts';

/**
 * The embeddings workload against the mock, whose POST /v1/embeddings answers one seeded vector of
 * 64 values per input with usage counted by its tokenizer, and breaks its answers on request
 * (x-iari-fault). Ground truth: the batch sent is the batch asked, the inputs and prompt tokens the
 * run counts are the ones the mock answered, and a fault on the answers fails exactly those requests.
 */
describe('the embeddings workload against the mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock();
  });
  afterAll(() => mock.close());

  const spec = (batch: number, encodingFormat?: 'float' | 'base64'): WorkloadSpec => ({
    input: { kind: 'synthetic', length: { mean: 24, stdev: 0 } },
    output: null,
    maxTokensField: 'max_tokens',
    extraBody: null,
    embeddings: { batch, ...(encodingFormat === undefined ? {} : { encodingFormat }) },
  });

  async function run(batch: number, fault: string | null, encodingFormat?: 'float' | 'base64', checkIn: 'worker' | 'in-process' = 'in-process', slo: string[] = []): Promise<{ result: Awaited<ReturnType<typeof runLoadConfig>>['result']; records: RequestRecord[] }> {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(
      loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, {
        checkIn,
        durationS: null,
        requests: 20,
        stream: false,
        slos: parseSlos(slo),
        sloExprs: slo,
        workload: spec(batch, encodingFormat),
        ...(fault === null ? {} : { extraHeaders: (seq: number) => (seq % 2 === 0 ? { 'x-iari-fault': fault } : {}) }),
        onRecord: (r) => records.push(r),
      }),
    );
    return { result, records };
  }

  it('EMB-002: sends batch inputs per request and counts the inputs and prompt tokens the mock answered, with no TTFT or ITL', async () => {
    const { result, records } = await run(5, null, undefined, 'in-process', ['embeddings.inputs_per_s>=1', 'embeddings.inputs_per_s>=1000000', 'embeddings.prompt_tokens_per_s>0']);
    const measured = records.filter((r) => r.phase === 'measure');
    expect(result.counts.failed).toBe(0);
    expect(measured.length).toBe(20);
    expect(measured.every((r) => r.inputs === 5 && r.ttftUs === null)).toBe(true);
    const e = result.embeddings as EmbeddingsReport;
    expect(e).toMatchObject({ batch: 5, requests: 20, inputs: 100, requestsWithoutUsage: 0, inputsPerRequest: { min: 5, max: 5 }, dimensions: [64] });
    // 24 synthetic o200k tokens per input; the mock counts with the same tokenizer.
    expect(e.promptTokens).toBe(measured.reduce((s, r) => s + (r.promptTokens ?? 0), 0));
    expect(e.promptTokens).toBe(100 * 24);
    expect(e.inputsPerS).toBeCloseTo(100 / result.throughput.windowS, 0);
    expect(result.metrics.ttft).toBeUndefined();
    expect(result.metrics.itl).toBeUndefined();
    expect(result.metrics.e2e?.count).toBe(20);
    expect(result.meta.config.workload?.embeddings).toEqual({ batch: 5 });
    // The embeddings SLOs read the report: the same inputs/s, met and breached by their thresholds.
    expect(result.slos.map((s) => [s.expr, s.observed, s.passed])).toEqual([
      ['embeddings.inputs_per_s>=1', e.inputsPerS, true],
      ['embeddings.inputs_per_s>=1000000', e.inputsPerS, false],
      ['embeddings.prompt_tokens_per_s>0', e.promptTokensPerS, true],
      // No errors SLO was given: iari's default gate is listed last (issue 43).
      ['errors.rate<=5%', 0, true],
    ]);
  }, 60_000);

  it('EMB-005: base64 answers are decoded and checked, on the check worker too', async () => {
    const { result } = await run(3, null, 'base64', 'worker');
    expect(result.counts.failed).toBe(0);
    expect(result.embeddings).toMatchObject({ inputs: 60, dimensions: [64] });
  }, 60_000);

  it.each([
    ['embeddings-missing-last', 'EMB-002', undefined],
    ['embeddings-reversed', 'EMB-003', undefined],
    ['embeddings-not-numbers', 'EMB-001', undefined],
    ['embeddings-base64-ignored', 'EMB-005', 'base64'],
  ] as const)('%s fails exactly the faulted requests as body_invalid naming %s', async (fault, id, format) => {
    const { result, records } = await run(4, fault, format);
    const failed = records.filter((r) => r.phase === 'measure' && r.error !== null);
    expect(failed.length).toBe(10);
    expect(failed.every((r) => r.seq % 2 === 0 && r.error?.class === 'body_invalid' && r.error.detail.startsWith(`${id} `))).toBe(true);
    expect(result.errors.byClass.body_invalid).toBe(10);
    expect((result.embeddings as EmbeddingsReport | undefined)?.requests).toBe(10);
  }, 60_000);

  it('every body the workload sends is a valid embeddings request of the batch asked', async () => {
    const { embeddingsWorkload } = await import('../../src/load/workloads/embeddings.ts');
    const w = embeddingsWorkload({ ...spec(7, 'base64'), embeddings: { batch: 7, encodingFormat: 'base64' } }, { model: 'm', seed: 3, prompts: [] });
    for (let seq = 0; seq < 5; seq++) {
      const v = validateEmbeddingsRequest(JSON.parse(bodies(w, 'embeddings')(seq)));
      expect(v.ok).toBe(true);
      if (v.ok) expect(v.request).toMatchObject({ model: 'm', encoding_format: 'base64' });
      if (v.ok) expect((v.request.input as string[]).length).toBe(7);
      expect(w.requested(seq)).toEqual({ prompt: 7 * 24, output: null });
    }
    expect(bodies(w, 'embeddings')(2)).toBe(bodies(w, 'embeddings')(2));
    expect(bodies(w, 'embeddings')(2)).not.toBe(bodies(w, 'embeddings')(3));
  });
});
