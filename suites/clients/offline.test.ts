import net from 'node:net';
import dns from 'node:dns';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOfflineGuard, isLoopback, type OfflineGuard } from './offline-guard.ts';
import type { MockServer } from '../../mock-server/index.ts';

// No client library may reach the network: iari runs them against the server under test only.
// The guard refuses (in-process, before anything is sent) every DNS lookup and connection that is
// not loopback and records it; the client checks then run against the bundled mock on 127.0.0.1,
// and any attempt they make elsewhere (LangChain's tiktoken download, LangSmith tracing, a
// gateway) fails this suite. Every probe below targets names and addresses that are reserved for
// documentation (.invalid, 192.0.2.0/24), so even a broken guard would send nothing useful anywhere.

const execFileAsync = promisify(execFile);
let guard: OfflineGuard;
let mock: MockServer;
const savedEnv: Record<string, string | undefined> = {};
// A user's shell that turns LangSmith tracing on must not make iari send traces.
const TRACING_VARS = ['LANGSMITH_TRACING', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING'];

beforeAll(async () => {
  for (const name of TRACING_VARS) {
    savedEnv[name] = process.env[name];
    process.env[name] = 'true';
  }
  guard = installOfflineGuard();
  const { startMockServer } = await import('../../mock-server/index.ts');
  mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});

afterAll(async () => {
  await mock?.close();
  guard?.uninstall();
  for (const name of TRACING_VARS) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe('the offline guard', () => {
  it('lets loopback names and addresses through and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopback(h), h).toBe(true);
    for (const h of ['192.0.2.1', '10.0.0.1', '::ffff:192.0.2.1', 'tiktoken.pages.dev', 'localhost.example', '0.0.0.0']) expect(isLoopback(h), h).toBe(false);
  });

  it('refuses and records a DNS lookup of another name, by callback and by promise', async () => {
    guard.reset();
    const byCallback = await new Promise<NodeJS.ErrnoException | null>((resolve) => dns.lookup('iari-offline-probe.invalid', (err) => resolve(err)));
    expect(byCallback?.message).toMatch(/offline guard/);
    await expect(dns.promises.lookup('iari-offline-probe-2.invalid')).rejects.toThrow(/offline guard/);
    await expect(dns.promises.resolve4('iari-offline-probe-3.invalid')).rejects.toThrow(/offline guard/);
    expect(guard.attempts.map((a) => a.target)).toEqual(['iari-offline-probe.invalid', 'iari-offline-probe-2.invalid', 'iari-offline-probe-3.invalid']);
  });

  it('refuses and records a connection to a non-loopback address, and fetch to a name', async () => {
    guard.reset();
    const socketError = await new Promise<Error>((resolve) => net.connect(443, '192.0.2.1').on('error', resolve));
    expect(socketError.message).toMatch(/offline guard/);
    await expect(fetch('https://iari-offline-probe.invalid/')).rejects.toThrow();
    // undici hands the name to net.connect, which the guard refuses before resolving it.
    expect(guard.attempts).toEqual([
      { kind: 'connect', target: '192.0.2.1' },
      { kind: 'connect', target: 'iari-offline-probe.invalid' },
    ]);
  });

  it('catches what LangChain does when left unconfigured: its token counter downloads tiktoken ranks', async () => {
    // In a child process: LangChain retries the download for a minute, which must not leak into the other tests.
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./unconfigured-langchain-probe.ts', import.meta.url))], { timeout: 30_000 });
    const attempts = JSON.parse(stdout.trim().split('\n').pop() ?? '[]') as { target: string }[];
    expect(attempts.map((a) => a.target)).toContain('tiktoken.pages.dev');
  });
});

describe('CLIENT checks stay on the server under test', () => {
  it('every client operation runs against the loopback mock with no DNS lookup or connection elsewhere', async () => {
    guard.reset();
    // As iari's command does for its own process (src/cli/entry.ts): the tracing the environment asked for is off.
    (await import('../../src/cli/quiet-clients.ts')).quietClientLibraries(process.env, {});
    const { catalog } = await import('../../src/checks/runner/catalog.ts');
    const { createCheckContext } = await import('../../src/checks/context/check-context.ts');
    const { runChecksInProcess } = await import('../../src/checks/runner/run-catalog.ts');
    const { openaiPythonVenv } = await import('../../test-support/openai-python-venv.ts');
    // openai-python runs in its own process, pointed at a loopback relay in this one: what it sends
    // leaves through the same fetch, and so through the guard. Without its venv, its operations are skipped.
    const py = openaiPythonVenv();
    const capped = mock.tokens.byAccount['acct_capped'];
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(py.python === undefined ? {} : { python: py.python }), ...(capped === undefined ? {} : { limitTokens: { capped } }) });
    const checks = catalog.filter((c) => c.area === 'clients');
    // The JS libraries run in iari's client process: the guard is loaded there too, and writes what it refuses to a file.
    const { clientProcessReady, restartClientProcess } = await import('../../src/checks/clients/client-process.ts');
    const record = join(mkdtempSync(join(tmpdir(), 'iari-offline-')), 'child-attempts.ndjson');
    const childGuard = new URL('./offline-guard-child.ts', import.meta.url);
    childGuard.searchParams.set('record', record);
    restartClientProcess({ preload: [childGuard.href] });
    // Started and greeted before the run, so a loaded machine's slow start does not eat the first operation's deadline.
    expect(await clientProcessReady()).toBeUndefined();
    const pythonIds = new Set(checks.filter((c) => c.name.startsWith('client-openai-python')).flatMap((c) => c.ids));
    const { outcomes } = await runChecksInProcess(ctx, checks);
    await ctx.close();
    const verdicts = [...outcomes.values()].map((o) => `${o.id} ${o.verdict}`).sort();
    expect(verdicts.length).toBe(checks.flatMap((c) => c.ids).length);
    expect(pythonIds.size).toBe(11);
    expect(verdicts.filter((v) => !v.endsWith(' pass') && !(py.skip !== undefined && pythonIds.has(v.split(' ')[0] ?? '') && v.endsWith(' skipped'))), JSON.stringify([...outcomes.values()].filter((o) => o.verdict !== 'pass'))).toEqual([]);
    expect(guard.attempts).toEqual([]);
    restartClientProcess();
    const child = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { installed?: number; target?: string });
    // The guard ran in the client process (its own probe recorded) and recorded nothing else.
    expect(child[0]?.installed).toBeTypeOf('number');
    expect(child.slice(1).map((a) => a.target)).toEqual(['iari-offline-child-probe.invalid']);
  }, 300_000);

  it('the LangChain chat model iari builds counts tokens locally (no tiktoken download), also when streaming is on', async () => {
    guard.reset();
    const { langchain } = await import('../../src/checks/clients/client-libraries.ts');
    const { ClientTransport } = await import('../../src/checks/clients/client-transport.ts');
    const { createCheckContext } = await import('../../src/checks/context/check-context.ts');
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false });
    const t = new ClientTransport(ctx);
    // The environment asks for tracing: the library writes nothing to it and runs no LangChain operation.
    for (const name of TRACING_VARS) process.env[name] = 'true';
    const refused = await langchain(t, mock.tokens.default, 'gpt-4o-mini');
    expect(refused).toEqual({ skip: expect.stringMatching(/LANGSMITH_TRACING=true/) });
    expect(process.env['LANGSMITH_TRACING']).toBe('true');
    // iari's own command turns them off for its process (src/cli/entry.ts).
    const { quietClientLibraries } = await import('../../src/cli/quiet-clients.ts');
    quietClientLibraries(process.env, {});
    const lc = await langchain(t, mock.tokens.default, 'gpt-4o-mini');
    if (lc === undefined || 'skip' in lc) throw new Error('LangChain did not open');
    const model = await (await import('../../src/checks/requests/common-requests.ts')).modelUnderTest(ctx);
    // Bounded: a download attempt would make LangChain retry for a minute; the guard records the first try at once.
    const within = <T,>(p: Promise<T>): Promise<T | 'still running'> => Promise.race([p, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 5_000))]);
    const counted = await within(lc.chat.getNumTokens('How many tokens is this?'));
    expect(guard.attempts).toEqual([]);
    expect(counted).toBeGreaterThan(0);
    // invoke() on a streaming model estimates usage from the messages with getNumTokens.
    const streaming = await langchain(t, mock.tokens.default, model);
    if (streaming === undefined || 'skip' in streaming) throw new Error('LangChain did not open');
    streaming.chat.streaming = true;
    const answer = await within(streaming.chat.invoke([new streaming.messages.HumanMessage('Hello')]));
    expect(guard.attempts).toEqual([]);
    expect(typeof (answer as { content?: unknown }).content).toBe('string');
    // Tracing stays off: the command turned it off for its own process.
    expect(process.env['LANGSMITH_TRACING']).toBe('false');
  });
});
