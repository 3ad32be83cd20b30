/**
 * The bundled mock's prefix cache for load runs: 16-token blocks, room for 1M prompt tokens, and
 * 20 µs of prefill per uncached prompt token (a 2,000-token prompt costs 40 ms more on a miss).
 */
export const MOCK_PREFIX_CACHE = { blockTokens: 16, capacityBlocks: 65_536, prefillMsPerToken: 0.02 } as const;

/** The bundled mock's latency model for load runs (`iari load` and the library's `runLoad`): rate limits off, realistic pacing. */
export const MOCK_LOAD_OPTIONS = { limits: false, ttftMs: 40, itlMs: 8, jitterMs: 2, tokensPerChunk: [1, 1, 2], completionTokens: [16, 48] as [number, number], prefixCache: MOCK_PREFIX_CACHE } as const;
