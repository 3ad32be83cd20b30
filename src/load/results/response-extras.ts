/**
 * What a response says beyond its timing and token counts, read by the checker (either thread)
 * from its protocol's normalised facts and carried to the collector on the request's timing.
 */
export interface ResponseExtras {
  /** Input tokens served from the prompt cache (usage); null when the server did not report it. */
  cachedTokens: number | null;
  /** The first answer's text (at most 256 KiB), sent back as the next turn's history in conversations. */
  answer?: string;
  /** The answer's id, which a chained conversation's next turn names instead of resending the history (--chain). */
  answerId?: string;
  /** The first answer's tool calls as assembled (arguments at most 64 KiB each), judged under --tools (tool-calls.ts). */
  toolCalls?: { name: string | null; arguments: string }[];
  /** The answer stopped at its output-token bound (its last tool call may be cut: not judged invalid). */
  cutAtLimit?: true;
  /** The server's own prefill time, ms (llama.cpp's timings.prompt_ms), where it reports one. */
  serverPrefillMs?: number;
  /** When the first tool-call output arrived (a whole answer: its end), for the latency to the first tool call. */
  firstToolCallNs?: bigint;
  /** The API's own counts for its load section (embeddings: inputs embedded, usage's prompt tokens, the vector length). */
  counters?: Readonly<Record<string, number | null>>;
}
