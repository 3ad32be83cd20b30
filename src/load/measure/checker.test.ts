import { describe, expect, it } from 'vitest';
import { Checker, checkWorkerCount, MAX_CHECK_WORKERS } from './checker.ts';
import { WORKER_BYTE_BUDGET, type CheckThread } from './check-thread.ts';
import { defaultProtocols } from '../../protocols/registry.ts';
import type { CheckedPart } from './timing-builder.ts';
import type { SentRequest } from '../../protocols/protocol.ts';
import { TimingBuilder, checkScope } from './timing-builder.ts';
import { exitingProtocol } from '../../../test-support/exiting-protocol.ts';

const EXITS = { api: 'exits-on-read', stream: true } as unknown as SentRequest;

const chunk = (delta: object, extra: object = {}): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const end = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}\n\ndata: [DONE]\n\n`;
const GOOD = `${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'Hello' })}${chunk({ content: ' there, how' })}${chunk({ content: ' are you' })}${end}`;
/** A stream whose second event has no role before content: a fault the checks must find. */
const NO_ROLE = `${chunk({ content: 'Hello' })}${end}`;
const SENT: SentRequest = { api: 'chat-completions', stream: true, includeUsage: true };

/** One response on `thread`, as RequestTimer hands it over, in reads of `step` bytes, each stamped 1 ms after the last. */
function check(thread: CheckThread, body: string, sent: SentRequest = SENT, step = 7): Promise<CheckedPart> {
  return new Promise((resolve) => {
    const id = thread.open(resolve);
    thread.headers(id, true, 200, 'text/event-stream', sent);
    const bytes = Buffer.from(body);
    let at = 0n;
    for (let i = 0; i < bytes.length; i += step) thread.data(id, bytes.subarray(i, i + step), (at += 1_000_000n));
    thread.end(id, true, at + 1_000_000n);
  });
}

/** The same response checked in this thread. */
function inProcess(body: string, step = 7): CheckedPart {
  const b = new TimingBuilder(true, SENT, checkScope(defaultProtocols));
  b.headers(200, 'text/event-stream');
  const bytes = Buffer.from(body);
  let at = 0n;
  for (let i = 0; i < bytes.length; i += step) b.feed(bytes.subarray(i, i + step), (at += 1_000_000n));
  return b.end(at + 1_000_000n);
}

describe('checkWorkerCount', () => {
  it('a worker per core beside the engine thread, no more than the responses open at once, at least one, at most MAX_CHECK_WORKERS', () => {
    expect(checkWorkerCount(32, 2)).toBe(1);
    expect(checkWorkerCount(32, 3)).toBe(2);
    expect(checkWorkerCount(32, 64)).toBe(MAX_CHECK_WORKERS);
    expect(MAX_CHECK_WORKERS).toBe(2);
    expect(checkWorkerCount(2, 16)).toBe(2);
    expect(checkWorkerCount(1, 16)).toBe(1);
    expect(checkWorkerCount(null, 16)).toBe(MAX_CHECK_WORKERS);
    expect(checkWorkerCount(8, 1)).toBe(1);
  });
});

describe('Checker with several check workers', () => {
  it('spreads responses over its workers, each wholly on one, with the results of checking in this thread (faults included)', async () => {
    const checker = await Checker.start(defaultProtocols, 2);
    try {
      const a = checker.assign();
      if (a === null) throw new Error('no worker');
      // assign() takes the worker with the fewest open: a response opened on `a` sends the next one to the other.
      const onA = check(a, GOOD);
      const b = checker.assign();
      if (b === null) throw new Error('no worker');
      const onB = check(b, NO_ROLE);
      const [good, bad] = await Promise.all([onA, onB]);
      expect(a).not.toBe(b);
      expect(good).toEqual(inProcess(GOOD));
      expect(bad).toEqual(inProcess(NO_ROLE));
      expect(bad.error?.class).toBe('stream_nonconforming');
      expect(good.error).toBeNull();
      expect(good.outputTokens).toBe(4);
    } finally {
      await checker.close();
    }
  });

  it('bounds the bytes in flight to all its workers together: past the budget on one, readers of every response wait', async () => {
    const checker = await Checker.start(defaultProtocols, 2);
    try {
      const a = checker.assign();
      if (a === null) throw new Error('no worker');
      const id = a.open(() => undefined);
      a.headers(id, true, 200, 'text/event-stream', SENT);
      a.data(id, Buffer.alloc(WORKER_BYTE_BUDGET / 2 + 1, 0x0a), 1n);
      expect(checker.backlog()).toBeNull();
      const b = checker.assign();
      if (b === null) throw new Error('no worker');
      expect(b).not.toBe(a);
      const id2 = b.open(() => undefined);
      b.headers(id2, true, 200, 'text/event-stream', SENT);
      b.data(id2, Buffer.alloc(WORKER_BYTE_BUDGET / 2 + 1, 0x0a), 1n);
      const wait = checker.backlog();
      expect(wait, 'half the budget on each of two workers').not.toBeNull();
      await wait;
      expect(checker.backlog()).toBeNull();
    } finally {
      await checker.close();
    }
  });

  it('a worker that fails fails its open responses (class other), gives back its bytes, and later responses go to the workers left, then to this thread', async () => {
    const checker = await Checker.start([...defaultProtocols, exitingProtocol], 2);
    try {
      const a = checker.assign();
      if (a === null) throw new Error('no worker');
      // Bytes past the budget on `a`: readers wait until `a` reports them checked, or fails.
      const held = a.open(() => undefined);
      a.headers(held, true, 200, 'text/event-stream', SENT);
      a.data(held, Buffer.alloc(WORKER_BYTE_BUDGET + 1, 0x0a), 1n);
      const wait = checker.backlog();
      expect(wait).not.toBeNull();
      // The first read of this API ends the worker.
      const failed = await check(a, GOOD, EXITS);
      expect(failed.error).toEqual({ class: 'other', detail: 'check worker exited (7)' });
      await wait;
      expect(a.usable).toBe(false);
      const b = checker.assign();
      expect(b).not.toBeNull();
      expect(b).not.toBe(a);
      if (b === null) return;
      expect(await check(b, GOOD)).toEqual(inProcess(GOOD));
      await check(b, GOOD, EXITS);
      expect(checker.inWorker).toBe(false);
      expect(checker.assign()).toBeNull();
      expect(checker.backlog()).toBeNull();
    } finally {
      await checker.close();
    }
  });
});
