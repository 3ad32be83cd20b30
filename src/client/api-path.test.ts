import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertApiServed } from './api-path.ts';
import { run as runTest } from '../cli/test-command.ts';
import { run as runLoad } from '../cli/load-command.ts';
import { isHarnessError } from '../errors.ts';

/** A server that serves the OpenAI API under /openai/v1 only: everything else is 404. */
describe('a base URL whose path serves nothing (issue 43)', () => {
  let server: Server;
  let origin = '';
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      req.resume();
      if (req.url === '/openai/v1/models') res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"m","object":"model"}]}');
      else if (req.url === '/api/v1/chat/completions') res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"messages is required","type":"invalid_request_error","param":"messages","code":null}}');
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    process.env['IARI_API_PATH_TOKEN'] = 'api-path-token-123456';
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('two 404s (the model list and the API route) are one usage error naming the URL iari used and that /v1 was added', async () => {
    const error = await assertApiServed(`${origin}/wrong`, '/chat/completions', 't0k3n-12345678').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IARI_CONFIG_INVALID', exitCode: 2 });
    expect((error as Error).message).toBe(`nothing is served under ${origin}/wrong/v1: GET ${origin}/wrong/v1/models and POST ${origin}/wrong/v1/chat/completions both answered 404 (a base URL whose path does not end in /v1 gets /v1 added)`);
  });

  it('a path that serves the list, or the route (a 400 for the empty body), goes on to be judged', async () => {
    await expect(assertApiServed(`${origin}/openai`, '/chat/completions', 't0k3n-12345678')).resolves.toBeUndefined();
    await expect(assertApiServed(`${origin}/api`, '/chat/completions', 't0k3n-12345678')).resolves.toBeUndefined();
  });

  it('iari test and iari load (even with --model) against a wrong path exit 2 after at most two probe requests, judging and loading nothing', async () => {
    const code = async (p: Promise<number>): Promise<number> => p.catch((e: unknown) => (isHarnessError(e) ? e.exitCode : -1));
    hits.length = 0;
    expect(await code(runTest(['--base-url', `${origin}/wrong`, '--token-env', 'IARI_API_PATH_TOKEN']))).toBe(2);
    expect(hits).toEqual(['GET /wrong/v1/models', 'POST /wrong/v1/chat/completions']);
    hits.length = 0;
    expect(await code(runLoad(['--base-url', `${origin}/wrong/v1`, '--token-env', 'IARI_API_PATH_TOKEN', '--model', 'm', '--duration', '2s']))).toBe(2);
    expect(hits).toEqual(['GET /wrong/v1/models', 'POST /wrong/v1/chat/completions']);
  }, 60_000);
});
