import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';
import { engineDeviations } from './llama-server-deviations.ts';

// `iari load --api responses` against llama.cpp's own llama-server (v0.4.0, commit 80fb11ac73e6)
// serving the tiny designed qwen2 model (answers of 17-32 tokens, greedy). Reviewed (docs/engines.md,
// "The Responses API under load"): every failed request is a deviation the engines tier's reviewed
// list gives to the server, and a request the server answers conformingly never fails:
// - streamed: every stream fails as stream_nonconforming RESP-STREAM-002: response.created carries a
//   response with no output array (and no sequence_number or output_index on any event), on which
//   openai-node 6.49's responses.stream() throws "rsp.output is not iterable";
// - whole answers that end by themselves (max_output_tokens 64) pass, tokens from usage;
// - whole answers cut at max_output_tokens 16 fail RESP-005: status "completed", incomplete_details null;
// - --chain previous-response-id: every later turn is the server's 400 ("llama.cpp does not support
//   'previous_response_id'", the stateless legal profile); --chain resend fails nothing.

const KEY = 'iari-engine-key-0123456789abcdef';
const REVIEWED = engineDeviations('designed-key') ?? {};

let engine: Engine;
beforeAll(async () => {
  engine = await engineBuild();
}, BUILD_TIMEOUT_MS);

function iari(args: string[]): Promise<CliRun> {
  return runCli(args, { IARI_TOKEN: KEY, GITHUB_STEP_SUMMARY: '' });
}

interface LoadJson {
  counts: { finished: number; ok: number; failed: number; outputTokens: number; tokenSource: string; events: number };
  metrics: Record<string, { count: number; percentiles: Record<string, number> } | undefined>;
  errors: { byClass: Record<string, number>; byFinding: Record<string, number>; examples: { class: string; detail: string; finding?: string }[] };
}
interface Line {
  phase: string;
  turn?: number;
  status?: number | null;
  error: { class: string; detail: string } | null;
}

describe('llama-server under iari load --api responses (the designed model)', () => {
  let running: RunningEngine | undefined;
  let reportDir: string;
  beforeAll(async () => {
    reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-resp-load-'));
    if (engine.build !== undefined) running = await startEngine(engine.build, 'designed', KEY);
  }, 180_000);
  afterAll(async () => {
    await running?.close();
    if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
  });

  async function load(name: string, extra: string[]): Promise<{ run: CliRun; load: LoadJson; lines: Line[]; summary: string }> {
    const out = join(reportDir, name);
    const run = await iari(['load', '--base-url', running!.server.url, '--api', 'responses', '--concurrency', '2', '--request-timeout', '2m', '--report', out, ...extra]);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const load = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadJson;
    const lines = readFileSync(join(out, 'requests.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line).filter((l) => l.phase === 'measure');
    const summary = JSON.stringify({ counts: load.counts, errors: { byClass: load.errors.byClass, byFinding: load.errors.byFinding, examples: load.errors.examples.slice(0, 2) }, ttft: load.metrics['ttft']?.percentiles['p50'] });
    process.stderr.write(`engines: iari load --api responses ${extra.join(' ')} against llama-server: ${summary}\n`);
    return { run, load, lines, summary };
  }
  /** Every failed request names a requirement the reviewed list gives to the server as a failure. */
  const serverOwned = (lines: readonly Line[]): string[] => lines.filter((l) => l.error !== null && l.error.class !== 'http_status').map((l) => l.error!.detail.split(' ')[0] ?? '').filter((id) => REVIEWED[id]?.owner !== 'server' || REVIEWED[id]?.verdict !== 'fail');

  it('RESP-STREAM-002: every stream fails as the server\'s, naming the reviewed requirement; no other failure', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const { load: l, lines, summary } = await load('stream', ['--requests', '8', '--max-tokens', '64']);
    expect(l.counts.finished, summary).toBe(8);
    expect(l.errors.byClass['stream_nonconforming'], summary).toBe(8);
    expect(l.errors.byFinding, summary).toEqual({ 'snapshot-invalid': 8 });
    expect(lines.every((x) => x.error?.detail.startsWith('RESP-STREAM-002 ')), summary).toBe(true);
    expect(serverOwned(lines), summary).toEqual([]);
  }, 300_000);

  it('whole answers that end by themselves pass with usage tokens; cut at max_output_tokens 16 they fail RESP-005 (the server says completed)', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const ended = await load('whole', ['--requests', '8', '--max-tokens', '64', '--no-stream']);
    expect(ended.load.counts, ended.summary).toMatchObject({ finished: 8, ok: 8, failed: 0, tokenSource: 'usage' });
    expect(ended.load.counts.outputTokens, ended.summary).toBeGreaterThan(8 * 10);
    expect(ended.run.code, ended.run.stderr).toBe(0);
    const cut = await load('cut', ['--requests', '8', '--max-tokens', '16', '--no-stream']);
    expect(cut.load.errors.byClass['body_invalid'], cut.summary).toBe(8);
    expect(cut.lines.every((x) => x.error?.detail.startsWith('RESP-005 ')), cut.summary).toBe(true);
    expect(serverOwned(cut.lines), cut.summary).toEqual([]);
  }, 300_000);

  it('RESP-STATE-005: chained later turns are the stateless server\'s 400; resent ones fail nothing', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const chained = await load('chain', ['--requests', '8', '--max-tokens', '64', '--no-stream', '--turns', '2', '--chain', 'previous-response-id']);
    const failed = chained.lines.filter((x) => x.error !== null);
    expect(failed.length, chained.summary).toBeGreaterThan(0);
    expect(failed.every((x) => x.turn === 2 && x.status === 400 && x.error?.class === 'http_status'), chained.summary).toBe(true);
    expect(chained.lines.filter((x) => x.turn === 1).every((x) => x.error === null), chained.summary).toBe(true);
    expect(REVIEWED['RESP-STATE-005']?.owner).toBe('server');
    const resent = await load('resend', ['--requests', '8', '--max-tokens', '64', '--no-stream', '--turns', '2']);
    expect(resent.load.counts, resent.summary).toMatchObject({ ok: 8, failed: 0 });
    expect(resent.lines.some((x) => x.turn === 2), resent.summary).toBe(true);
  }, 400_000);
});
