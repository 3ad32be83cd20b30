import type { TokenEvent } from '../results/request-timing.ts';

/**
 * An answer's token events as three typed arrays, for the trip from the check worker to the main
 * thread: their buffers are transferred, not cloned, where a structured clone of one object per
 * event (a BigInt in each) cost the worker 9% of its time at the load ceiling (issue 41).
 */
export interface PackedTokenEvents {
  atNs: BigUint64Array;
  tokens: Uint32Array;
  /** 1 where the event is reasoning; null when none is. */
  reasoning: Uint8Array | null;
}

export function packTokenEvents(events: readonly TokenEvent[]): PackedTokenEvents {
  const n = events.length;
  const atNs = new BigUint64Array(n);
  const tokens = new Uint32Array(n);
  let reasoning: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const e = events[i] as TokenEvent;
    atNs[i] = e.atNs;
    tokens[i] = e.tokens;
    if (e.reasoning === true) (reasoning ??= new Uint8Array(n))[i] = 1;
  }
  return { atNs, tokens, reasoning };
}

/** The buffers to transfer with a packed list. */
export function packedBuffers(p: PackedTokenEvents): ArrayBuffer[] {
  const out = [p.atNs.buffer as ArrayBuffer, p.tokens.buffer as ArrayBuffer];
  if (p.reasoning !== null) out.push(p.reasoning.buffer as ArrayBuffer);
  return out;
}

export function unpackTokenEvents(p: PackedTokenEvents): TokenEvent[] {
  const n = p.atNs.length;
  const out: TokenEvent[] = new Array<TokenEvent>(n);
  const reasoning = p.reasoning;
  for (let i = 0; i < n; i++) {
    out[i] = reasoning !== null && reasoning[i] === 1 ? { atNs: p.atNs[i] as bigint, tokens: p.tokens[i] as number, reasoning: true } : { atNs: p.atNs[i] as bigint, tokens: p.tokens[i] as number };
  }
  return out;
}
