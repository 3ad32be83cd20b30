import type { ErrorClass } from './load-result.ts';
import type { ResponseExtras } from './response-extras.ts';

/** One token-bearing event as iari stamped it (ns on the process.hrtime clock). */
export interface TokenEvent {
  atNs: bigint;
  tokens: number;
  /** Reasoning (delta.reasoning_content or delta.reasoning), not answer. */
  reasoning?: true;
}

/** Everything measured about one request; times are hrtime ns, durations derived later. */
export interface RequestTiming {
  seq: number;
  /** Intended send (open loop) or actual send (closed loop). */
  intendedNs: bigint;
  sentNs: bigint;
  headersNs: bigint | null;
  endNs: bigint | null;
  status: number | null;
  requestId: string | null;
  /** Token-bearing events in arrival order with their apportioned token counts. */
  tokenEvents: TokenEvent[];
  outputTokens: number;
  promptTokens: number;
  tokenSource: 'usage' | 'tokenizer' | 'none';
  events: number;
  error: { class: ErrorClass; detail: string; finding?: string } | null;
  /** Still in flight when the run ended and cut off: neither a sample nor an error. */
  abortedAtEnd: boolean;
  /** In flight when the run ended and counted as a `timeout` (end-timeout.ts): a measured error even when sent during warmup. */
  timedOutAtEnd?: true;
  /** Reasoning tokens of a reasoning model's answer (part of outputTokens); absent when it streamed no reasoning. */
  reasoningTokens?: number;
  /** Where reasoningTokens came from: usage.completion_tokens_details.reasoning_tokens, or the client tokenizer. */
  reasoningSource?: 'usage' | 'tokenizer';
  /**
   * A connection reuse race (connection-reuse.ts): the request was written on a reused connection that
   * closed before any byte of its answer, and sent once more on a fresh one at `retriedNs`. Its
   * latencies still count from `intendedNs`, its service times from the first `sentNs`.
   */
  reuseRace?: { retriedNs: bigint };
  /** --cancel-rate chose this request to be cut (cancellation.ts); it may still have ended before its point. */
  cancelPlanned?: true;
  /** The client cut it at `atNs`, `tokens` token-bearing events into its answer: counted apart, never an error or a sample. */
  cancelled?: { atNs: bigint; tokens: number };
  /** What the checked response said beyond timing (usage details); absent when not checked to the end. */
  extras?: ResponseExtras;
}
