import { describe, expect, it } from 'vitest';
import { CheckThread } from './check-thread.ts';

describe('check worker start', () => {
  it('gives up on a worker that has not loaded within its start timeout, so checking can fall back in-process', async () => {
    await expect(CheckThread.start(1)).rejects.toThrow(/did not start within 1 ms/);
  });

  it('starts a worker that reports ready, and closes it', async () => {
    const thread = await CheckThread.start();
    expect(thread.usable).toBe(true);
    await thread.close();
    expect(thread.usable).toBe(false);
  });
});
