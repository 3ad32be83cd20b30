/** The bundled mock's latency model for load runs (`iari load` and the library's `runLoad`): rate limits off, realistic pacing. */
export const MOCK_LOAD_OPTIONS = { limits: false, ttftMs: 40, itlMs: 8, jitterMs: 2, tokensPerChunk: [1, 1, 2], completionTokens: [16, 48] as [number, number] } as const;
