import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndlessServer, type EndlessServer } from '../../test-support/endless-server-fixtures.ts';
import { runLoadConfig, type LoadConfig } from '../../src/load/run-load.ts';
import { END_GRACE_MS } from '../../src/load/executors/engine.ts';
import { serverLoadConfig } from './load-fixtures.ts';
import { parseSlo } from '../../src/load/results/slo.ts';
import { runFailure } from '../../src/load/results/run-verdict.ts';
import { summaryTable } from '../../src/load/results/summary.ts';

// An endless stream: a content chunk every 20 ms, never [DONE]. The idle timeout (reset on every
// byte) never fires on it; the request deadline and the run's end do.
let server: EndlessServer;
let url: string;

beforeAll(async () => {
  server = await startEndlessServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`;
    const t = setInterval(() => res.write(chunk), 20);
    res.once('close', () => clearInterval(t));
  });
  url = `${server.root}/v1`;
});

afterAll(() => server.close());

// The grace after the stop is shortened to GRACE_MS where a test does not measure the default
// (the open-loop test below waits the default, END_GRACE_MS).
const GRACE_MS = 1_000;

function config(over: Partial<LoadConfig>): LoadConfig {
  const server = { baseUrl: url, token: 'sk-test-token-123456', model: 'm', target: 'external' } as const;
  return serverLoadConfig(server, { kind: 'closed', concurrency: 2, engine: 'undici' }, { runId: 'deadlines', maxTokens: 16, prime: false, checkIn: 'in-process', endGraceMs: GRACE_MS, ...over });
}

describe('load deadlines', () => {
  for (const engine of ['autocannon', 'undici'] as const) {
    it(`${engine}: an endless stream fails each request as a timeout at its total deadline, though bytes keep arriving`, async () => {
      const t0 = performance.now();
      const { result, records } = await runLoadConfig(config({ mode: { kind: 'closed', concurrency: 2, engine }, durationS: 1, requestTimeoutMs: 300 }));
      expect(performance.now() - t0).toBeLessThan(1_000 + GRACE_MS + 3_000);
      expect(result.counts.ok).toBe(0);
      expect(result.errors.byClass.timeout).toBeGreaterThanOrEqual(4);
      expect(records.find((r) => r.error !== null)?.error?.detail).toMatch(/request deadline of 0\.3 s \(--request-timeout\)/);
    });
  }

  it('open loop: requests still in flight when the run ends get the fixed grace, then, in flight for longer than the whole window, count as timeout errors', async () => {
    const t0 = performance.now();
    const cfg = config({ mode: { kind: 'open', rate: 4, arrival: 'constant' }, durationS: 0.5, requestTimeoutMs: 60_000, slos: [parseSlo('errors.rate<0.01')], sloExprs: ['errors.rate<0.01'] });
    // The product's default grace, END_GRACE_MS.
    delete cfg.endGraceMs;
    const { result } = await runLoadConfig(cfg);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(500 + END_GRACE_MS - 100);
    expect(took).toBeLessThan(500 + END_GRACE_MS + 3_000);
    expect(result.counts.abortedAtEnd).toBe(0);
    expect(result.counts.started).toBeGreaterThan(0);
    expect(result.errors.byClass.timeout).toBe(result.counts.started);
    expect(result.errors.rate).toBe(1);
    expect(result.slosPassed).toBe(false);
    expect(runFailure(result)).toMatch(/no request succeeded/);
  });

  for (const engine of ['autocannon', 'undici'] as const) {
    it(`${engine}: with the default request deadline, streams that never end fail the run: each request in flight for the whole window is a timeout, errors.rate<0.01 is breached`, async () => {
      const slos = [parseSlo('errors.rate<0.01')];
      const { result, records } = await runLoadConfig(config({ mode: { kind: 'closed', concurrency: 2, engine }, durationS: 1, slos, sloExprs: ['errors.rate<0.01'] }));
      expect(result.counts.ok).toBe(0);
      expect(result.counts.abortedAtEnd).toBe(0);
      expect(result.errors.byClass.timeout).toBe(2);
      expect(result.slos[0]).toMatchObject({ passed: false, observed: 1 });
      expect(records.filter((r) => r.error?.class === 'timeout').map((r) => r.error?.detail)).toEqual([expect.stringMatching(/whole measured window/), expect.stringMatching(/whole measured window/)]);
      expect(summaryTable(result).split('\n')[0]).toMatch(/^iari load: FAILED: no request succeeded/);
    });
  }

  it('the priming request has its own deadline, at most the run length: a stream still arriving then is reported, and the run starts without waiting for it', async () => {
    const t0 = performance.now();
    const { result } = await runLoadConfig(config({ durationS: 1, requestTimeoutMs: 60_000, prime: true }));
    // pre-window min(10 s, 60 s, 1 s) + 1 s + the grace
    expect(performance.now() - t0).toBeLessThan(1_000 + 1_000 + GRACE_MS + 2_000);
    expect(result.priming).toMatchObject({ outcome: 'incomplete', deadlineMs: 1_000 });
    expect(result.priming?.detail).toMatch(/still arriving when the pre-window deadline \(1\.0 s\) passed: a stream that outlived it/);
    expect(summaryTable(result)).toMatch(/^priming: /m);
  });

  it('the prime request is bounded by the same deadline as the run', async () => {
    const t0 = performance.now();
    await runLoadConfig(config({ durationS: 0.2, requestTimeoutMs: 300, prime: true }));
    expect(performance.now() - t0).toBeLessThan(300 + 200 + GRACE_MS + 3_000);
  });
});
