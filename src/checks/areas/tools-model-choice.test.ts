/**
 * Issue 27 part 3, judge the server, not the model: an answer without a tool call is the server's
 * failure only where the server forces calls (tool_choice honoured); elsewhere it was the model's
 * choice and the requirement is undecided, saying so. The same for an empty text answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';
import { textProblem } from '../clients/client-op.ts';
import { toolsChecks } from './tools.ts';

type Mode = 'ignores-tools' | 'honours-but-not-weather';
let server: EndlessServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function answer(res: ServerResponse, message: Record<string, unknown>, finish: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }));
}

/** `ignores-tools`: text to every request. `honours-but-not-weather`: tool_choice required and a named get_time are honoured, a named get_weather is answered with text. */
async function start(mode: Mode): Promise<string> {
  server = await startEndlessServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (b: Buffer) => (raw += b.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"list","data":[{"id":"m1","object":"model","created":1,"owned_by":"x"}]}');
        return;
      }
      const body = JSON.parse(raw) as { tool_choice?: unknown };
      const choice = body.tool_choice;
      const named = typeof choice === 'object' && choice !== null ? (choice as { function?: { name?: string } }).function?.name : undefined;
      const call = (name: string): void => answer(res, { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: '{"city":"Zürich"}' } }] }, 'tool_calls');
      if (mode === 'honours-but-not-weather' && choice === 'required') return call('get_weather');
      if (mode === 'honours-but-not-weather' && named !== undefined && named !== 'get_weather') return call(named);
      answer(res, { content: 'Hello.' }, 'stop');
    });
  });
  return server.root;
}

async function toolsVerdicts(mode: Mode): Promise<Record<string, { verdict: string; reason?: string }>> {
  const root = await start(mode);
  const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
  const shape = toolsChecks.find((c) => c.name === 'tools-call-shape');
  if (shape === undefined) throw new Error('no tools-call-shape check');
  const outcomes = await runCheck(shape, ctx, () => 'MUST');
  return Object.fromEntries(outcomes.map((o) => [o.id, o as { verdict: string; reason?: string }]));
}

describe('an answer without a tool call: the server or the model', () => {
  it('TOOLS-002: a server that does not force calls (tool_choice ignored) and answers text is undecided, naming the model and the capability', async () => {
    const byId = await toolsVerdicts('ignores-tools');
    expect(byId['TOOLS-002']).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/^undecided: the model made no tool call and nothing forced one \(finish reason "stop"; tool_choice ignored: /) });
  });

  it('TOOLS-002: a server that honours tool_choice and still answers a forced tool with text fails', async () => {
    const byId = await toolsVerdicts('honours-but-not-weather');
    expect(byId['TOOLS-002']).toMatchObject({ verdict: 'fail' });
  });

  it('CLIENT text answers: empty text the server ended with stop is undecided where the client tells it from missing text; missing text, or empty text without a finish reason, stays a problem', () => {
    expect(textProblem('', 'stop', true)).toEqual({ skip: expect.stringMatching(/^undecided: the model answered no text/) });
    // The AI SDK and LangChain make "" of a missing content too (fault content-missing): still a problem there.
    expect(textProblem('', 'stop')).toMatchObject({ problem: expect.stringMatching(/empty text/) });
    expect(textProblem('', 'length', true)).toBeUndefined();
    expect(textProblem('', undefined, true)).toMatchObject({ problem: expect.stringMatching(/empty text/) });
    expect(textProblem(undefined, 'stop', true)).toMatchObject({ problem: 'the client returned no text' });
  });
});
