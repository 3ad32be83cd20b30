import { describe, expect, it } from 'vitest';
import { startMockServer } from '../../mock-server/index.ts';
import { isHarnessError } from '../errors.ts';
import { runConformance } from './conformance.ts';
import { runLoad } from './load.ts';

describe('library entry points', () => {
  it('runConformance judges the bundled mock and passes the selected requirements', async () => {
    const { passed, report, errors } = await runConformance({ only: ['MODELS-001', 'ME-001'] });
    expect(errors).toEqual([]);
    expect(passed).toBe(true);
    const judged = report.results.filter((r) => r.verdict !== 'skipped').map((r) => [r.id, r.verdict]);
    expect(judged).toEqual([['ME-001', 'pass'], ['MODELS-001', 'pass']]);
    expect(report.run.target).toBe('bundled-mock');
  }, 120_000);

  it('runConformance judges a server that breaks a selected requirement, and keeps the token out of the report', async () => {
    const mock = await startMockServer({ faults: ['me-wrong-types'], receipts: false });
    try {
      const { passed, report } = await runConformance({ baseUrl: mock.url, token: mock.tokens.default, only: ['ME-011'] });
      const verdict = report.results.find((r) => r.id === 'ME-011')?.verdict;
      expect(['fail', 'non-strict']).toContain(verdict);
      // passed is what `iari test` would exit 0 on: no requirement failed.
      expect(passed).toBe(verdict !== 'fail');
      expect(report.run.target).toBe('external');
      expect(JSON.stringify(report)).not.toContain(mock.tokens.default);
    } finally {
      await mock.close();
    }
  }, 120_000);

  it('runConformance rejects an unknown requirement ID before running anything', async () => {
    const error = await runConformance({ only: ['NOPE-001'] }).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.code).toBe('IARI_UNKNOWN_REQUIREMENT');
  });

  it('runLoad sends exactly the requested count to the bundled mock and reports SLO verdicts', async () => {
    const { result, records } = await runLoad({ requests: 6, concurrency: 2, slo: ['errors.rate<0.01'] });
    expect(records.length).toBe(6);
    expect(result.counts.finished).toBe(6);
    expect(result.slosPassed).toBe(true);
  }, 60_000);

  it('runLoad loads a server given by baseUrl with the token given, and asks for a token when none is', async () => {
    const mock = await startMockServer({ receipts: false });
    try {
      const { result } = await runLoad({ baseUrl: mock.url, token: mock.tokens.default, requests: 3, concurrency: 1 });
      expect(result.counts.finished).toBe(3);
      expect(result.errors.total).toBe(0);
      expect(mock.sendLog.size).toBeGreaterThanOrEqual(3);
      expect(Object.keys(process.env).filter((k) => k.startsWith('IARI_LIBRARY_TOKEN'))).toEqual([]);
      const error = await runLoad({ baseUrl: mock.url, requests: 1 }).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.code).toBe('IARI_TOKEN_MISSING');
    } finally {
      await mock.close();
    }
  }, 60_000);

  it('runLoad rejects a malformed SLO before any traffic', async () => {
    const error = await runLoad({ slo: ['ttft.p95<<1'] }).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.code).toBe('IARI_THRESHOLD_INVALID');
  });
});
