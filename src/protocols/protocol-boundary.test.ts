import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiOf, boundaryBreaches, importsOf, productFiles } from '../../test-support/protocol-boundary.ts';
import { defaultProtocols } from './registry.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The product files outside src/protocols/ that are about one API by nature, with that API: the
 * checks that exercise it (src/checks/areas, requests, wire) and the mock's faults that bend its
 * wire. Each may import its own API's folder, no other. Every other product file imports only the
 * contract (protocol.ts, protocol-mock.ts) and the list (registry.ts).
 */
const API_CONSUMERS: Readonly<Record<string, string>> = {
  'mock-server/core/chat-faults.ts': 'chat-completions',
  'mock-server/core/extension-modes.ts': 'chat-completions',
  'mock-server/core/http-faults.ts': 'chat-completions',
  'mock-server/core/reasoning.ts': 'chat-completions',
  'src/checks/areas/auth.ts': 'chat-completions',
  'src/checks/areas/bounds.ts': 'chat-completions',
  'src/checks/areas/chat-format.ts': 'chat-completions',
  'src/checks/areas/chat-stream.ts': 'chat-completions',
  'src/checks/areas/chat.ts': 'chat-completions',
  'src/checks/areas/clients-langchain.ts': 'chat-completions',
  'src/checks/areas/clients-openai.ts': 'chat-completions',
  'src/checks/areas/clients-rate-limit.ts': 'chat-completions',
  'src/checks/areas/clients-reasoning.ts': 'chat-completions',
  'src/checks/areas/clients-vercel.ts': 'chat-completions',
  'src/checks/areas/embeddings.ts': 'embeddings',
  'src/checks/areas/errors.ts': 'chat-completions',
  'src/checks/areas/headers.ts': 'chat-completions',
  'src/checks/areas/keep-alive.ts': 'chat-completions',
  'src/checks/areas/limits.ts': 'chat-completions',
  'src/checks/areas/models.ts': 'chat-completions',
  'src/checks/areas/reasoning.ts': 'chat-completions',
  'src/checks/areas/responses.ts': 'responses',
  'src/checks/areas/responses-state.ts': 'responses',
  'src/checks/areas/responses-stream.ts': 'responses',
  'src/checks/areas/receipts.ts': 'chat-completions',
  'src/checks/areas/server-metrics.ts': 'chat-completions',
  'src/checks/areas/tools-breadth.ts': 'chat-completions',
  'src/checks/areas/tools.ts': 'chat-completions',
  'src/checks/areas/usage.ts': 'chat-completions',
  'src/checks/requests/cancel-requests.ts': 'chat-completions',
  'src/checks/requests/capability-probes.ts': 'chat-completions',
  'src/checks/requests/common-requests.ts': 'chat-completions',
  'src/checks/requests/output-bound.ts': 'chat-completions',
  'src/checks/requests/responses-requests.ts': 'responses',
  'src/checks/requests/tool-choice-turns.ts': 'chat-completions',
  'src/checks/requests/tool-requests.ts': 'chat-completions',
  'src/checks/requests/usage-discovery.ts': 'chat-completions',
  'src/checks/wire/responses-findings.ts': 'responses',
  'src/checks/wire/stream-findings.ts': 'chat-completions',
  'src/checks/wire/streamed-tool-calls.ts': 'chat-completions',
};

/** Rooms that serve every API alike: none of their files may be an API's consumer. */
const GENERIC = [/^src\/(load|report|library|cli|compare|server-metrics|client|receipts)\//, /^src\/checks\/(kernel|registry|runner|context|rate-limits)\//, /^mock-server\/adapters\//, /^mock-server\/core\/(handler|protocol-route|generation|admission|pacing|request-intake|context|types)\.ts$/];

describe('one module per API, held by imports', () => {
  it('no API folder imports another API, the contract imports no API, and a consumer imports only the contract and the list (or, about one API by nature, that API)', () => {
    expect(boundaryBreaches(root, API_CONSUMERS)).toEqual([]);
  });

  it('the generic rooms (load, report, library, CLI, the checks\' kernel, registry and runner, the mock\'s route, admission and generation) consume no API', () => {
    expect(Object.keys(API_CONSUMERS).filter((f) => GENERIC.some((g) => g.test(f)))).toEqual([]);
  });

  it('every listed consumer exists and still imports its API (the list does not outlive the code)', () => {
    const files = new Set(productFiles(root));
    const stale = Object.entries(API_CONSUMERS).filter(([f, api]) => !files.has(f) || !importsOf(root, f).some((i) => apiOf(i) === api));
    expect(stale).toEqual([]);
  });

  it('every API folder is registered, and the list names each API once', () => {
    const folders = new Set(productFiles(root).map(apiOf).filter((a): a is string => a !== undefined));
    expect([...folders].sort()).toEqual(defaultProtocols.map((p) => p.name).sort());
    expect(new Set(defaultProtocols.map((p) => p.name)).size).toBe(defaultProtocols.length);
  });

  it('the boundary test can fail: a consumer importing an API it is not listed for is a breach', () => {
    const breaches = boundaryBreaches(root, { ...API_CONSUMERS, 'src/checks/areas/embeddings.ts': 'chat-completions' });
    expect(breaches.map((b) => b.file)).toContain('src/checks/areas/embeddings.ts');
  });
});
