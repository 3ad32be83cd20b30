/**
 * Issue 27, judge the server, not the model: a structured answer cut by the length bound
 * (finish_reason "length") is undecided, never the server's FAIL; an answer that is not JSON up to
 * its cut, or that claims to have ended ("stop"), is still judged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';
import { isUnfinishedJson } from '../wire/structured-output.ts';
import { chatFormatChecks } from './chat-format.ts';

let server: EndlessServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every chat request is answered `content` with `finish`, streamed when asked. */
async function start(content: string, finish: string): Promise<string> {
  server = await startEndlessServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (b: Buffer) => (raw += b.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"object":"list","data":[{"id":"m1","object":"model","created":1,"owned_by":"x"}]}');
        return;
      }
      const base = { id: 'c1', created: 1, model: 'm1' };
      if ((JSON.parse(raw) as { stream?: boolean }).stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: Record<string, unknown>, f: string | null): string => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: f }] })}\n\n`;
        res.end(`${chunk({ role: 'assistant', content: '' }, null)}${chunk({ content }, null)}${chunk({}, finish)}data: [DONE]\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }], usage: { prompt_tokens: 5, completion_tokens: 96, total_tokens: 101 } }));
    });
  });
  return server.root;
}

async function verdicts(content: string, finish: string, name: string): Promise<Record<string, { verdict: string; reason?: string }>> {
  const root = await start(content, finish);
  const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
  try {
    const check = chatFormatChecks.find((c) => c.name === name);
    if (check === undefined) throw new Error(`no ${name} check`);
    const outcomes = await runCheck(check, ctx, () => 'MUST');
    return Object.fromEntries(outcomes.map((o) => [o.id, o as { verdict: string; reason?: string }]));
  } finally {
    await ctx.close();
  }
}

const CUT = '{"city":"Zürich","temperature_c":2';

describe('a structured answer cut by max_tokens', () => {
  it('CHAT-035, CHAT-036: JSON cut by the length bound (finish_reason "length") is undecided, naming the cut, streamed and not', async () => {
    const v = await verdicts(CUT, 'length', 'chat-json-schema');
    expect(v['CHAT-035']?.verdict).toBe('skipped');
    expect(v['CHAT-035']?.reason).toMatch(/^undecided: the answer was cut by the length bound \(finish_reason "length"\).*the model ran out of tokens/);
    expect(v['CHAT-036']?.verdict).toBe('skipped');
    expect(v['CHAT-036']?.reason).toMatch(/^undecided: the answer was cut by the length bound/);
  });

  it('CHAT-035, CHAT-036: the same cut JSON under finish_reason "stop" fails: the server said the answer was whole', async () => {
    const v = await verdicts(CUT, 'stop', 'chat-json-schema');
    expect(v['CHAT-035']?.verdict).toBe('fail');
    expect(v['CHAT-036']?.verdict).toBe('fail');
  });

  it('CHAT-035: prose cut by the length bound still fails: the server did not constrain the answer to JSON', async () => {
    const v = await verdicts('{"city": "Zürich"} is what I would answer, but', 'length', 'chat-json-schema');
    expect(v['CHAT-035']?.verdict).toBe('fail');
  });

  it('CHAT-034: a json_object answer cut by the length bound is undecided too', async () => {
    const v = await verdicts(CUT, 'length', 'chat-json-object');
    expect(v['CHAT-034']?.verdict).toBe('skipped');
    expect(v['CHAT-034']?.reason).toMatch(/^undecided: the answer was cut by the length bound/);
  });

  it('tells an unfinished JSON text from a broken one', () => {
    expect(['{"a":"x', '{"a":1', '{"a":1,', '[1, 2', '{"a": {"b": tr', ''].map(isUnfinishedJson)).toEqual([true, true, true, true, true, true]);
    expect(['{"a":1}', 'Sure {', '{"a":1}}', '{"a" 1', '{"a":1} and more'].map(isUnfinishedJson)).toEqual([false, false, false, false, false]);
  });
});
