import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { REASONING_CHUNKS, REASONING_MODEL } from '../../mock-server/core/reasoning.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

const ITL_MS = 12;

/**
 * The mock's reasoning model thinks in REASONING_CHUNKS chunks, one inter-token gap apart, before
 * it answers (mock-server/core/reasoning.ts); its send log holds the true write time and token count
 * of every event. TTFO − TTFT that iari reports is the reasoning phase the mock wrote, request by request.
 * Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
 * check the same events, token counts and stamps).
 */
describe('reasoning-aware metrics against the mock reasoner', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: ITL_MS, completionTokens: 6, tokensPerChunk: 1 });
  });
  afterAll(() => mock.close());

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`LOAD-REASONING: TTFT is the first reasoning token, TTFO the first answer token, and TTFO − TTFT equals the mock's reasoning phase (delta.${field})`, async () => {
      const records: RequestRecord[] = [];
      const { result } = await runLoadConfig(
        loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, {
          checkIn: 'in-process',
          model: REASONING_MODEL,
          durationS: 1.5,
          // Past the cold start (first compilation on both sides), when the mock writes its first events late and together.
          warmupS: 0.3,
          ...(field === 'reasoning' ? { extraHeaders: () => ({ 'x-iari-fault': 'legal-reasoning-field' }) } : {}),
          onRecord: (r) => records.push(r),
        }),
      );
      const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
      expect(ok.length).toBeGreaterThan(4);
      const errs: number[] = [];
      const phases: number[] = [];
      const answerGaps: number[] = [];
      for (const r of ok) {
        const log = mock.sendLog.get(r.requestId ?? '')!;
        const bearing = log.events.filter((e) => e.tokens > 0);
        // The mock's schedule puts the answer REASONING_CHUNKS inter-token gaps after the first thought;
        // the truth compared with is when it actually wrote them (a late mock writes due events together).
        expect(bearing[REASONING_CHUNKS]!.intendedMs - bearing[0]!.intendedMs).toBe(REASONING_CHUNKS * ITL_MS);
        const phaseMs = Number(bearing[REASONING_CHUNKS]!.writtenNs - bearing[0]!.writtenNs) / 1e6;
        errs.push(((r.ttfoUs ?? NaN) - (r.ttftUs ?? NaN)) / 1000 - phaseMs);
        phases.push(phaseMs);
        const answer = bearing.slice(REASONING_CHUNKS);
        for (let i = 1; i < answer.length; i++) answerGaps.push(Number(answer[i]!.writtenNs - answer[i - 1]!.writtenNs) / 1e6 / answer[i]!.tokens);
        // Reasoning tokens: the mock's own count of its thinking chunks (what it reports as reasoning_tokens).
        expect(r.reasoningTokens).toBe(bearing.slice(0, REASONING_CHUNKS).reduce((a, e) => a + e.tokens, 0));
      }
      const abs = errs.map(Math.abs).sort((a, b) => a - b);
      if (result.validity.valid) {
        expect(abs[Math.floor(abs.length / 2)]).toBeLessThan(1);
        expect(abs.at(-1)).toBeLessThan(10);
      } else expect(result.validity.warnings.join(' ')).toMatch(/event-loop lag/);
      const rep = result.reasoning!;
      expect(rep.requests).toBe(ok.length);
      expect(rep.fromUsage).toBe(ok.length);
      expect(rep.ttfo?.count).toBe(ok.length);
      // The report's medians are the mock's written ones: the reasoning phase, and the answer-only ITL.
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
      if (result.validity.valid) {
        expect(Math.abs((rep.reasoningPhase?.percentiles.p50 ?? 0) / 1000 - median(phases))).toBeLessThan(2);
        expect(Math.abs((rep.itlAnswer?.percentiles.p50 ?? 0) / 1000 - median(answerGaps))).toBeLessThan(2);
      }
      expect(result.metrics.ttft?.percentiles.p50).toBeLessThan(rep.ttfo?.percentiles.p50 ?? 0);
    }, 60_000);
  }
});
