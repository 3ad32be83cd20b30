/**
 * The client libraries iari builds (openai-node for the SDK checks and the CLIENT area, the AI
 * SDK's OpenAI-compatible provider, LangChain's ChatOpenAICompletions) read the user's environment
 * when an option is left out: base URL, keys, organization, project, extra headers, log level,
 * LangSmith tracing and gateway (src/client/openai-client.ts lists where each is read). A user who
 * keeps those set for OpenAI must not have them sent to a third-party server under test, and the
 * run must reach only the base URL given.
 *
 * `iari test` runs with every such variable set to a canary, against a proxy that records every
 * request's headers in front of the mock; the variables that name a URL point at a decoy server
 * that must receive nothing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { startDecoy, startRecordingProxy, type Recorder } from '../../test-support/recording-proxy.ts';
import { runIariChild } from '../../test-support/iari-child.ts';

const marker = `envcanary${randomBytes(8).toString('hex')}`;
const token = `sk-iari-run-${randomBytes(12).toString('hex')}`;

/** Every variable the three libraries (and the debug/log switches of their dependencies) read. */
function clientEnvironment(decoy: string): Record<string, string> {
  return {
    // openai-node (client.js constructor): base URL, keys, organization, project, webhook secret, extra headers, log level.
    OPENAI_BASE_URL: `${decoy}/v1`,
    OPENAI_API_KEY: `sk-${marker}-apikey`,
    OPENAI_ADMIN_KEY: `sk-admin-${marker}`,
    OPENAI_ORG_ID: `org-${marker}`,
    OPENAI_PROJECT_ID: `proj-${marker}`,
    OPENAI_WEBHOOK_SECRET: `whsec-${marker}`,
    OPENAI_CUSTOM_HEADERS: `X-Env-Header: hdr-${marker}\nAuthorization: Bearer sk-custom-${marker}\nOpenAI-Beta: beta-${marker}`,
    OPENAI_LOG: 'debug',
    // LangChain (@langchain/openai chat_models/base.js): its own names for base URL and organization.
    OPENAI_API_BASE: `${decoy}/v1`,
    OPENAI_ORGANIZATION: `org2-${marker}`,
    // LangSmith: tracing, its endpoint and key, the gateway, prompt logging (@langchain/core).
    LANGSMITH_TRACING: 'true',
    LANGSMITH_TRACING_V2: 'true',
    LANGCHAIN_TRACING_V2: 'true',
    LANGCHAIN_TRACING: 'true',
    LANGCHAIN_VERBOSE: 'true',
    LANGSMITH_ENDPOINT: decoy,
    LANGCHAIN_ENDPOINT: decoy,
    LANGSMITH_API_KEY: `lsv2-${marker}`,
    LANGCHAIN_API_KEY: `lsv2b-${marker}`,
    LANGSMITH_GATEWAY: decoy,
    LANGSMITH_GATEWAY_API_KEY: `lsgw-${marker}`,
    LANGCHAIN_CALLBACKS_BACKGROUND: 'false',
    // The AI SDK: its gateway key (a provider left unnamed would go to Vercel's gateway).
    AI_GATEWAY_API_KEY: `aigw-${marker}`,
    // The `debug` package's switch, read by any dependency that logs through it.
    DEBUG: '*',
  };
}

describe('secrets: the client libraries read nothing from the environment', () => {
  let mock: MockServer;
  let proxy: Recorder;
  let decoy: Recorder;

  beforeAll(async () => {
    mock = await startMockServer({ defaultToken: token });
    proxy = await startRecordingProxy(mock.origin);
    decoy = await startDecoy();
  });

  afterAll(async () => {
    await proxy?.close();
    await decoy?.close();
    await mock?.close();
  });

  it('iari test with OPENAI_*, LANGCHAIN_*, LANGSMITH_* and DEBUG set sends none of them to the server under test, and reaches only the base URL given', async () => {
    const report = mkdtempSync(join(tmpdir(), 'iari-client-env-'));
    const run = await runIariChild(['test', '--base-url', proxy.url, '--report', report], { ...clientEnvironment(decoy.origin), IARI_TOKEN: token }, 120_000);
    expect(run.stderr).not.toMatch(/internal error/);
    expect(run.code, run.stdout.split('\n').filter((l) => l.startsWith('FAIL')).join('\n').slice(0, 2000)).toBe(0);
    // The three libraries did send requests through the proxy (their user agents), so their headers were seen.
    const agents = new Set(proxy.seen.map((s) => String(s.headers['user-agent'] ?? '')));
    expect([...agents].some((a) => a.startsWith('OpenAI/JS'))).toBe(true);
    // @ai-sdk/openai-compatible 3 says `ai-sdk-openai-compatible/3.x`, 2 said `ai-sdk/openai-compatible/2.x`.
    expect([...agents].some((a) => /ai-sdk[/-]openai-compatible\//.test(a))).toBe(true);
    expect([...agents].some((a) => a.includes('langchainjs-openai'))).toBe(true);
    // No header of any request carries a value from the environment, and the token sent is always the run's.
    const leaked = proxy.seen.flatMap((s) => Object.entries(s.headers).filter(([, v]) => String(v).includes(marker)).map(([name, v]) => `${s.url} ${name}: ${String(v)}`));
    expect(leaked).toEqual([]);
    for (const name of ['openai-organization', 'openai-project', 'x-env-header', 'openai-beta']) expect(proxy.seen.filter((s) => s.headers[name] !== undefined).map((s) => s.url), name).toEqual([]);
    expect(proxy.seen.some((s) => s.headers['authorization'] === `Bearer ${token}`)).toBe(true);
    // Nothing went to the base URLs, gateways or tracing endpoints the environment names.
    expect(decoy.seen.map((s) => s.url)).toEqual([]);
    // Neither the SDK's debug log (OPENAI_LOG) nor LangChain's prompt log (LANGCHAIN_VERBOSE) nor `debug` wrote to iari's output.
    for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr]] as const) {
      expect(text.includes(marker), name).toBe(false);
      expect(text, name).not.toMatch(/OpenAI:DEBUG|sending request|\[llm\/start\]|\[chain\/start\]/);
    }
  }, 150_000);
});
