import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { isHarnessError } from '../../errors.ts';
import { serverWordCounts, tokenCountOf } from './server-tokenize.ts';

let server: Server | undefined;
const agent = new Agent();
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const refusal = async (p: Promise<unknown>): Promise<{ exit: number | undefined; message: string }> => {
  const e = await p.then(() => null, (x: unknown) => x);
  return { exit: isHarnessError(e) ? e.exitCode : undefined, message: (e as Error | null)?.message ?? 'no error' };
};

describe('server-tokenize: the vocabulary counted by the server\'s /tokenize', () => {
  it('LOAD-TOKENIZER: llama.cpp\'s answer is counted by its token array, ids or {id, piece}; anything else is no count', () => {
    expect(tokenCountOf('{"tokens":[1,2,3]}')).toBe(3);
    expect(tokenCountOf('{"tokens":[{"id":5,"piece":" a"},{"id":6,"piece":"b"}]}')).toBe(2);
    for (const bad of ['{"tokens":[]}', '{"tokens":"1 2"}', '{"tokens":[1.5]}', '{"ids":[1]}', 'null', '[1,2]', 'not json']) expect(tokenCountOf(bad), bad).toBeNull();
  });

  it('LOAD-TOKENIZER: every word is counted alone and after a space, with the run\'s headers, at most 4 at a time', async () => {
    const seen: { content: string; auth: string | undefined }[] = [];
    let inFlight = 0;
    let most = 0;
    const origin = await serve((req, body, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const content = (JSON.parse(body) as { content: string }).content;
      seen.push({ content, auth: req.headers.authorization });
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ tokens: Array.from({ length: content.length }, (_, i) => i) }));
      }, 5);
    });
    const counts = await serverWordCounts({ origin, headers: { authorization: 'Bearer t0ken-xyz' }, dispatcher: agent }, ['a', 'bb', 'ccc', 'dddd', 'eeeee']);
    expect(counts).toEqual({ alone: [1, 2, 3, 4, 5], spaced: [2, 3, 4, 5, 6] });
    expect(seen.map((s) => s.content).sort()).toEqual(['a', 'bb', 'ccc', 'dddd', 'eeeee', ' a', ' bb', ' ccc', ' dddd', ' eeeee'].sort());
    expect(new Set(seen.map((s) => s.auth))).toEqual(new Set(['Bearer t0ken-xyz']));
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThan(1);
  });

  it('LOAD-TOKENIZER: a non-200, a 200 without a token array, an oversized body or no answer within the bound refuses with exit 2 naming the URL', async () => {
    let mode: 'status' | 'body' | 'huge' | 'silent' = 'status';
    const origin = await serve((_req, _body, res) => {
      if (mode === 'silent') return;
      if (mode === 'status') res.writeHead(503).end('busy');
      else if (mode === 'body') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ids":[1]}');
      else res.writeHead(200).end('x'.repeat(200_000));
    });
    const target = { origin, headers: {}, dispatcher: agent, totalMs: 300 };
    expect(await refusal(serverWordCounts(target, ['a', 'b']))).toEqual({ exit: 2, message: `--tokenizer server: POST ${origin}/tokenize answered 503` });
    mode = 'body';
    expect((await refusal(serverWordCounts(target, ['a']))).message).toMatch(new RegExp(`^--tokenizer server: POST ${origin}/tokenize answered 200 without a \\{"tokens":\\[\\.\\.\\.\\]\\} array`));
    mode = 'huge';
    expect((await refusal(serverWordCounts(target, ['a']))).message).toBe(`--tokenizer server: POST ${origin}/tokenize answered more than 65536 bytes`);
    mode = 'silent';
    const t0 = Date.now();
    expect(await refusal(serverWordCounts(target, ['a']))).toEqual({ exit: 2, message: `--tokenizer server: POST ${origin}/tokenize did not count the vocabulary within 0.3 s` });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
