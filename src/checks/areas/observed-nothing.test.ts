/**
 * Issue 37 item 2: a check that observed nothing decides nothing. A server that answers every route
 * 503 gives HDR-008 no non-streaming 200 to read the Content-Type of: undecided (skipped, saying
 * what it saw), not a FAIL; the 503s are their own requirements' findings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersChecks } from './headers.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';

let server: Server;
let root: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Loading model', type: 'unavailable_error' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a check that observed nothing decides nothing', () => {
  it('HDR-008: no non-streaming 200 response to inspect is undecided (skipped, naming the statuses seen), never a FAIL', async () => {
    const def = headersChecks.find((c) => c.name === 'headers-json-content-type');
    if (def === undefined) throw new Error('no check headers-json-content-type');
    const ctx = createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000, model: 'm1' });
    try {
      const [o] = await runCheck(def, ctx, () => 'MUST');
      expect(o?.verdict).toBe('skipped');
      expect(o?.verdict === 'skipped' ? o.reason : '').toMatch(/^undecided: no non-streaming 200 response to inspect \(GET \/v1\/models 503, .*chat completion 503/);
    } finally {
      await ctx.close();
    }
  });
});
