import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';
import { defaultLoadModel } from './default-load-model.ts';

const TOKEN = 'sk-first-model-canary-0123456789';
let server: EndlessServer;
let root: string;
let answer: 'list' | 'silent' | 'huge' | 'echo-token' = 'list';

beforeAll(async () => {
  server = await startEndlessServer((req, res) => {
    req.resume();
    if (answer === 'silent') return;
    if (answer === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"data":[{"id":"m"}],"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`);
      return;
    }
    if (answer === 'echo-token') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bad key ${String(req.headers.authorization)}` } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: req.headers.authorization === `Bearer ${TOKEN}` ? 'model-a' : 'unauthenticated' }, { id: 'model-b' }] }));
  });
  root = `${server.root}/v1`;
});
afterAll(() => server.close());

async function refusal(budgetMs = 5_000): Promise<Error> {
  return defaultLoadModel('iari load', root, TOKEN, undefined, budgetMs).then(
    (id) => new Error(`picked ${id}`),
    (e: unknown) => e as Error,
  );
}

describe('defaultLoadModel (the model a load run uses when none is given)', () => {
  it('LOAD-MODEL: picks the first listed model, asking with the token', async () => {
    answer = 'list';
    expect(await defaultLoadModel('iari load', root, TOKEN)).toBe('model-a');
  });

  it('HDR-012: a server that never answers is refused within the budget, naming the deadline, with the hint to pass --model', async () => {
    answer = 'silent';
    const started = Date.now();
    const e = await refusal(300);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(e.message).toBe('iari load: cannot pick a model: no complete answer within 0.3 s, the deadline before the run (headers)');
    expect((e as { hint?: string }).hint).toBe('pass --model ID');
  });

  it('HDR-013: a model list larger than 4 MiB is refused, not read whole', async () => {
    answer = 'huge';
    expect((await refusal()).message).toBe('iari load: cannot pick a model: the body is larger than 4 MiB');
  });

  it('LOAD-MODEL: an answer without a model id is refused with its status, and the token never appears', async () => {
    answer = 'echo-token';
    const e = await refusal();
    expect(e.message).toMatch(/^iari load: cannot pick a model: GET http:\/\/127\.0\.0\.1:\d+\/v1\/models answered 401: the server refused the token$/);
    expect((e as { hint?: string }).hint).toBe("check the token; --model ID skips the model list, not the server's auth");
    expect(JSON.stringify({ m: e.message, h: (e as { hint?: string }).hint })).not.toContain(TOKEN);
  });
});
