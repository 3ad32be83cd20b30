/**
 * Issue 41 item 1: the JS client libraries are imported and run in iari's client process
 * (src/checks/clients/client-process.ts), never in the main one; a client process that dies or
 * hangs leaves its operations undecided, saying why, never a pass or a hang.
 */
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { createCheckContext } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import { runCheck } from '../../src/checks/runner/check-runner.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import { openaiClientChecks } from '../../src/checks/areas/clients-openai.ts';
import { clientProcessPid, restartClientProcess } from '../../src/checks/clients/client-process.ts';

const LIBRARIES = /\/node_modules\/(openai|openai-v6|ai|ai-v6|@ai-sdk\/[^/]+|@langchain\/[^/]+|langchain|@openai\/agents[^/]*)\//;
const imported: string[] = [];
// Every module this process loads from here on, by URL: the libraries must never be among them.
registerHooks({
  load(url, context, next) {
    imported.push(url);
    return next(url, context);
  },
});

let mock: MockServer;
/** A server that takes a chat completion and never answers it (the models list it answers). */
let silent: Server;
let silentRoot: string;
let reached = false;

beforeAll(async () => {
  restartClientProcess();
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
  silent = createServer((req, res) => {
    req.resume();
    if (req.method === 'POST') reached = true;
    if ((req.url ?? '').startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] }));
    }
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentRoot = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});

afterAll(async () => {
  restartClientProcess();
  silent.closeAllConnections();
  await new Promise<void>((r) => silent.close(() => r()));
  await mock.close();
});

describe('the client libraries run in their own process', () => {
  it('CLIENT-001: a whole run of the catalog on the mock passes its library operations without importing a client library into this process', async () => {
    // The hook sees what this process imports (a control: ajv, imported here, is seen).
    await import('ajv');
    expect(imported.filter((u) => u.includes('/node_modules/ajv/'))).not.toEqual([]);
    const capped = mock.tokens.byAccount['acct_capped'];
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(capped === undefined ? {} : { limitTokens: { capped } }) });
    // The token in this process's environment, as `iari test` reads it: the client process must not inherit it.
    process.env['IARI_TOKEN'] = mock.tokens.default;
    restartClientProcess();
    try {
      // The whole catalog, as `iari test` runs it (openai-python and the Codex CLI are processes of their own; skipped where not installed).
      const { outcomes } = await runChecksInProcess(ctx, catalog);
      // The libraries ran (in the child): openai-node's (also for CHAT-031 and CHAT-STREAM-038), the AI SDK's, LangChain's, the Agents SDK's and a 429 operation passed.
      for (const id of ['CHAT-031', 'CHAT-STREAM-038', 'CLIENT-001', 'CLIENT-010', 'CLIENT-018', 'CLIENT-036', 'CLIENT-009', 'CLIENT-RESP-009']) expect(outcomes.get(id)?.verdict, id).toBe('pass');
      expect([...outcomes.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'undecided').map((o) => o.id)).toEqual([]);
      expect(imported.filter((s) => LIBRARIES.test(s))).toEqual([]);
      // The token is in neither the client process's arguments nor its environment (the relay swaps a stand-in for it).
      const pid = clientProcessPid();
      for (const file of ['cmdline', 'environ']) expect(readFileSync(`/proc/${String(pid)}/${file}`, 'utf8'), file).not.toContain(mock.tokens.default);
      expect(readFileSync(`/proc/${String(pid)}/environ`, 'utf8')).not.toContain('IARI_TOKEN');
    } finally {
      delete process.env['IARI_TOKEN'];
      await ctx.close();
    }
  }, 240_000);

  it('CLIENT-002: a client process killed during an operation leaves it undecided, saying so; the next operation gets a new process', async () => {
    const ctx = createCheckContext({ root: silentRoot, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 50_000, checkTimeoutMs: 60_000 });
    const def = openaiClientChecks.find((c) => c.ids.includes('CLIENT-002'));
    if (def === undefined) throw new Error('no CLIENT-002 check');
    try {
      const pending = runCheck(def, ctx, () => 'MUST');
      // The request reaches the silent server, so the child is mid-operation.
      while (!reached) await new Promise((r) => setTimeout(r, 50));
      const pid = clientProcessPid();
      expect(pid).toBeTypeOf('number');
      process.kill(pid ?? 0, 'SIGKILL');
      const [o] = await pending;
      expect(o?.verdict, JSON.stringify(o)).toBe('undecided');
      expect(o?.verdict === 'undecided' ? o.reason : '').toMatch(/client process ended \(SIGKILL\) before the operation answered/);
      // The dead process is replaced.
      const models = openaiClientChecks.find((c) => c.ids.includes('CLIENT-001'));
      if (models === undefined) throw new Error('no CLIENT-001 check');
      const [next] = await runCheck(models, ctx, () => 'MUST');
      expect(next?.verdict, JSON.stringify(next)).toBe('pass');
      expect(clientProcessPid()).not.toBe(pid);
    } finally {
      await ctx.close();
    }
  }, 120_000);

  it('CLIENT-001: a client process that never answers makes the operation undecided within its bound, and is ended', async () => {
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, checkTimeoutMs: 4_000 });
    // The first operation starts the process: given time for that on a loaded machine.
    const warm = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, checkTimeoutMs: 60_000 });
    const def = openaiClientChecks.find((c) => c.ids.includes('CLIENT-001'));
    if (def === undefined) throw new Error('no CLIENT-001 check');
    try {
      // A started, greeted process that stops answering (as one stuck in a library's loop would).
      const [first] = await runCheck(def, warm, () => 'MUST');
      expect(first?.verdict, JSON.stringify(first)).toBe('pass');
      const pid = clientProcessPid();
      process.kill(pid ?? 0, 'SIGSTOP');
      const started = Date.now();
      const [o] = await runCheck(def, ctx, () => 'MUST');
      // Its own bound (3 s) decided it, not the runner's timeout at 4 s (that would be a fail); loosely timed for a loaded machine.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(o?.verdict).toBe('undecided');
      expect(o?.verdict === 'undecided' ? o.reason : '').toMatch(/client process gave no result within 3\.0 s \(the process was ended\)/);
      // Ended: gone, or a zombie not reaped yet (State Z), within a few seconds.
      const ended = (): boolean => {
        try {
          return /^State:\s+Z/m.test(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
        } catch {
          return true;
        }
      };
      for (let i = 0; i < 100 && !ended(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ended()).toBe(true);
    } finally {
      await warm.close();
      await ctx.close();
    }
  }, 60_000);

  it('CLIENT-001: a client process that never starts (it ends before its greeting) makes the operation undecided, saying so', async () => {
    // A module it loads first that ends it, as a broken install or a crash at import would.
    restartClientProcess({ preload: ['data:text/javascript,process.exit(3)'] });
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false });
    const def = openaiClientChecks.find((c) => c.ids.includes('CLIENT-001'));
    if (def === undefined) throw new Error('no CLIENT-001 check');
    try {
      const [o] = await runCheck(def, ctx, () => 'MUST');
      expect(o?.verdict).toBe('undecided');
      expect(o?.verdict === 'undecided' ? o.reason : '').toMatch(/client process ended \(exit 3\) before the operation answered/);
    } finally {
      restartClientProcess();
      await ctx.close();
    }
  }, 60_000);
});
