import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';

// Issue 43 item 11 against llama.cpp's own llama-server serving the tiny designed qwen2 model (the
// full Qwen2 byte-level BPE tokenizer): `iari load --tokenizer server` counts the synthetic prompts
// with the server's POST /tokenize, and since Qwen2's pre-tokenizer splits before every " word",
// the asked count is exact: usage.prompt_tokens minus it is the chat template alone, one constant
// for prompts of every length (29 tokens on the designed model, 2026-11-29). Measured beside it:
// the default o200k count gives the same 29 on this model, since every word of the synthetic
// vocabulary is one Qwen2 token too; the flag changes the count where a model's tokenizer
// splits those words differently (suites/load/tokenizer.test.ts shows that path with a stand-in).

const KEY = 'iari-engine-key-0123456789abcdef';

let engine: Engine;
beforeAll(async () => {
  engine = await engineBuild();
}, BUILD_TIMEOUT_MS);

interface Line {
  phase: string;
  error: unknown;
  promptTokens?: number | null;
  requested?: { prompt: number | null } | null;
}

describe('llama-server: iari load --tokenizer server', () => {
  let running: RunningEngine | undefined;
  let reportDir: string;
  beforeAll(async () => {
    reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-tokenizer-'));
    if (engine.build !== undefined) running = await startEngine(engine.build, 'designed', KEY);
  }, 180_000);
  afterAll(async () => {
    await running?.close();
    if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
  });

  async function load(name: string, extra: string[]): Promise<{ run: CliRun; tokens: { promptCountedBy?: string }; overheads: number[] }> {
    const out = join(reportDir, name);
    const run = await runCli(['load', '--base-url', running!.server.url, '--input-tokens', '40,12', '--max-tokens', '4', '--concurrency', '2', '--requests', '10', '--request-timeout', '2m', '--report', out, ...extra], { IARI_TOKEN: KEY, GITHUB_STEP_SUMMARY: '' });
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const tokens = (JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as { tokens: { promptCountedBy?: string } }).tokens;
    const lines = readFileSync(join(out, 'requests.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line).filter((l) => l.phase === 'measure' && l.error === null);
    const overheads = lines.map((l) => (l.promptTokens ?? 0) - (l.requested?.prompt ?? 0));
    process.stderr.write(`engines: iari load ${extra.join(' ')} against llama-server: usage.prompt_tokens minus asked per request ${JSON.stringify(overheads)}\n`);
    return { run, tokens, overheads };
  }

  it('LOAD-TOKENIZER: the asked prompt lengths are the server\'s /tokenize counts: usage.prompt_tokens minus them is one constant (the template) over prompts of every length', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const { run, tokens, overheads } = await load('server', ['--tokenizer', 'server']);
    expect(run.code, run.stderr).toBe(0);
    expect(tokens.promptCountedBy).toBe('server /tokenize');
    expect(overheads.length).toBeGreaterThanOrEqual(8);
    expect(new Set(overheads).size, JSON.stringify(overheads)).toBe(1);
    expect(overheads[0]).toBeGreaterThan(0);
    expect(run.stdout).toContain("prompt lengths asked, counted by: the server's own tokenizer");
    // The same prompts counted with o200k (the default), for the record.
    const o200k = await load('o200k', []);
    expect(o200k.tokens.promptCountedBy).toBe('o200k');
  }, 300_000);
});
