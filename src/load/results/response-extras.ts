/**
 * What a response says beyond its timing and token counts, read by the checker (either thread)
 * and carried to the collector on the request's timing: the prompt-cache figure of its usage.
 */
export interface ResponseExtras {
  /** usage.prompt_tokens_details.cached_tokens; null when the server did not report it. */
  cachedTokens: number | null;
  /** The first choice's assembled content (at most 256 KiB), sent back as the next turn's history in conversations. */
  answer?: string;
  /** The first choice's tool calls as assembled (arguments at most 64 KiB each), judged under --tools (tool-calls.ts). */
  toolCalls?: { name: string | null; arguments: string }[];
  /** When the first tool-call delta arrived (a whole answer: its end), for the latency to the first tool call. */
  firstToolCallNs?: bigint;
  /** An embeddings answer (src/protocols/embeddings/): inputs embedded, usage.prompt_tokens (null: not reported) and the vector length. */
  embeddings?: { inputs: number; promptTokens: number | null; dimensions: number | null };
}

const ANSWER_LIMIT = 256 * 1024;

/** OpenAI usage: `prompt_tokens_details.cached_tokens`, the prompt tokens served from the prompt cache. */
export function cachedTokensOf(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const details = (usage as { prompt_tokens_details?: unknown }).prompt_tokens_details;
  if (typeof details !== 'object' || details === null) return null;
  const cached = (details as { cached_tokens?: unknown }).cached_tokens;
  return typeof cached === 'number' && Number.isInteger(cached) && cached >= 0 ? cached : null;
}

const ARGUMENTS_LIMIT = 64 * 1024;

export function extrasOf(usage: unknown, answer: string | null, calls: readonly { name: string | null | undefined; arguments: string }[] = []): ResponseExtras {
  const cachedTokens = cachedTokensOf(usage);
  const base: ResponseExtras = answer === null ? { cachedTokens } : { cachedTokens, answer: answer.length > ANSWER_LIMIT ? answer.slice(0, ANSWER_LIMIT) : answer };
  if (calls.length > 0) base.toolCalls = calls.slice(0, 64).map((c) => ({ name: c.name ?? null, arguments: c.arguments.length > ARGUMENTS_LIMIT ? c.arguments.slice(0, ARGUMENTS_LIMIT) : c.arguments }));
  return base;
}
