import { describe, expect, it } from 'vitest';
import { CheckThread, WORKER_BYTE_BUDGET } from './check-thread.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

describe('check worker start', () => {
  it('gives up on a worker that has not loaded within its start timeout, so checking can fall back in-process', async () => {
    await expect(CheckThread.start(defaultProtocols, 1)).rejects.toThrow(/did not start within 1 ms/);
  });

  it('starts a worker that reports ready, and closes it', async () => {
    const thread = await CheckThread.start(defaultProtocols);
    expect(thread.usable).toBe(true);
    await thread.close();
    expect(thread.usable).toBe(false);
  });

  it('bounds the bytes in flight to the worker: past the budget backlog() holds reads back until the worker has checked them', async () => {
    const thread = await CheckThread.start(defaultProtocols);
    try {
      expect(thread.backlog()).toBeNull();
      const id = thread.open(() => undefined);
      thread.headers(id, true, 200, 'text/event-stream', { api: 'chat-completions', stream: true, includeUsage: true });
      thread.data(id, Buffer.alloc(WORKER_BYTE_BUDGET + 1, 0x0a), process.hrtime.bigint());
      const wait = thread.backlog();
      expect(wait).not.toBeNull();
      await wait;
      expect(thread.backlog()).toBeNull();
    } finally {
      await thread.close();
    }
  });
});
