import { describe, expect, it } from 'vitest';
import { chat, RecordingIssuer, startClient, waitFor, type Client } from '../test-support/mock-client.ts';

// docs/mock-server.md, Cancellation: a client that goes away stops its request at once.

function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function metrics(c: Client): Promise<string> {
  return (await fetch(`${c.server.origin}/metrics`)).text();
}

async function monthTokens(c: Client): Promise<number> {
  const me = (await (await c.get('/me')).json()) as { usage: { tokens_this_month: number } };
  return me.usage.tokens_this_month;
}

/** Opens a request, reads `chunks` body reads (0: waits `holdMs` instead, running `during`), then closes the connection. */
async function cutStream(c: Client, chunks: number, headers: Record<string, string> = {}, stream = true, during?: () => Promise<void>): Promise<void> {
  const abort = new AbortController();
  const pending = c.chat(chat({ stream, max_tokens: 1000 }), { headers: { 'x-iari-ttft-ms': chunks === 0 ? '2000' : '5', 'x-iari-itl-ms': '20', 'x-iari-completion-tokens': '200', ...headers }, signal: abort.signal });
  pending.catch(() => undefined);
  if (chunks > 0) {
    const reader = (await pending).body!.getReader();
    for (let i = 0; i < chunks; i++) await reader.read();
  } else {
    await new Promise((r) => setTimeout(r, 100));
    await during?.();
  }
  abort.abort();
  await (await pending.catch(() => undefined))?.body?.cancel().catch(() => undefined);
}

describe('mock cancellation', () => {
  it('MOCK-CANCEL: a stream closed mid-way frees its --capacity slot at once: the next request does not wait for the rest of its schedule', async () => {
    const c = await startClient({ capacity: 1, limits: false });
    try {
      await cutStream(c, 2);
      await waitFor(() => c.server.admin.activeStreams() === 0);
      const t0 = performance.now();
      const res = await c.chat(chat({ max_tokens: 4 }), { headers: { 'x-iari-ttft-ms': '0', 'x-iari-itl-ms': '0' } });
      await res.text();
      // The cut stream's schedule ran 5 + 200 x 20 ms = 4 s; its slot is free now.
      expect(performance.now() - t0).toBeLessThan(1_500);
    } finally {
      await c.close();
    }
  });

  it('MOCK-CANCEL: /metrics running drops when the client leaves (mid-stream, during prefill, non-streamed), and bills only what was sent', async () => {
    const c = await startClient({ limits: false });
    try {
      for (const [chunks, stream] of [[2, true], [0, true], [0, false]] as const) {
        const before = await monthTokens(c);
        let inFlight = NaN;
        await cutStream(c, chunks, {}, stream, async () => {
          const text = await metrics(c);
          inFlight = gauge(text, 'vllm:num_requests_running') + gauge(text, 'vllm:num_requests_waiting');
        });
        if (chunks === 0) expect(inFlight).toBe(1);
        await waitFor(() => c.server.admin.activeStreams() === 0);
        await new Promise((r) => setTimeout(r, 50));
        expect(gauge(await metrics(c), 'vllm:num_requests_running')).toBe(0);
        const billed = (await monthTokens(c)) - before;
        // The prompt is a few tokens; the 200-token completion was never sent whole.
        expect(billed).toBeLessThan(60);
        if (chunks === 0) expect(billed).toBeLessThan(30);
      }
      expect(await metrics(c)).toMatch(/finished_reason="abort"\} 3/);
    } finally {
      await c.close();
    }
  });

  it('MOCK-CANCEL: a cut request gets an interrupted outcome paired to its gate; cancel-no-receipt leaves the gate unpaired', async () => {
    const issuer = new RecordingIssuer();
    const c = await startClient({ receipts: issuer, limits: false });
    try {
      await cutStream(c, 2);
      await waitFor(() => issuer.outcomes.length === 1);
      expect(issuer.outcomes[0]?.status).toBe('interrupted');
      await cutStream(c, 2, { 'x-iari-fault': 'cancel-no-receipt' });
      await waitFor(() => c.server.admin.activeStreams() === 0);
      await new Promise((r) => setTimeout(r, 50));
      expect(issuer.gates.length).toBe(2);
      expect(issuer.outcomes.length).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('MOCK-CANCEL: cancel-billed-full bills the whole planned completion', async () => {
    const c = await startClient({ limits: false });
    try {
      const before = await monthTokens(c);
      await cutStream(c, 2, { 'x-iari-fault': 'cancel-billed-full' });
      await waitFor(() => c.server.admin.activeStreams() === 0);
      await new Promise((r) => setTimeout(r, 50));
      expect((await monthTokens(c)) - before).toBeGreaterThanOrEqual(200);
    } finally {
      await c.close();
    }
  });

  it('MOCK-CANCEL: cancel-leaks-slot keeps the request running in /metrics and holds its --capacity slot', async () => {
    const c = await startClient({ capacity: 1, limits: false, ttftMs: 0, itlMs: 0 });
    try {
      await cutStream(c, 2, { 'x-iari-fault': 'cancel-leaks-slot', 'x-iari-completion-tokens': '10' });
      await new Promise((r) => setTimeout(r, 400));
      expect(gauge(await metrics(c), 'vllm:num_requests_running')).toBe(1);
      const abort = new AbortController();
      const late = setTimeout(() => abort.abort(), 500);
      // The one slot is never freed: the next request waits in line.
      await expect(c.chat(chat({ max_tokens: 4 }), { signal: abort.signal }).then((r) => r.text())).rejects.toThrow();
      clearTimeout(late);
    } finally {
      await c.close();
    }
  });

  it('MOCK-CANCEL: cancel-ignored goes on generating to the planned end and delays new first tokens meanwhile', async () => {
    const c = await startClient({ limits: false, ttftMs: 0, itlMs: 0 });
    try {
      await cutStream(c, 2, { 'x-iari-fault': 'cancel-ignored', 'x-iari-itl-ms': '5' });
      await new Promise((r) => setTimeout(r, 100));
      const early = await metrics(c);
      expect(gauge(early, 'vllm:num_requests_running')).toBe(1);
      // Its tokens count as the schedule makes them, not at its end only.
      await new Promise((r) => setTimeout(r, 200));
      expect(gauge(await metrics(c), 'vllm:generation_tokens_total')).toBeGreaterThan(gauge(early, 'vllm:generation_tokens_total'));
      const t0 = performance.now();
      await (await c.chat(chat({ max_tokens: 4 }))).text();
      expect(performance.now() - t0).toBeGreaterThanOrEqual(350);
      // 5 + 200 x 5 ms: the generation ends about 1 s after it began, with every token counted.
      await waitFor(() => c.server.admin.activeStreams() === 0);
      await new Promise((r) => setTimeout(r, 1_100));
      const text = await metrics(c);
      expect(gauge(text, 'vllm:num_requests_running')).toBe(0);
      expect(gauge(text, 'vllm:generation_tokens_total')).toBeGreaterThanOrEqual(200);
    } finally {
      await c.close();
    }
  });
});
