import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { startClosingFront, type CloseMode } from '../../../suites/load/closing-front.ts';
import { checkByName } from '../runner/catalog.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runChecksInProcess } from '../runner/run-catalog.ts';
import type { CheckOutcome } from '../context/check-types.ts';

const firstMessage = (o: CheckOutcome | undefined): string | undefined => (o !== undefined && 'failures' in o ? o.failures[0]?.message : undefined);

// HDR-017 against servers that close a connection after a streamed answer, as llama.cpp's does
// (the fault matrix proves the mock fault; these are the other forms a real server shows).
describe('HDR-017: a connection left open after a streamed answer takes the next request', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0 });
  });
  afterAll(() => mock.close());

  const judge = async (root: string): Promise<CheckOutcome | undefined> => {
    const ctx = createCheckContext({ root, token: mock.tokens.default, seed: 7, target: 'external', includeLimits: false, pacePerSecond: 1000 });
    try {
      return (await runChecksInProcess(ctx, [checkByName('headers-keep-alive-after-stream')])).outcomes.get('HDR-017');
    } finally {
      await ctx.close();
    }
  };
  const through = async (mode: CloseMode, options: { connectionClose?: boolean } = {}): Promise<CheckOutcome | undefined> => {
    const front = await startClosingFront(Number(new URL(mock.origin).port), mode, options);
    try {
      return await judge(front.url);
    } finally {
      await front.close();
    }
  };

  it('HDR-017 passes when the connection takes the next request (the faithful mock)', async () => {
    expect(await judge(mock.origin)).toMatchObject({ verdict: 'pass' });
  });

  it('HDR-017 fails when the next request written on the connection dies unanswered, naming the Keep-Alive the stream said', async () => {
    const o = await through('on-next-request');
    expect(o?.verdict).toBe('fail');
    expect(firstMessage(o)).toMatch(/^the next request written on the connection the streamed answer came on \(Connection: keep-alive, Keep-Alive: timeout=5, max=100\) got no answer: /);
  });

  it('HDR-017 fails when the connection closes as the stream ends (llama.cpp\'s timing), either way the close meets the next request', async () => {
    const o = await through('after-answer');
    expect(o?.verdict).toBe('fail');
    expect(firstMessage(o)).toMatch(/Keep-Alive: timeout=5, max=100\)/);
  });

  it('HDR-017 passes a server that closes after the stream and says Connection: close', async () => {
    expect(await through('after-answer', { connectionClose: true })).toMatchObject({ verdict: 'pass' });
  });
});
