import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { ownRequest } from './own-request.ts';

// A server that writes a piece every 20 ms for 2 s, and tells when the client's connection closed.
let server: Server | undefined;
let closedAt: number | null = null;
async function start(): Promise<string> {
  closedAt = null;
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => res.write('data: {"choices":[{"delta":{"content":"x"}}]}\n\n'), 20);
    res.on('close', () => {
      clearInterval(timer);
      closedAt = performance.now();
    });
    setTimeout(() => res.end(), 2_000);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('a request the client cuts on purpose', () => {
  it('CANCEL-001: cutWhen closes the connection mid-body: the server sees it go, the answer keeps what came and has no error', async () => {
    const origin = await start();
    const d = new Agent();
    let pieces = 0;
    const a = await ownRequest(d, { origin, path: '/', method: 'POST', headers: {}, body: '{}', deadlineMs: 5_000, maxBytes: 1 << 20, cutWhen: () => ++pieces >= 3 });
    expect(a.status).toBe(200);
    expect(a.error).toBeNull();
    expect(a.complete).toBe(false);
    expect(a.cutAt).not.toBeNull();
    expect(a.text).toContain('data:');
    await new Promise((r) => setTimeout(r, 200));
    expect(closedAt).not.toBeNull();
    expect((closedAt as number) - (a.cutAt as number)).toBeLessThan(200);
    await d.destroy();
  });

  it('CANCEL-003: cutAfterMs closes it on time, and without a cut the answer is read whole', async () => {
    const origin = await start();
    const d = new Agent();
    const a = await ownRequest(d, { origin, path: '/', method: 'POST', headers: {}, body: '{}', deadlineMs: 5_000, maxBytes: 1 << 20, cutAfterMs: 100 });
    expect(a.cutAt! - a.sentAt).toBeGreaterThanOrEqual(95);
    expect(a.complete).toBe(false);
    const whole = await ownRequest(d, { origin, path: '/', method: 'POST', headers: {}, body: '{}', deadlineMs: 5_000, maxBytes: 1 << 20 });
    expect(whole.complete).toBe(true);
    expect(whole.cutAt).toBeNull();
    await d.destroy();
  });
});
