import { describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.ts';
import { CheckThread, WORKER_BYTE_BUDGET } from './check-thread.ts';
import { defaultProtocols } from '../../protocols/registry.ts';
import type { CheckedPart } from './timing-builder.ts';

const MiB = 1024 * 1024;
const chunk = (delta: object, extra: object = {}): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
/** A conforming stream with usage: a sample. */
const GOOD = `${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'Hello' })}data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } })}\n\ndata: [DONE]\n\n`;

/** One response through the worker, as RequestTimer hands it over: reads of at most 64 KiB, the large flag while the event is past 1 MiB. */
function check(thread: CheckThread, body: string, status = 200): Promise<CheckedPart> {
  return new Promise((resolve) => {
    const id = thread.open(resolve);
    thread.headers(id, true, status, 'text/event-stream', { api: 'chat-completions', stream: true, includeUsage: true });
    const bytes = Buffer.from(body);
    for (let at = 0; at < bytes.length; at += 64 * 1024) thread.data(id, bytes.subarray(at, at + 64 * 1024), process.hrtime.bigint(), at > MiB);
    thread.end(id, true, process.hrtime.bigint());
  });
}

describe('check worker start', () => {
  it('gives up on a worker that has not loaded within its start timeout, so checking can fall back in-process', async () => {
    await expect(CheckThread.start(defaultProtocols, undefined, 1)).rejects.toThrow(/did not start within 1 ms/);
  });

  it('starts a worker that reports ready, and closes it', async () => {
    const thread = await CheckThread.start(defaultProtocols);
    expect(thread.usable).toBe(true);
    await thread.close();
    expect(thread.usable).toBe(false);
  });

  it('bounds the bytes in flight to the worker: past the budget its wait() holds reads back until the worker has checked them', async () => {
    const budget = new ByteBudget(WORKER_BYTE_BUDGET);
    const thread = await CheckThread.start(defaultProtocols, budget);
    try {
      expect(budget.wait()).toBeNull();
      const id = thread.open(() => undefined);
      thread.headers(id, true, 200, 'text/event-stream', { api: 'chat-completions', stream: true, includeUsage: true });
      thread.data(id, Buffer.alloc(WORKER_BYTE_BUDGET + 1, 0x0a), process.hrtime.bigint());
      const wait = budget.wait();
      expect(wait).not.toBeNull();
      await wait;
      expect(budget.wait()).toBeNull();
    } finally {
      await thread.close();
    }
  });

  it('CHAT-STREAM-046: keeps no spent read buffers of large events on the main thread: its young generation is collected every 4 MiB of them (issue 42)', async () => {
    const budget = new ByteBudget(WORKER_BYTE_BUDGET);
    const thread = await CheckThread.start(defaultProtocols, budget);
    try {
      const before = process.memoryUsage().arrayBuffers;
      const id = thread.open(() => undefined);
      thread.headers(id, true, 200, 'text/event-stream', { api: 'chat-completions', stream: true, includeUsage: true });
      // 24 MiB in reads of 64 KiB, each its own buffer as a socket read is, copied on once per flush (comment
      // lines, so the worker holds none of it: what is measured is this thread's).
      for (let i = 0; i < 384; i++) {
        const read = Buffer.alloc(64 * 1024, 0x61);
        read[0] = 0x3a;
        read[read.length - 1] = 0x0a;
        thread.data(id, read, process.hrtime.bigint(), true);
        if (i % 16 === 15) {
          await new Promise((r) => setImmediate(r));
          await budget.wait();
        }
      }
      await new Promise((r) => setImmediate(r));
      await thread.heap();
      // What remains is the worker's side (its allocator counts here) and at most 4 MiB not yet collected: 21-25 MiB without the collection.
      expect(process.memoryUsage().arrayBuffers - before, 'bytes of spent reads still held').toBeLessThan(16 * MiB);
    } finally {
      await thread.close();
    }
  });

  it('loads the tokenizer only after the first response that is a sample: against a server that fails every request, never (issue 42)', async () => {
    const thread = await CheckThread.start(defaultProtocols);
    try {
      const before = await thread.heap();
      expect(before, 'Worker.getHeapStatistics needs Node 22.16 or later').not.toBeNull();
      if (before === null) return;
      for (let i = 0; i < 3; i++) expect((await check(thread, chunk({ content: 'no role' }))).error?.class).toBe('stream_nonconforming');
      const failedOnly = (await thread.heap())?.used ?? 0;
      expect((await check(thread, GOOD)).error).toBeNull();
      const afterSample = (await thread.heap())?.used ?? 0;
      // gpt-tokenizer's o200k tables hold about 20 MiB of live heap once loaded.
      expect(failedOnly - before.used, 'heap grown by failed responses').toBeLessThan(8 * MiB);
      expect(afterSample - failedOnly, 'heap grown once a sample loaded the tokenizer').toBeGreaterThan(12 * MiB);
    } finally {
      await thread.close();
    }
  });
});
