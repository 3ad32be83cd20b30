import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';

// POST /v1/embeddings against llama.cpp's own llama-server (v0.4.0, commit 80fb11ac73e6) serving
// the tiny qwen2 model: `iari test`'s embeddings row and a short `iari load` embeddings run.
//
// Reviewed verdicts (docs/engines.md, "Embeddings"):
// - `--embeddings --pooling mean`: EMB-001..005 and EMB-007 pass; EMB-006 is skipped, the server's
//   choice: it ignores `dimensions` (asked 32, answered 64 values), which the requirement allows
//   ("where honoured"). Chat completions are served by the same process.
// - `--embeddings` alone: the model's pooling type is `none` (a causal LM), and the server answers
//   every POST /v1/embeddings 400 {"error":{"code":400,"message":"Pooling type 'none' is not OAI
//   compatible. Please use a different pooling type","type":"invalid_request_error"}}: the
//   capability row says `refused` with that message and EMB-001..007 are skipped (the server's
//   configuration, not a failure: no --expect embeddings).

const KEY = 'iari-engine-key-0123456789abcdef';
const EMB = ['EMB-001', 'EMB-002', 'EMB-003', 'EMB-004', 'EMB-005', 'EMB-006', 'EMB-007'];
const DEADLINES = ['--request-timeout', '2m', '--check-timeout', '5m', '--run-timeout', '10m'];

interface Result {
  id: string;
  verdict: string;
  reason?: string;
}
interface Capability {
  name: string;
  status: string;
  detail?: string;
}

let engine: Engine;
beforeAll(async () => {
  engine = await engineBuild();
}, BUILD_TIMEOUT_MS);

function iari(args: string[]): Promise<CliRun> {
  return runCli(args, { IARI_TOKEN: KEY, GITHUB_STEP_SUMMARY: '' });
}

async function embeddingsRow(server: RunningEngine, reportDir: string): Promise<{ run: CliRun; verdicts: Map<string, Result>; row: Capability | undefined }> {
  const run = await iari(['test', '--base-url', server.server.url, '--only', EMB.join(','), ...DEADLINES, '--json', '--report', join(reportDir, 'test')]);
  expect(run.stdout + run.stderr).not.toContain(KEY);
  const report = JSON.parse(run.stdout) as { results: Result[]; capabilities: Capability[] };
  return { run, verdicts: new Map(report.results.map((r) => [r.id, r])), row: report.capabilities.find((c) => c.name === 'embeddings') };
}

describe('llama-server --embeddings --pooling mean: chat and embeddings from one process', () => {
  let running: RunningEngine | undefined;
  let reportDir: string;
  beforeAll(async () => {
    reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-emb-'));
    if (engine.build !== undefined) running = await startEngine(engine.build, 'designed', KEY, { embeddings: true, extraArgs: ['--pooling', 'mean'] });
  }, 180_000);
  afterAll(async () => {
    await running?.close();
    if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
  });

  it('EMB-001: iari test judges the embeddings row honoured: EMB-001..005 and EMB-007 pass, EMB-006 is skipped since the server ignores dimensions', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const { run, verdicts, row } = await embeddingsRow(running!, reportDir);
    const summary = [...verdicts.values()].filter((r) => r.id.startsWith('EMB')).map((r) => `${r.id} ${r.verdict} ${r.reason ?? ''}`).join('\n');
    expect(row?.status, summary).toBe('honoured');
    expect(EMB.filter((id) => verdicts.get(id)?.verdict === 'pass'), summary).toEqual(EMB.filter((id) => id !== 'EMB-006'));
    expect(verdicts.get('EMB-006')?.verdict, summary).toBe('skipped');
    expect(verdicts.get('EMB-006')?.reason, summary).toMatch(/ignores dimensions/);
    expect(run.code, run.stderr).toBe(0);
  }, 12 * 60_000);

  it('the same process answers a chat completion beside its embeddings', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const res = await fetch(`${running!.server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = (await res.json()) as { object?: string; choices?: unknown[] };
    expect(res.status).toBe(200);
    expect(body.object).toBe('chat.completion');
    expect(body.choices?.length).toBe(1);
  }, 150_000);

  it('iari load --embeddings-batch 4 --requests 24 has no failed request, counts inputs and usage prompt tokens, and reports no TTFT', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const out = join(reportDir, 'load');
    const run = await iari(['load', '--base-url', running!.server.url, '--embeddings-batch', '4', '--input-tokens', '32,8', '--concurrency', '2', '--requests', '24', '--report', out]);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const load = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as {
      counts: { finished: number; ok: number; failed: number; promptTokens: number };
      metrics: Record<string, unknown>;
      errors: { examples: { class: string; detail: string }[] };
      embeddings?: { requests: number; inputs: number; inputsPerS: number; promptTokens: number; promptTokensPerS: number; requestsWithoutUsage: number; dimensions: number[] };
    };
    const summary = JSON.stringify({ counts: load.counts, embeddings: load.embeddings, examples: load.errors.examples.slice(0, 3) });
    expect(run.code, `${run.stderr}\n${summary}`).toBe(0);
    expect(load.counts.failed, summary).toBe(0);
    expect(load.counts.ok, summary).toBe(24);
    expect(load.embeddings, summary).toMatchObject({ requests: 24, inputs: 96, requestsWithoutUsage: 0, dimensions: [64] });
    expect(load.embeddings?.promptTokens, summary).toBeGreaterThan(0);
    expect(load.metrics['ttft'], summary).toBeUndefined();
    expect(run.stdout, summary).toMatch(/ttft, itl, tpot, output_tps not applicable/);
    process.stderr.write(`engines: iari load embeddings against llama-server: ${summary}\n`);
  }, 300_000);
});

describe('llama-server --embeddings without --pooling: the qwen2 model pools as none', () => {
  let running: RunningEngine | undefined;
  let reportDir: string;
  beforeAll(async () => {
    reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-emb-'));
    if (engine.build !== undefined) running = await startEngine(engine.build, 'designed', KEY, { embeddings: true });
  }, 180_000);
  afterAll(async () => {
    await running?.close();
    if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
  });

  it("the embeddings row is refused with the server's 400 and EMB-001..007 are skipped, never failed, without --expect embeddings", async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const { run, verdicts, row } = await embeddingsRow(running!, reportDir);
    expect(row?.status).toBe('refused');
    expect(row?.detail).toMatch(/400: Pooling type 'none' is not OAI compatible/);
    expect(EMB.map((id) => verdicts.get(id)?.verdict)).toEqual(EMB.map(() => 'skipped'));
    expect(run.code, run.stderr).toBe(0);
  }, 12 * 60_000);
});
