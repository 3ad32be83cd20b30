import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import type { CheckOutcome } from '../../src/checks/context/check-types.ts';
import { codexClientChecks } from '../../src/checks/areas/clients-codex.ts';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codexBinary, codexConfig, codexEnv, codexExecArgs } from '../../src/checks/clients/codex-cli.ts';
import { CODEX_PROMPT } from '../../src/checks/areas/clients-codex.ts';

// Codex CLI (CLIENT-RESP-011) run for real (`codex exec`, its native binary) against the bundled mock
// through the loopback relay: the faithful mock and the legal profiles pass, and the faults that break
// Codex fail it with its own words. Where the binary is not installed, the operation is skipped saying so.

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(async () => {
  await mock?.close();
});

async function run(extra: Partial<RunSettings> = {}): Promise<CheckOutcome | undefined> {
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...extra });
  try {
    return (await runChecksInProcess(ctx, codexClientChecks)).outcomes.get('CLIENT-RESP-011');
  } finally {
    await ctx.close();
  }
}

const said = (o: CheckOutcome | undefined): string => (o === undefined ? 'absent' : o.verdict === 'skipped' ? `skipped ${o.reason}` : o.verdict === 'fail' || o.verdict === 'non-strict' ? `${o.verdict} ${o.failures[0]?.message ?? ''}` : o.verdict);
const binary = codexBinary();

describe.skipIf('missing' in binary)('Codex CLI on the Responses API', () => {
  it('CLIENT-RESP-011: codex exec completes its turn on the faithful mock and on the stateless and data-only legal profiles', async () => {
    for (const fault of [undefined, 'legal-responses-stateless', 'legal-responses-data-only']) expect(`${fault ?? 'faithful'} ${said(await run(fault === undefined ? {} : { fault }))}`).toBe(`${fault ?? 'faithful'} pass`);
  }, 60_000);

  it('CLIENT-RESP-011: Codex sends an id on every input item, so a server refusing them fails its first request; an item never done loses the answer', async () => {
    expect(said(await run({ fault: 'responses-replayed-items-rejected' }))).toMatch(/^fail Codex CLI codex exec .*the turn failed: .*Extra inputs are not permitted: input\[0\] carries id/);
    expect(said(await run({ fault: 'responses-stream-item-not-done' }))).toMatch(/^fail .*the server streamed answer text, and Codex printed no agent message/);
    expect(said(await run({ fault: 'responses-stream-vendor-event' }))).toBe('pass');
  }, 60_000);

  it('CLIENT-RESP-011: the token never reaches Codex: it is given a stand-in key through its env_key, the relay sends the token', async () => {
    const o = await run({ fault: 'responses-tools-nested-only' });
    expect(said(o)).toMatch(/^fail .*Missing required parameter: 'tools\[0\]\.function'/);
    expect(JSON.stringify(o)).not.toContain(mock.tokens.default);
  }, 60_000);
});

/** strace, where installed: Codex is another process, which the in-process offline guard (offline.test.ts) cannot see. */
const strace = ((): string | undefined => {
  try {
    return execFileSync('which', ['strace'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

describe.skipIf('missing' in binary || strace === undefined)('Codex CLI stays on loopback', () => {
  it('CLIENT-RESP-011: with iari\'s config, switches and environment, every connection codex exec opens is to loopback (strace), and it answers', async () => {
    const home = mkdtempSync(join(tmpdir(), 'iari-codex-strace-'));
    try {
      mkdirSync(join(home, 'work'));
      writeFileSync(join(home, 'config.toml'), codexConfig(`${mock.origin}/v1`, 'iari-mini'));
      const trace = join(home, 'connect.log');
      // Asynchronous: the mock answering Codex lives in this process's event loop.
      const child = spawn(strace!, ['-f', '-qq', '-e', 'trace=connect', '-o', trace, (binary as { path: string }).path, ...codexExecArgs(CODEX_PROMPT)], { cwd: join(home, 'work'), env: codexEnv(home, mock.tokens.default), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
      await new Promise((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      expect(stdout).toContain('"type":"turn.completed"');
      const inet = readFileSync(trace, 'utf8').split('\n').filter((l) => /connect\(.*sa_family=AF_INET6?\b/.test(l));
      expect(inet.length).toBeGreaterThan(0);
      expect(inet.filter((l) => !/inet_addr\("127\.|inet_pton\(AF_INET6, "::1"/.test(l))).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!('missing' in binary))('Codex CLI not installed', () => {
  it('CLIENT-RESP-011: skipped, saying what to install', async () => {
    expect(said(await run())).toMatch(/^skipped Codex CLI/);
  });
});
