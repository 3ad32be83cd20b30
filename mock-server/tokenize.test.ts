import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { startClient, type Client } from '../test-support/mock-client.ts';

let c: Client;
let url = '';
beforeAll(async () => {
  c = await startClient();
  url = `${new URL(c.server.url).origin}/tokenize`;
});
afterAll(() => c.close());

const post = (body: string, token: string | null = c.server.tokens.default): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, body });

describe('mock POST /tokenize (llama.cpp server\'s shape)', () => {
  it('LOAD-TOKENIZER: answers {"tokens":[ids]} of its own o200k tokenizer, no BOS, guarded by the API key like llama.cpp\'s', async () => {
    const res = await post(JSON.stringify({ content: ' hello world' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tokens: encode(' hello world') });
    expect((await post(JSON.stringify({ content: 'x' }), null)).status).toBe(401);
    expect((await fetch(url)).status).toBe(405);
  });

  it('LOAD-TOKENIZER: a malformed body is an OpenAI-style 400 naming the field', async () => {
    for (const [body, param] of [['{"content":5}', 'content'], ['{}', 'content'], ['[1]', 'content'], ['{bad', null]] as const) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      const e = ((await res.json()) as { error: { type: string; param: string | null; message: string } }).error;
      expect(e.type).toBe('invalid_request_error');
      expect(e.param, body).toBe(param);
    }
  });
});
