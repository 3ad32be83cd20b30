import { describe, expect, it } from 'vitest';
import type { TokenEvent } from '../results/request-timing.ts';
import { packedBuffers, packTokenEvents, unpackTokenEvents } from './packed-token-events.ts';

describe('packed token events (check worker to main thread)', () => {
  it('round-trip every stamp, count and reasoning flag exactly, through a transfer', async () => {
    const events: TokenEvent[] = [
      { atNs: 123_456_789_012_345_678n, tokens: 1 },
      { atNs: 123_456_789_012_345_999n, tokens: 3, reasoning: true },
      { atNs: 2n ** 63n + 5n, tokens: 4_000_000 },
    ];
    const packed = packTokenEvents(events);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<TokenEvent[]>((resolve) => (port2.onmessage = (m) => resolve(unpackTokenEvents(m.data as ReturnType<typeof packTokenEvents>))));
    port1.postMessage(packed, packedBuffers(packed));
    // Transferred: the sender's arrays are detached, nothing was copied.
    expect(packed.atNs.length).toBe(0);
    expect(await received).toEqual(events);
    port1.close();
    port2.close();
  });

  it('an answer without reasoning carries no flag array, and no event gains a reasoning key', () => {
    const packed = packTokenEvents([{ atNs: 1n, tokens: 1 }]);
    expect(packed.reasoning).toBeNull();
    expect(Object.keys(unpackTokenEvents(packed)[0] ?? {})).toEqual(['atNs', 'tokens']);
    expect(unpackTokenEvents(packTokenEvents([]))).toEqual([]);
  });
});
