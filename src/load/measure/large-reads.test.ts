import { describe, expect, it } from 'vitest';
import { Checker } from './checker.ts';
import { LARGE_READ_BYTES, LargeReadTurns } from './large-reads.ts';
import { RequestTimer } from './request-timer.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('large reads take turns', () => {
  it('CHAT-STREAM-046: small events never wait; a second large event waits until the first gives its turn up', async () => {
    const turns = new LargeReadTurns(1);
    const a = {};
    const b = {};
    expect(turns.gate(a, LARGE_READ_BYTES)).toBeNull();
    expect(turns.gate(a, LARGE_READ_BYTES + 1)).toBeNull();
    expect(turns.gate(a, LARGE_READ_BYTES + 2)).toBeNull();
    const wait = turns.gate(b, LARGE_READ_BYTES + 1);
    expect(wait).not.toBeNull();
    expect(await settled(wait as Promise<void>)).toBe(false);
    // a's event ended: its next read is small, and the turn passes to b.
    expect(turns.gate(a, 10)).toBeNull();
    expect(await settled(wait as Promise<void>)).toBe(true);
    expect(turns.gate(b, LARGE_READ_BYTES + 5)).toBeNull();
    expect(turns.waited).toBe(1);
  });

  it('CHAT-STREAM-046: a holder that ends (or fails) frees its turn, and a waiter that ends never hangs the others', async () => {
    const turns = new LargeReadTurns(1);
    const [a, b, c] = [{}, {}, {}];
    turns.gate(a, LARGE_READ_BYTES + 1);
    const waitB = turns.gate(b, LARGE_READ_BYTES + 1) as Promise<void>;
    const waitC = turns.gate(c, LARGE_READ_BYTES + 1) as Promise<void>;
    turns.leave(b);
    expect(await settled(waitB)).toBe(true);
    expect(await settled(waitC)).toBe(false);
    turns.leave(a);
    expect(await settled(waitC)).toBe(true);
    expect(turns.holding).toBe(1);
    turns.leave(c);
    expect(turns.holding).toBe(0);
  });

  it('CHAT-STREAM-046: the load request timer counts the open event of its stream, so a second stream inside a 2 MB event pauses until the first event is dispatched', async () => {
    const checker = Checker.inProcess(defaultProtocols);
    const timer = (seq: number): RequestTimer => {
      const t = new RequestTimer({ seq, intendedNs: 0n, sentNs: 0n, stream: true, sent: { api: 'chat-completions', stream: true, includeUsage: true }, onDone: () => undefined, checker });
      t.headers(1n, 200, null, 'text/event-stream');
      return t;
    };
    const first = timer(1);
    const second = timer(2);
    const open = Buffer.from(`data: {"x":"${'a'.repeat(2 * LARGE_READ_BYTES)}`);
    first.data(open, 2n);
    expect(first.readGate()).toBeNull();
    second.data(Buffer.from('data: {"x":"small"}\n\n'), 2n);
    expect(second.readGate()).toBeNull();
    second.data(open, 3n);
    const wait = second.readGate();
    expect(wait).not.toBeNull();
    first.data(Buffer.from('"}\n\n'), 4n);
    expect(first.readGate()).toBeNull();
    expect(await settled(wait as Promise<void>)).toBe(true);
    second.end(5n);
    expect(checker.large.holding).toBe(0);
    await checker.close();
  });
});
