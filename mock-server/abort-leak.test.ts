import { describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { chat, startClient, waitFor } from '../test-support/mock-client.ts';

function count(kind: string): number {
  return process.getActiveResourcesInfo().filter((r) => r === kind).length;
}

async function connections(server: import('node:http').Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
}

describe('vanishing clients', () => {
  it('1,000 aborted streams leave no streams, timers or sockets behind', async () => {
    const c = await startClient({ ttftMs: 5, itlMs: 40, completionTokens: 200, limits: false });
    const agent = new Agent({ connections: 128 });
    try {
      const body = JSON.stringify(chat({ stream: true }));
      const headers = { authorization: `Bearer ${c.server.tokens.default}`, 'content-type': 'application/json' };
      // Warm up so lazily created handles (timer lists, the connection checker) are in the baseline.
      await (await undiciFetch(`${c.server.url}/chat/completions`, { method: 'POST', headers: { ...headers, 'x-iari-itl-ms': '0' }, body, dispatcher: agent })).text();
      const timersBefore = count('Timeout');
      const socketsBefore = count('TCPSocketWrap');
      for (let batch = 0; batch < 10; batch++) {
        await Promise.all(
          Array.from({ length: 100 }, async () => {
            const abort = new AbortController();
            const res = await undiciFetch(`${c.server.url}/chat/completions`, { method: 'POST', headers, body, signal: abort.signal, dispatcher: agent });
            const reader = res.body!.getReader();
            await reader.read();
            abort.abort();
            await reader.read().catch(() => undefined);
          }),
        );
      }
      await waitFor(() => c.server.admin.activeStreams() === 0, 5_000);
      await agent.close();
      await waitFor(() => count('Timeout') <= timersBefore + 2, 5_000);
      await waitFor(() => count('TCPSocketWrap') <= socketsBefore, 5_000);
      let open = -1;
      for (let i = 0; i < 100 && open !== 0; i++) {
        open = await connections(c.server.httpServer);
        if (open !== 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(open).toBe(0);
      const log = c.server.sendLog;
      const interrupted = log.ids(1_000).map((id) => log.get(id)).filter((r) => r?.interrupted === true);
      expect(interrupted.length).toBe(1_000);
    } finally {
      await agent.destroy().catch(() => undefined);
      await c.close();
    }
  });

  it('closing the server ends streams in flight and releases the port', async () => {
    const c = await startClient({ itlMs: 50, completionTokens: 100 });
    const res = await c.chat(chat({ stream: true }));
    const reader = res.body!.getReader();
    await reader.read();
    expect(c.server.admin.activeStreams()).toBe(1);
    await c.close();
    expect(c.server.admin.activeStreams()).toBe(0);
    expect(c.server.httpServer.listening).toBe(false);
    await expect(fetch(`${c.server.url}/models`)).rejects.toThrow();
  });
});
