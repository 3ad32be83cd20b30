import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { mergeResults } from '../../src/load/results/merge.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { serverLoadConfig } from '../load/load-fixtures.ts';
import type { ReconcileFinding } from '../../src/server-metrics/reconcile.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';

// Issue 28, ground truth on a real engine: llama.cpp's server (started with --metrics, as the
// fixture always does) loaded by `iari load --server-metrics` with no other traffic. The product's
// own reconciliation must find the server's counters equal to the answers' usage, exactly: the
// run is bounded by a request count, so every request ends with its usage and none is cut.

const KEY = 'iari-engine-metrics-key-0123456789';

type Finding = ReconcileFinding;

interface LoadJson {
  counts: { finished: number; ok: number; failed: number; outputTokens: number; tokenSource: string };
  connectionReuse?: { races: number };
  errors: { byClass: Record<string, number>; examples: { class: string; detail: string }[] };
  server?: {
    status: string;
    engine: string | null;
    published: string[];
    counters: Record<string, { first: number; last: number; delta: number }>;
    client: { requests: number; usageReported: number; completionTokens: number; promptTokens: number; promptReported: number; cachedTokens: number; cachedReported: number };
    reconciliation: Finding[];
    scrapes: { ok: number; failed: number; sentToken: boolean };
  };
}

let engine: Engine;
let running: RunningEngine | undefined;
let reportDir: string;

beforeAll(async () => {
  engine = await engineBuild();
  reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-metrics-'));
  if (engine.build !== undefined) running = await startEngine(engine.build, 'designed', KEY);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await running?.close();
  if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
});

describe('llama-server --metrics, read by iari load --server-metrics (issue 28)', () => {
  it('a run with no other traffic: Δ llamacpp:tokens_predicted_total = Σ usage.completion_tokens, Δ prompt_tokens_total + Δ prompt_tokens_cached_total = Σ usage.prompt_tokens, Δ prompt_tokens_cached_total = Σ cached_tokens, all exact; server.reconcile holds', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const out = join(reportDir, 'load');
    // Two prompts sent over and over: the server's prompt cache hits on most of each, so the cached counter moves.
    const run = await runCli(
      ['load', '--base-url', running!.server.url, '--concurrency', '4', '--requests', '48', '--server-metrics', '--server-metrics-interval', '250ms', '--slo', 'server.reconcile', '--report', out],
      { IARI_TOKEN: KEY, GITHUB_STEP_SUMMARY: '' },
    );
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const load = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadJson;
    const server = load.server;
    const evidence = JSON.stringify({ code: run.code, counts: load.counts, reuse: load.connectionReuse, errors: { byClass: load.errors.byClass, examples: load.errors.examples.slice(0, 3) }, counters: server?.counters, client: server?.client, reconciliation: server?.reconciliation.map((f) => `${f.id} ${f.verdict}: ${f.message} (${f.tolerance.why})`) }, null, 1);
    process.stderr.write(`engines: llama-server metrics reconciliation: ${evidence}\n`);
    expect(run.code, `${run.stderr}\n${evidence}`).toBe(0);
    expect(load.counts.failed, evidence).toBe(0);
    expect(load.counts.ok, evidence).toBe(48);
    expect(load.counts.tokenSource, evidence).toBe('usage');
    expect(server?.status, evidence).toBe('ok');
    expect(server?.engine, evidence).toBe('llamacpp');
    // /metrics is behind --api-key: the run's token went to the target's own origin.
    expect(server?.scrapes.sentToken, evidence).toBe(true);
    const finding = (id: string): Finding => {
      const f = server?.reconciliation.find((x) => x.id === id);
      if (f === undefined) throw new Error(`no ${id} finding: ${evidence}`);
      return f;
    };
    // Exact: no slack either way, and the product judged them equal.
    for (const id of ['generated_tokens', 'prompt_tokens', 'cached_tokens']) {
      const f = finding(id);
      expect({ id, verdict: f.verdict, below: f.tolerance.below, above: f.tolerance.above }, evidence).toEqual({ id, verdict: 'agree', below: 0, above: 0 });
      expect(f.server, evidence).toBe(f.client);
    }
    // The findings compare the server's own counter names, read raw from its text, with the answers' usage.
    expect(finding('generated_tokens').server, evidence).toBe(server?.counters['generatedTokens']?.delta);
    expect(finding('generated_tokens').client, evidence).toBe(load.counts.outputTokens);
    expect(finding('cached_tokens').server, evidence).toBe(server?.counters['cachedTokens']?.delta);
    // A repeated prompt is served from the cache: the cached counter moved, so equality is not 0 = 0.
    expect(finding('cached_tokens').client, evidence).toBeGreaterThan(0);
    expect(finding('counters_monotonic').verdict, evidence).toBe('agree');
    // llama.cpp publishes no finished-request counter and no TTFT histogram: no data, never a pass.
    expect(finding('requests_finished').verdict, evidence).toBe('no_data');
    expect(finding('ttft').verdict, evidence).toBe('no_data');
    expect(run.stdout, evidence).toMatch(/server counted [\d,]+ generated tokens; the answers' usage says [\d,]+/);
  }, 600_000);

  it('two shards started together, merged (iari report merge): the joined window holds both primings, and generated, prompt and cached tokens agree with the usage exactly, tolerance 0 both ways', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const slos = ['server.reconcile'];
    const shard = (index: number) =>
      runLoadConfig(
        serverLoadConfig({ baseUrl: running!.server.url, token: KEY, model: 'tiny-qwen2-designed', target: 'external' }, { kind: 'closed', concurrency: 2, engine: 'undici' }, {
          runId: `llama-shard-${index}`,
          durationS: null,
          requests: 32,
          maxTokens: 96,
          preWindowMs: 60_000,
          requestTimeoutMs: 120_000,
          shard: { index, count: 2 },
          serverMetrics: { url: null, headers: [], intervalMs: 250 },
          slos: parseSlos(slos),
          sloExprs: slos,
        }),
      );
    const [a, b] = await Promise.all([shard(0), shard(1)]);
    const merged = mergeResults([a.result, b.result], 'merged');
    const findings = merged.server?.reconciliation ?? [];
    const evidence = JSON.stringify({ counts: [a.result.counts, b.result.counts], primings: [a.result.server?.priming, b.result.server?.priming], findings: findings.map((f) => `${f.id} ${f.verdict}: ${f.message} (${f.tolerance.why})`) }, null, 1);
    process.stderr.write(`engines: llama-server merged shards: ${evidence}\n`);
    expect(a.result.counts.failed + b.result.counts.failed, evidence).toBe(0);
    expect(a.result.counts.ok + b.result.counts.ok, evidence).toBe(32);
    for (const id of ['generated_tokens', 'prompt_tokens', 'cached_tokens']) {
      const f = findings.find((x) => x.id === id);
      expect({ id, verdict: f?.verdict, below: f?.tolerance.below, above: f?.tolerance.above }, evidence).toEqual({ id, verdict: 'agree', below: 0, above: 0 });
      expect(f?.server, evidence).toBe(f?.client);
    }
    // The primings are on the client's side: the usage of the 32 answers plus both primings.
    const usage = a.result.counts.outputTokens + b.result.counts.outputTokens;
    const primings = (a.result.server?.priming?.client.completionTokens ?? 0) + (b.result.server?.priming?.client.completionTokens ?? 0);
    expect(primings, evidence).toBeGreaterThan(0);
    expect(findings.find((x) => x.id === 'generated_tokens')?.client, evidence).toBe(usage + primings);
    expect(merged.slos[0], evidence).toMatchObject({ expr: 'server.reconcile', passed: true });
  }, 600_000);
});
