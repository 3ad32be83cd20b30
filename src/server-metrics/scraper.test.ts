import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerScraper } from './scraper.ts';

const TOKEN = 'sk-test-scraper-token-0123456789';
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** A server that records the headers it got and answers with `answer`. */
async function serve(answer: (h: IncomingHttpHeaders, res: import('node:http').ServerResponse) => void): Promise<{ origin: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const s = createServer((req, res) => {
    seen.push(req.headers);
    answer(req.headers, res);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen };
}

const needsKey = (h: IncomingHttpHeaders, res: import('node:http').ServerResponse): void => {
  if (h.authorization !== `Bearer ${TOKEN}`) res.writeHead(401).end('{"error":"unauthorized"}');
  else res.writeHead(200, { 'content-type': 'text/plain' }).end('vllm:num_requests_running 1\n');
};

describe('scraper', () => {
  it('sends the run token to the target origin only after a 401 without it, and keeps sending it', async () => {
    const target = await serve(needsKey);
    const s = new ServerScraper({ url: `${target.origin}/metrics`, targetOrigin: target.origin, token: TOKEN, headers: [] });
    await s.scrapeOnce();
    await s.scrapeOnce();
    const log = await s.stop(false);
    expect(target.seen.map((h) => h.authorization ?? null)).toEqual([null, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(log).toMatchObject({ sentToken: true, failureCount: 0, engine: 'vllm' });
    expect(log.points).toHaveLength(2);
  });

  it('never sends the run token to another origin: the 401 is a failed read that says to give a header, and that header is sent', async () => {
    const other = await serve(needsKey);
    const target = 'http://127.0.0.1:1';
    const s = new ServerScraper({ url: `${other.origin}/metrics`, targetOrigin: target, token: TOKEN, headers: [] });
    await s.scrapeOnce();
    const log = await s.stop(false);
    expect(other.seen.every((h) => h.authorization === undefined)).toBe(true);
    expect(log.failures[0]?.why).toMatch(/status 401 \(the run token is never sent to another origin: give --server-metrics-header\)/);
    const withHeader = new ServerScraper({ url: `${other.origin}/metrics`, targetOrigin: target, token: TOKEN, headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }] });
    await withHeader.scrapeOnce();
    expect((await withHeader.stop(false)).points).toHaveLength(1);
  });

  it('bounds each read: an answer over maxBytes and one that never ends are failed reads within the timeout, never a throw', async () => {
    const big = await serve((_, res) => res.writeHead(200).end('x 1\n'.repeat(10_000)));
    const s = new ServerScraper({ url: `${big.origin}/metrics`, targetOrigin: big.origin, token: null, headers: [], maxBytes: 1000 });
    await s.scrapeOnce();
    expect((await s.stop(false)).failures[0]?.why).toBe('the answer is over 1000 bytes');
    const stall = await serve((_, res) => res.writeHead(200).write('x 1\n'));
    const t = new ServerScraper({ url: `${stall.origin}/metrics`, targetOrigin: stall.origin, token: null, headers: [], timeoutMs: 300 });
    const t0 = performance.now();
    await t.scrapeOnce();
    expect(performance.now() - t0).toBeLessThan(2000);
    expect((await t.stop(false)).failures[0]?.why).toBe('no whole answer within 300 ms');
  });

  it('keeps a counter that went down with both values, and stamps reads on the given monotonic clock', async () => {
    let n = 0;
    const target = await serve((_, res) => res.writeHead(200).end(`# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total ${[10, 30, 20][n++] ?? 0}\n`));
    let clock = 1000n;
    const s = new ServerScraper({ url: `${target.origin}/metrics`, targetOrigin: target.origin, token: null, headers: [], now: () => (clock += 5n) });
    for (let i = 0; i < 3; i++) await s.scrapeOnce();
    const log = await s.stop(false);
    expect(log.decreases).toEqual([{ series: 'vllm:generation_tokens_total', from: 30, to: 20, atNs: log.points[2]!.atNs }]);
    expect(log.points.map((p) => p.atNs)).toEqual([1005n, 1015n, 1025n]);
  });
});
