import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockServer, MockServerOptions } from '../../mock-server/index.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { mergeResults } from '../../src/load/results/merge.ts';
import type { ReconcileId } from '../../src/server-metrics/reconcile.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

// Ground truth: the mock counts exactly what it served (mock-server/core/metrics-route.ts), under
// vLLM's names. A run with no other traffic must find every counter grown by exactly what the
// answers' usage says; each metrics fault of the mock must be caught by the finding it breaks.

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const PREFIX = { blockTokens: 16, capacityBlocks: 4096, prefillMsPerToken: 0.01 };

async function run(options: MockServerOptions, slos: string[] = []) {
  mock = await startLoadMock({ ttftMs: 5, itlMs: 1, completionTokens: [4, 12], prefixCache: PREFIX, ...options });
  const records: RequestRecord[] = [];
  const { result } = await runLoadConfig(
    loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'undici' }, {
      durationS: 1.2,
      // The pre-window budget of a 1.2 s run is 1.2 s (worker start, priming): on a loaded machine the
      // priming could be cut and finish on the server inside the window. Ten seconds keep it outside.
      preWindowMs: 10_000,
      // A shared prefix, so the prefix cache hits and cached_tokens are counted on both sides.
      workload: { input: { kind: 'synthetic', length: { mean: 40, stdev: 0 } }, output: null, maxTokensField: 'max_tokens', extraBody: null, prefix: { tokens: 200, groups: 2 } },
      serverMetrics: { url: null, headers: [], intervalMs: 100 },
      slos: parseSlos(slos),
      sloExprs: slos,
      onRecord: (r) => records.push(r),
    }),
  );
  const finding = (id: ReconcileId) => result.server?.reconciliation.find((f) => f.id === id);
  return { result, records, finding };
}

describe('iari load --server-metrics against the mock', () => {
  it('every reconciliation holds exactly: generated, prompt and cached tokens, requests finished, TTFT, no counter down', async () => {
    const { result, records, finding } = await run({}, ['server.reconcile', 'server.waiting.max<8', 'server.preemptions==0']);
    const server = result.server!;
    expect(server.status).toBe('ok');
    expect(server.engine).toBe('vllm');
    expect(records.every((r) => r.error === null)).toBe(true);
    const usage = records.reduce((a, r) => a + r.outputTokens, 0);
    expect(usage).toBeGreaterThan(0);
    expect(finding('generated_tokens')).toMatchObject({ verdict: 'agree', server: usage, client: usage, tolerance: { below: 0, above: 0 } });
    const prompt = records.reduce((a, r) => a + (r.promptTokens ?? 0), 0);
    expect(finding('prompt_tokens')).toMatchObject({ verdict: 'agree', server: prompt, client: prompt });
    const cached = records.reduce((a, r) => a + (r.cachedTokens ?? 0), 0);
    expect(cached).toBeGreaterThan(0);
    expect(finding('cached_tokens')).toMatchObject({ verdict: 'agree', server: cached, client: cached });
    expect(finding('requests_finished')).toMatchObject({ verdict: 'agree', server: records.length, client: records.length });
    expect(finding('ttft')?.verdict).toBe('agree');
    expect(finding('ttft')!.server!).toBeLessThanOrEqual(finding('ttft')!.client! + 1000);
    expect(finding('counters_monotonic')).toMatchObject({ verdict: 'agree', server: 0 });
    expect(result.slos.map((s) => [s.expr, s.passed])).toEqual([['server.reconcile', true], ['server.waiting.max<8', true], ['server.preemptions==0', true], ['errors.rate<=5%', true]]);
    expect(result.slosPassed).toBe(true);
  });

  it('joins the reads to the client seconds: per-second rows are keyed by the timeslices\' epoch seconds and tS, and show the running requests', async () => {
    const { result } = await run({});
    const server = result.server!;
    const sliceSeconds = new Set(result.timeslices.map((t) => t.epochS));
    const measured = server.perSecond.filter((s) => sliceSeconds.has(s.epochS));
    expect(measured.length).toBeGreaterThan(0);
    for (const s of server.perSecond) expect(s.tS).toBe(s.epochS - Math.floor(result.meta.measureStartEpochMs / 1000));
    expect(server.perSecond.some((s) => (s.running ?? 0) > 0)).toBe(true);
    const growth = server.counters.generatedTokens!.delta;
    expect(growth).toBeGreaterThan(0);
    expect(server.scrapes.ok).toBeGreaterThanOrEqual(5);
    expect(server.scrapes.failed).toBe(0);
  });

  it('fault undercount-generated: the generated-token finding disagrees by one token per request and server.reconcile fails the run', async () => {
    const { result, records, finding } = await run({ metricsFaults: ['undercount-generated'] }, ['server.reconcile']);
    const f = finding('generated_tokens')!;
    expect(f.verdict).toBe('disagree');
    expect(f.client! - f.server!).toBe(records.filter((r) => r.outputTokens > 0).length);
    expect(result.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: false, observed: 0 });
    expect(result.slosPassed).toBe(false);
  });

  it('fault overcount-generated: the generated-token finding disagrees by one token per answer (the server above the usage) and server.reconcile fails the run', async () => {
    const { result, records, finding } = await run({ metricsFaults: ['overcount-generated'] }, ['server.reconcile']);
    const f = finding('generated_tokens')!;
    expect(f.verdict).toBe('disagree');
    expect(f.server! - f.client!).toBe(records.filter((r) => r.error === null).length);
    expect(result.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: false, observed: 0 });
  });

  it('fault counter-decreases: a counter that goes down is a finding with both values, and server.reconcile fails', async () => {
    const { result, finding } = await run({ metricsFaults: ['counter-decreases'] }, ['server.reconcile']);
    const f = finding('counters_monotonic')!;
    expect(f.verdict).toBe('disagree');
    expect(result.server!.decreases[0]?.series).toMatch(/^vllm:generation_tokens_total\{/);
    expect(result.server!.decreases[0]!.to).toBeLessThan(result.server!.decreases[0]!.from);
    expect(result.slosPassed).toBe(false);
  });
});

describe('--shard and iari report merge', () => {
  const slos = ['server.reconcile'];
  async function shards(options: MockServerOptions) {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 1, completionTokens: [4, 12], ...options });
    const shard = (index: number) => runLoadConfig(loadConfig(mock!, { kind: 'closed', concurrency: 4, engine: 'undici' }, { runId: `s${index}`, durationS: 1, preWindowMs: 10_000, shard: { index, count: 2 }, serverMetrics: { url: null, headers: [], intervalMs: 100 }, slos: parseSlos(slos), sloExprs: slos }));
    // Started together: each shard's priming request can fall inside the other's window.
    const [a, b] = await Promise.all([shard(0), shard(1)]);
    return { a, b, usage: [...a.records, ...b.records].reduce((x, r) => x + r.outputTokens, 0) };
  }
  const generated = (r: LoadResult) => r.server!.reconciliation.find((f) => f.id === 'generated_tokens')!;

  it('shards started together: each holds only a lower bound; each records its read before priming and its priming usage, and the merged findings are exact both ways (the primings counted on the client side), server.reconcile met', async () => {
    const { a, b, usage } = await shards({});
    for (const r of [a.result, b.result]) {
      expect(generated(r)).toMatchObject({ verdict: 'agree', tolerance: { below: 0, above: null } });
      expect(generated(r).server!).toBeGreaterThanOrEqual(generated(r).client!);
      expect(r.server!.beforePriming?.epochMs).toBeLessThanOrEqual(r.server!.priming!.sentEpochMs);
      expect(r.server!.priming!.sentEpochMs).toBeLessThanOrEqual(r.server!.firstReadEpochMs!);
      expect(r.server!.priming!.client, JSON.stringify(r.server!.priming)).toMatchObject({ requests: 1, ok: 1, usageReported: 1 });
    }
    const primings = a.result.server!.priming!.client.completionTokens + b.result.server!.priming!.client.completionTokens;
    expect(primings).toBeGreaterThan(0);
    const merged = mergeResults([a.result, b.result], 'merged');
    expect(merged.server!.beforePriming).toBeUndefined();
    const g = generated(merged);
    expect(g).toMatchObject({ verdict: 'agree', server: usage + primings, client: usage + primings, tolerance: { below: 0, above: 0 } });
    const fin = merged.server!.reconciliation.find((f) => f.id === 'requests_finished')!;
    expect(fin).toMatchObject({ verdict: 'agree', client: a.records.length + b.records.length + 2, tolerance: { below: 0, above: 0 } });
    // This mock has no prefix cache here: cached tokens have no data; every other finding agrees.
    expect(merged.server!.reconciliation.map((f) => [f.id, f.verdict])).toEqual([['generated_tokens', 'agree'], ['prompt_tokens', 'agree'], ['cached_tokens', 'no_data'], ['requests_finished', 'agree'], ['ttft', 'agree'], ['counters_monotonic', 'agree']]);
    expect(merged.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: true });
  });

  it('fault overcount-generated (one token more per request): each shard alone cannot see it (a lower bound), the merged run catches it, exactly one token per request and priming, and server.reconcile fails', async () => {
    const { a, b } = await shards({ metricsFaults: ['overcount-generated'] });
    for (const r of [a.result, b.result]) expect(generated(r).verdict).toBe('agree');
    const merged = mergeResults([a.result, b.result], 'merged');
    const g = generated(merged);
    expect(g.verdict).toBe('disagree');
    const answered = [...a.records, ...b.records].filter((r) => r.error === null).length + 2;
    expect(g.server! - g.client!).toBe(answered);
    expect(merged.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: false });
  });

  it('shards without a read before priming (a load.json from an older iari) are not joined exactly: the findings that hold the lower bound are no_data, never a pass, and server.reconcile fails closed', async () => {
    const { a, b } = await shards({});
    const { beforePriming: _dropped, ...older } = b.result.server!;
    const merged = mergeResults([a.result, { ...b.result, server: older }], 'merged');
    const g = generated(merged);
    expect(g).toMatchObject({ verdict: 'no_data', tolerance: { below: 0, above: null } });
    expect(g.tolerance.why).toMatch(/1 of the 2 shards .* recorded no read before their priming request/);
    expect(merged.server!.reconciliation.filter((f) => f.id !== 'counters_monotonic').map((f) => f.verdict)).not.toContain('agree');
    expect(merged.slos[0]).toMatchObject({ expr: 'server.reconcile', passed: false });
  });
});

describe('a server without /metrics', () => {
  let plain: Server | undefined;
  afterEach(() => new Promise<void>((r) => (plain === undefined ? r() : plain.close(() => r()))));

  it('works as before and says the scrape found nothing; an SLO on a server signal has no data and fails closed', async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 1, completionTokens: 4 });
    // A second origin that answers 404 everywhere stands for a server without /metrics.
    plain = createServer((_, res) => res.writeHead(404).end('not found'));
    await new Promise<void>((r) => plain!.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/metrics`;
    const slos = ['server.kv_cache_usage.max<0.9'];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, { durationS: 0.6, serverMetrics: { url, headers: [], intervalMs: 100 }, slos: parseSlos(slos), sloExprs: slos }));
    expect(result.counts.ok).toBeGreaterThan(0);
    expect(result.counts.failed).toBe(0);
    expect(result.server).toMatchObject({ status: 'nothing', reconciliation: [] });
    expect(result.server!.note).toMatch(/the scrape found nothing at .*: status 404/);
    expect(result.slos[0]).toMatchObject({ passed: false, observed: null });
    expect(result.slos[0]!.noData).toMatch(/found nothing/);
  });
});
