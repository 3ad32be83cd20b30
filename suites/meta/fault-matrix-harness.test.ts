import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faults } from '../../mock-server/index.ts';
import { startClient, type Client } from '../../test-support/mock-client.ts';
import { apiOf, checksFor } from './fault-matrix-harness.ts';

// The fault matrix runs, of the CLIENT operations, only the API's on which the fault is applied
// (fault-matrix-harness.ts, apiOf). Its premise, shown on the mock: such a fault leaves every other
// API's answers as they were (ids and clocks aside), so an operation of another API is sent what the
// baseline was sent, and the baseline's verdict stands.

let c: Client;
beforeAll(async () => {
  c = await startClient({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
});
afterAll(() => c.close());

const tool = { type: 'function', name: 'get_weather', description: 'Weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const chatTool = { type: 'function', function: { name: 'get_weather', description: 'Weather for a city.', parameters: tool.parameters } };
/** What the client operations of each API ask: plain, streamed and with a forced tool, and the model list. */
const asks: Record<string, { path: string; body?: unknown }[]> = {
  'chat-completions': [
    { path: '/v1/models' },
    { path: '/v1/chat/completions', body: { model: 'iari-mini', messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 16 } },
    { path: '/v1/chat/completions', body: { model: 'iari-mini', messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 16, stream: true } },
    { path: '/v1/chat/completions', body: { model: 'iari-mini', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [chatTool], tool_choice: 'required', stream: true } },
  ],
  responses: [
    { path: '/v1/responses', body: { model: 'iari-mini', input: 'Say hello.', max_output_tokens: 16 } },
    { path: '/v1/responses', body: { model: 'iari-mini', input: 'Say hello.', max_output_tokens: 16, stream: true } },
    { path: '/v1/responses', body: { model: 'iari-mini', input: 'Weather in Oslo?', tools: [tool], tool_choice: 'required' } },
  ],
};

async function answers(api: string, fault?: string): Promise<string[]> {
  const out: string[] = [];
  for (const a of asks[api] ?? []) {
    const headers: Record<string, string> = { authorization: `Bearer ${c.server.tokens.default}`, 'content-type': 'application/json', ...(fault === undefined ? {} : { 'x-iari-fault': fault }) };
    const res = await fetch(`${c.server.url.replace(/\/v1$/, '')}${a.path}`, a.body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(a.body) });
    // Ids and clocks differ from one answer to the next whatever the fault.
    const text = (await res.text()).replace(/\b(resp|msg|fc|call|rs|req)_[A-Za-z0-9]+/g, '$1_X').replace(/chatcmpl-[0-9a-f]+/g, 'chatcmpl-X').replace(/"(created|created_at|completed_at)":\s*\d+/g, '"$1":0');
    out.push(`${a.path} ${res.status} ${res.headers.get('content-type') ?? ''}\n${text}`);
  }
  return out;
}

describe('fault matrix: which client operations a fault runs', () => {
  it('a fault only chat\'s wire reads runs chat\'s client operations, a Responses fault the Responses API\'s, and one read elsewhere all of them', () => {
    const opsOf = (name: string): string[] => checksFor(faults.find((f) => f.name === name)!).filter((x) => x.area === 'clients').flatMap((x) => x.ids);
    expect(apiOf(faults.find((f) => f.name === 'stream-disconnect')!)).toBe('chat-completions');
    expect(opsOf('stream-disconnect').some((id) => id.startsWith('CLIENT-RESP-'))).toBe(false);
    expect(opsOf('stream-disconnect')).toContain('CLIENT-030');
    expect(opsOf('responses-object-wrong').every((id) => id.startsWith('CLIENT-RESP-'))).toBe(true);
    // legal-crlf is framed by mock-server/core/framing.ts, which writes every API's streams.
    expect(apiOf(faults.find((f) => f.name === 'legal-crlf')!)).toBeUndefined();
    expect(opsOf('legal-crlf')).toEqual(expect.arrayContaining(['CLIENT-030', 'CLIENT-RESP-006']));
  });

  const scoped = faults.filter((f) => apiOf(f) !== undefined && checksFor(f).some((x) => x.area === 'clients'));
  it(`each of the ${scoped.length} faults applied on one API leaves the other API's answers as the faithful mock gives them`, async () => {
    const faithful = { 'chat-completions': await answers('chat-completions'), responses: await answers('responses') };
    expect(await answers('responses'), 'the faithful answers, ids and clocks aside, are the same twice').toEqual(faithful.responses);
    const moved: string[] = [];
    for (const f of scoped) {
      for (const other of Object.keys(asks).filter((api) => api !== apiOf(f))) {
        const got = await answers(other, f.name);
        got.forEach((g, i) => {
          if (g !== faithful[other as keyof typeof faithful][i]) moved.push(`${f.name} moved ${other}'s ${asks[other]?.[i]?.path}: ${g.slice(0, 160)}`);
        });
      }
    }
    expect(moved).toEqual([]);
  });
});
