import { describe, expect, it } from 'vitest';
import { buildEmbeddingsReport, EmbeddingsAcc, embeddingsLines, mergeEmbeddingsReports } from './embeddings-section.ts';

const acc = (answers: [number, number | null, number | null][]): EmbeddingsAcc => {
  const a = new EmbeddingsAcc();
  for (const [inputs, promptTokens, dimensions] of answers) a.add({ inputs, promptTokens, dimensions });
  return a;
};

describe('embeddings report', () => {
  it('counts inputs and usage prompt tokens over the window, the batch as answered and every vector length', () => {
    const r = buildEmbeddingsReport(acc([[4, 40, 64], [4, null, 64], [3, 30, 32]]), 2, 4);
    expect(r).toEqual({
      batch: 4,
      requests: 3,
      inputs: 11,
      inputsPerS: 5.5,
      promptTokens: 70,
      promptTokensPerS: 35,
      requestsWithoutUsage: 1,
      inputsPerRequest: { mean: 3.667, min: 3, max: 4 },
      dimensions: [32, 64],
      notApplicable: ['ttft', 'itl', 'tpot', 'output_tps'],
    });
  });

  it('merges shards by adding their counts over the merged window', () => {
    const a = buildEmbeddingsReport(acc([[8, 80, 64], [8, 80, 64]]), 1, 8);
    const b = buildEmbeddingsReport(acc([[8, 96, 64]]), 1, 8);
    expect(mergeEmbeddingsReports([a, undefined, b], 3)).toMatchObject({ requests: 3, inputs: 24, inputsPerS: 8, promptTokens: 256, inputsPerRequest: { min: 8, max: 8 }, dimensions: [64] });
    expect(mergeEmbeddingsReports([undefined, undefined], 3)).toBeUndefined();
  });

  it('says TTFT, ITL, TPOT and output tokens/s are not applicable, and none answered rather than a 0..0 batch', () => {
    const lines = embeddingsLines(buildEmbeddingsReport(new EmbeddingsAcc(), 1, 2));
    expect(lines[0]).toContain('none answered');
    expect(lines[1]).toBe('embeddings: ttft, itl, tpot, output_tps not applicable (an embeddings answer arrives whole and generates no tokens)');
    expect(embeddingsLines(undefined)).toEqual([]);
  });
});
