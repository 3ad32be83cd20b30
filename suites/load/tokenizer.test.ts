import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { run } from '../../src/cli/load-command.ts';
import { isHarnessError } from '../../src/errors.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { syntheticVocabulary } from '../../src/load/workloads/workload.ts';
import { startLoadMock } from './load-fixtures.ts';

/**
 * Issue 43 item 11: "Prompt tokens are counted with o200k ... with no way to use the model's
 * tokenizer." `--tokenizer server` counts the synthetic prompts with the server's own POST
 * /tokenize (llama.cpp's), says so in load.json and the summary, and refuses to start (exit 2)
 * when the server has no such route.
 */
describe('iari load --tokenizer server', () => {
  let mock: MockServer;
  let front: Server;
  let bare: Server;
  let frontBase = '';
  let bareBase = '';
  const tokenizeAuth: (string | undefined)[] = [];
  let bareHits = 0;
  let dir = '';
  let out = '';
  const TOKEN = 'front-secret-token-1234';
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 2, itlMs: 1, completionTokens: 4 });
    const target = new URL(mock.url);
    const forward = (req: IncomingMessage, res: ServerResponse): void => {
      const headers = { ...req.headers, host: target.host, authorization: `Bearer ${mock.tokens.default}` };
      const fwd = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      fwd.on('error', () => res.destroy());
      req.pipe(fwd);
    };
    // A server whose tokenizer splits differently: every word after a space is two tokens, a
    // prompt's first word one. Everything else goes on to the mock.
    front = createServer((req, res) => {
      if (req.url === '/tokenize') {
        tokenizeAuth.push(req.headers.authorization);
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const content = (JSON.parse(body) as { content: string }).content;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ tokens: content.startsWith(' ') ? [220, 1000] : [1000] }));
        });
        return;
      }
      forward(req, res);
    });
    // A server without /tokenize (404, as a vLLM or any OpenAI-compatible server answers it) in front of the mock.
    bare = createServer((req, res) => {
      if (req.url !== '/tokenize') {
        if (req.url?.endsWith('/completions') === true) bareHits++;
        forward(req, res);
        return;
      }
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"File Not Found","type":"not_found_error","param":null,"code":404}}');
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    frontBase = `http://127.0.0.1:${(front.address() as { port: number }).port}/v1`;
    bareBase = `http://127.0.0.1:${(bare.address() as { port: number }).port}/v1`;
    dir = mkdtempSync(join(tmpdir(), 'iari-tokenizer-'));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((r) => front.close(() => r()));
    await new Promise<void>((r) => bare.close(() => r()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const load = async (name: string, argv: string[]): Promise<{ r: LoadResult; measured: RequestRecord[]; text: string }> => {
    out = '';
    const report = join(dir, name);
    expect(await run([...argv, '--report', report])).toBe(0);
    const r = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult;
    const lines = readFileSync(join(report, 'requests.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestRecord);
    return { r, measured: lines.filter((l) => l.phase === 'measure' && l.error === null), text: out };
  };

  it('LOAD-TOKENIZER: on the bundled mock the asked prompt totals are its /tokenize counts, its usage.prompt_tokens minus its 7 tokens of chat framing (3 + 3 + "user")', async () => {
    const { r, measured, text } = await load('mock', ['--tokenizer', 'server', '--input-tokens', '64,8', '--output-tokens', '4', '--concurrency', '4', '--requests', '24', '--quiet']);
    expect(r.tokens?.promptCountedBy).toBe('server /tokenize');
    expect(measured.length).toBeGreaterThanOrEqual(20);
    for (const l of measured) expect((l.promptTokens ?? 0) - (l.requested?.prompt ?? 0)).toBe(7);
    expect(text).toContain("prompt lengths asked, counted by: the server's own tokenizer (POST /tokenize, --tokenizer server)");
    const html = readFileSync(join(dir, 'mock', 'report.html'), 'utf8');
    expect(html).toContain('prompt lengths counted by');
    expect(html).toContain('POST /tokenize, --tokenizer server');
  }, 60_000);

  it('LOAD-TOKENIZER: the asked lengths follow the server\'s counts, not o200k: a tokenizer with two tokens per " word" doubles them, and the run\'s token goes with every /tokenize', async () => {
    const before = process.env['IARI_TOKEN'];
    process.env['IARI_TOKEN'] = TOKEN;
    try {
      const { r, measured } = await load('front', ['--base-url', frontBase, '--tokenizer', 'server', '--input-tokens', '50', '--output-tokens', '4', '--concurrency', '2', '--requests', '8', '--quiet']);
      // 50 words: the first one token, 49 after a space two each.
      expect(measured.length).toBeGreaterThanOrEqual(6);
      for (const l of measured) expect(l.requested?.prompt).toBe(1 + 2 * 49);
      expect(r.tokens?.promptComparison?.askedMean).toBe(99);
    } finally {
      if (before === undefined) delete process.env['IARI_TOKEN'];
      else process.env['IARI_TOKEN'] = before;
    }
    expect(tokenizeAuth.length).toBeGreaterThan(100);
    expect(new Set(tokenizeAuth)).toEqual(new Set([`Bearer ${TOKEN}`]));
  }, 60_000);

  it('LOAD-TOKENIZER: the runs of one scenario share one count per server: --repeat 3 asks /tokenize for each word once (alone and after a space), not once per run', async () => {
    const before = process.env['IARI_TOKEN'];
    process.env['IARI_TOKEN'] = TOKEN;
    const asked = tokenizeAuth.length;
    try {
      const { measured } = await load('front-repeat', ['--base-url', frontBase, '--tokenizer', 'server', '--input-tokens', '50', '--output-tokens', '4', '--concurrency', '2', '--requests', '6', '--repeat', '3', '--quiet']);
      for (const l of measured) expect(l.requested?.prompt).toBe(1 + 2 * 49);
    } finally {
      if (before === undefined) delete process.env['IARI_TOKEN'];
      else process.env['IARI_TOKEN'] = before;
    }
    expect(tokenizeAuth.length - asked).toBe(2 * syntheticVocabulary().length);
  }, 60_000);

  it('LOAD-TOKENIZER: a server without /tokenize refuses the run, exit 2, one line naming the URL and the status, and no chat request is sent', async () => {
    const error = await run(['--base-url', bareBase, '--tokenizer', 'server', '--input-tokens', '32', '--requests', '4', '--quiet']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const port = new URL(bareBase).port;
    expect((error as Error).message).toBe(`--tokenizer server: POST http://127.0.0.1:${port}/tokenize answered 404`);
    expect(bareHits).toBe(0);
  });

  it('LOAD-TOKENIZER: by default the prompts are counted with o200k, and the run says so', async () => {
    const { r, measured, text } = await load('default', ['--input-tokens', '64', '--output-tokens', '4', '--concurrency', '2', '--requests', '8', '--quiet']);
    expect(r.tokens?.promptCountedBy).toBe('o200k');
    for (const l of measured) expect(l.requested?.prompt).toBe(64);
    expect(text).toContain("prompt lengths asked, counted by: iari's o200k tokenizer");
  }, 60_000);
});
