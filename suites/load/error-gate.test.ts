/**
 * Issue 43, item 2: `iari load --concurrency 10000 --duration 5s` against a 4-slot server ended with
 * 14 ok and 9,993 timeouts (99.86%) and exit 0, because no --slo was given. A run whose error rate
 * is over the default gate (docs/load.md, "Failed runs") fails closed with exit 3 and says so on
 * its first line; the user's own errors SLO replaces the gate.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/load-command.ts';
import type { LoadResult } from '../../src/load/results/load-result.ts';

let server: Server;
let base = '';
let dir: string;
/** Every `failEvery`-th request answers 500; the others a valid chat completion. */
let failEvery = 1;
let n = 0;
let out = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      if (n % failEvery === 0) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"busy","type":"server_error"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  dir = mkdtempSync(join(tmpdir(), 'iari-error-gate-'));
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  process.env['IARI_ERROR_GATE_TOKEN'] = 'sk-error-gate-test';
});

afterAll(async () => {
  vi.restoreAllMocks();
  delete process.env['IARI_ERROR_GATE_TOKEN'];
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function load(every: number, extra: string[] = []): Promise<{ code: number; first: string; result: LoadResult }> {
  failEvery = every;
  n = 0;
  out = '';
  const report = join(dir, `r-${every}-${extra.length}`);
  const code = await run(['--base-url', base, '--token-env', 'IARI_ERROR_GATE_TOKEN', '--model', 'm', '--no-stream', '--concurrency', '2', '--requests', '40', '--report', report, ...extra]);
  const result = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult;
  return { code, first: out.split('\n')[0] ?? '', result };
}

describe('the default error-rate gate', () => {
  it('a run with no --slo whose error rate is over 5% exits 3, and its first line says why', async () => {
    const { code, first, result } = await load(2);
    expect(result.errors.rate).toBeGreaterThan(0.4);
    expect(code).toBe(3);
    expect(first).toMatch(/^iari load: FAILED: \d+\.\d\d% of the finished requests failed .*over the default gate errors\.rate<=5%/);
    const gate = result.slos.find((s) => s.isDefault === true);
    expect(gate).toMatchObject({ expr: 'errors.rate<=5%', passed: false });
    expect(result.slosPassed).toBe(false);
  });

  it('a run under the gate exits 0, with the gate shown as met', async () => {
    const { code, result } = await load(1000);
    expect(result.errors.total).toBe(0);
    expect(code).toBe(0);
    expect(result.slos.find((s) => s.isDefault === true)?.passed).toBe(true);
  });

  it('the user\'s own errors SLO replaces the gate', async () => {
    const { code, result } = await load(2, ['--slo', 'errors.rate<=100%']);
    expect(code).toBe(0);
    expect(result.slos.map((s) => s.expr)).toEqual(['errors.rate<=100%']);
  });
});
