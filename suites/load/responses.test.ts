import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import type { RequestTiming } from '../../src/load/measure/request-timer.ts';
import { runLoad, type LoadConfig } from '../../src/load/run-load.ts';
import { run as loadCommand } from '../../src/cli/load-command.ts';
import { isHarnessError } from '../../src/errors.ts';
import { compareWithSendLog } from '../../test-support/load-fidelity.ts';
import { errorDistribution } from '../../test-support/load-stats.ts';
import { loadConfig, sendLogLookup, startLoadMock } from './load-fixtures.ts';

/**
 * `iari load --api responses` against the mock, whose POST /v1/responses streams paced
 * output_text deltas (1 and 2 tokens by turns, 10 ms apart) with usage counted by its tokenizer,
 * and records every event it writes (the send log). Ground truth: the requests, the output tokens
 * of every event and the write time of the first delta are the mock's; a fault on every other
 * request fails exactly those, naming the requirement the stream broke.
 */
describe('iari load --api responses against the mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock();
  });
  afterAll(() => mock.close());

  async function load(over: Partial<LoadConfig> & { fault?: string } = {}): Promise<{ result: LoadResult; records: RequestRecord[]; timings: RequestTiming[] }> {
    const records: RequestRecord[] = [];
    const timings: RequestTiming[] = [];
    const { fault, ...rest } = over;
    const { result } = await runLoad(
      loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'undici' }, {
        api: 'responses',
        durationS: null,
        requests: 16,
        onRecord: (r) => records.push(r),
        onTiming: (t) => timings.push(t),
        ...(fault === undefined ? {} : { extraHeaders: (seq: number) => (seq % 2 === 0 ? { 'x-iari-fault': fault } : {}) }),
        ...rest,
      }),
    );
    return { result, records: records.filter((r) => r.phase === 'measure'), timings };
  }

  it.each(['worker', 'in-process'] as const)('RESP-STREAM-008: every stream is checked (%s); requests, output tokens per delta and TTFT are the mock\'s own record', async (checkIn) => {
    const { result, records, timings } = await load({ checkIn });
    expect(result.meta.config.api).toBe('responses');
    expect(result.counts).toMatchObject({ finished: 16, ok: 16, failed: 0, tokenSource: 'usage' });
    // Each stream: response.created, in_progress, item and part added, 8 deltas, their done events, completed.
    expect(result.counts.events).toBeGreaterThan(16 * 8);
    const f = compareWithSendLog(timings, sendLogLookup(mock));
    expect(f).toMatchObject({ matched: 16, missing: 0, tokenMismatches: 0 });
    // Every output token the mock wrote is counted, and only those.
    const written = timings.reduce((a, t) => a + (mock.sendLog.get(t.requestId ?? '')?.events ?? []).reduce((s, e) => s + (e.content ? e.tokens : 0), 0), 0);
    expect(written).toBe(16 * 12);
    expect(result.counts.outputTokens).toBe(written);
    expect(records.reduce((a, r) => a + (r.outputTokens ?? 0), 0)).toBe(written);
    // A stamp never precedes the write it observes; the median is the event loop's, not a model's.
    const ttft = errorDistribution(f.ttftErrorsUs);
    expect(ttft.p1Us).toBeGreaterThanOrEqual(0);
    expect(ttft.p50AbsUs).toBeLessThan(5_000);
    expect(result.metrics.ttft?.count).toBe(16);
    // ITL: every token after the first event's, 12 per stream less the first delta's one.
    expect(result.metrics.itl?.count).toBe(16 * 11);
  }, 60_000);

  it.each([
    ['responses-stream-no-terminal', 'RESP-STREAM-009'],
    ['responses-stream-done-text-differs', 'RESP-STREAM-008'],
    ['responses-stream-item-not-done', 'RESP-STREAM-007'],
    ['responses-stream-completed-output-empty', 'RESP-STREAM-011'],
    ['responses-stream-output-index-shifted', 'RESP-STREAM-005'],
    ['responses-stream-vendor-event', 'RESP-STREAM-013'],
  ] as const)('%s fails exactly the faulted streams as stream_nonconforming naming %s (on the check worker)', async (fault, id) => {
    const { result, records } = await load({ fault, checkIn: 'worker' });
    const failed = records.filter((r) => r.error !== null);
    expect(failed.map((r) => r.seq).sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(failed.every((r) => r.error?.class === 'stream_nonconforming' && r.error.detail.startsWith(`${id} `))).toBe(true);
    expect(result.errors.byClass.stream_nonconforming).toBe(8);
    expect(result.counts.ok).toBe(8);
  }, 60_000);

  it.each(['responses-stream-sequence-repeats', 'responses-stream-done-sentinel', 'legal-responses-data-only'])('%s (a SHOULD, INFO or legal oddity) fails no request', async (fault) => {
    const { result } = await load({ fault });
    expect(result.counts).toMatchObject({ ok: 16, failed: 0 });
  }, 60_000);

  it('RESP-STREAM-012: streams whose terminal event carries no usage are counted by the client tokenizer, never failed', async () => {
    const { result, records } = await load({ fault: 'responses-stream-completed-no-usage' });
    expect(result.counts.failed).toBe(0);
    const faulted = records.filter((r) => r.seq % 2 === 0);
    expect(faulted.every((r) => r.tokenSource === 'tokenizer' && (r.outputTokens ?? 0) > 0)).toBe(true);
    expect(records.filter((r) => r.seq % 2 === 1).every((r) => r.tokenSource === 'usage' && r.outputTokens === 12)).toBe(true);
  }, 60_000);

  it('RESP-001: whole (non-streamed) Responses are checked; a body without output fails exactly those requests as body_invalid', async () => {
    const clean = await load({ stream: false });
    expect(clean.result.counts).toMatchObject({ ok: 16, failed: 0, outputTokens: 16 * 12 });
    const { records } = await load({ stream: false, fault: 'responses-output-missing' });
    const failed = records.filter((r) => r.error !== null);
    expect(failed.map((r) => r.seq).sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(failed.every((r) => r.error?.class === 'body_invalid' && r.error.detail.startsWith('RESP-001 '))).toBe(true);
  }, 60_000);
});

describe('iari load --api', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'iari-load-api-'));
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterAll(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });
  const exitOf = async (argv: string[]): Promise<number> => {
    try {
      return await loadCommand(argv);
    } catch (error) {
      if (isHarnessError(error)) return error.exitCode;
      throw error;
    }
  };

  it('--api responses loads POST /v1/responses of the bundled mock and records the API in load.json (and its scenario)', async () => {
    const report = join(dir, 'responses');
    expect(await exitOf(['--api', 'responses', '--concurrency', '2', '--requests', '6', '--report', report, '--quiet'])).toBe(0);
    const result = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult & { scenario: { request?: { api?: string } } };
    expect(result.meta.config.api).toBe('responses');
    expect(result.scenario.request?.api).toBe('responses');
    expect(result.counts).toMatchObject({ ok: 6, failed: 0 });
    expect(result.counts.events).toBeGreaterThan(6 * 4);
  }, 60_000);

  it('an unknown API, --api responses with --embeddings-batch, or an output bound under 16 with --api responses exits 2 before any traffic', async () => {
    expect(await exitOf(['--api', 'completions', '--requests', '2', '--report', join(dir, 'x'), '--quiet'])).toBe(2);
    expect(await exitOf(['--api', 'responses', '--embeddings-batch', '2', '--requests', '2', '--report', join(dir, 'y'), '--quiet'])).toBe(2);
    // Compat, max_output_tokens: OpenAI (and the mock) refuse values under 16: every request would be a 400.
    expect(await exitOf(['--api', 'responses', '--max-tokens', '8', '--requests', '2', '--report', join(dir, 'z'), '--quiet'])).toBe(2);
    expect(await exitOf(['--api', 'responses', '--output-tokens', '12', '--requests', '2', '--report', join(dir, 'w'), '--quiet'])).toBe(2);
    expect(await exitOf(['--max-tokens', '8', '--requests', '2', '--report', join(dir, 'v'), '--quiet'])).toBe(0);
  });
});
