import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';

// Cancellation against a real engine (docs/cancellation.md): llama.cpp's llama-server with the random
// tiny model, whose answers never end by themselves, and a server-side bound (-n) above the checks'
// longest request (1,500 tokens), so that every stream is still running when iari cuts it. The research
// note measured llamacpp:tokens_predicted_total stop within 0.5 s of a closed 1,500-token stream.

const KEY = 'iari-engine-key-cancel-0123456789ab';
const CANCEL_IDS = ['CANCEL-001', 'CANCEL-002', 'CANCEL-003', 'CANCEL-004', 'CANCEL-005', 'CANCEL-006', 'CANCEL-007'];

interface Result {
  id: string;
  verdict: string;
  reason?: string;
  failures?: { message: string }[];
}

let engine: Engine;
let running: RunningEngine | undefined;
const reportDir = mkdtempSync(join(tmpdir(), 'iari-engine-cancel-'));
beforeAll(async () => {
  engine = await engineBuild();
  if (engine.build !== undefined) running = await startEngine(engine.build, 'random', KEY, { maxTokens: 2_000 });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await running?.close();
  rmSync(reportDir, { recursive: true, force: true });
});

describe('llama-server random model: cancellation', () => {
  it('CANCEL-001, CANCEL-002, CANCEL-003, CANCEL-006, CANCEL-007 pass (generation stops with the client, the next request is as fast, nothing leaks); CANCEL-004 and CANCEL-005 are skipped: no account endpoints, no receipts', async (ctx) => {
    if (engine.skip !== undefined) return ctx.skip(engine.skip);
    const run = await runCli(['test', '--base-url', running!.server.url, '--only', CANCEL_IDS.join(','), '--json', '--report', reportDir], { IARI_TOKEN: KEY, GITHUB_STEP_SUMMARY: '' });
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const results = (JSON.parse(run.stdout) as { results: Result[] }).results.filter((r) => r.id.startsWith('CANCEL-'));
    const seen = Object.fromEntries(results.map((r) => [r.id, r.verdict]));
    const detail = results.map((r) => `${r.id} ${r.verdict}: ${r.reason ?? r.failures?.[0]?.message ?? ''}`).join('\n');
    process.stderr.write(`engines: cancellation against llama-server:\n${detail}\n`);
    expect(seen, detail).toEqual({
      'CANCEL-001': 'pass',
      'CANCEL-002': 'pass',
      'CANCEL-003': 'pass',
      'CANCEL-004': 'skipped',
      'CANCEL-005': 'skipped',
      'CANCEL-006': 'pass',
      'CANCEL-007': 'pass',
    });
    const reason = (id: string): string => results.find((r) => r.id === id)?.reason ?? '';
    expect(reason('CANCEL-004')).toMatch(/\/v1\/me/);
    expect(reason('CANCEL-005')).toMatch(/receipts/);
    expect(run.code).toBe(0);
  }, 300_000);
});
