import type { SseReaderStats } from '../../client/sse-reader.ts';
import type { StreamRuleCode } from './stream-rules.ts';
import type { AssembledCompletion } from './stream-assembly.ts';

export interface StreamCheckOptions {
  /** `stream_options.include_usage` was requested. */
  includeUsage?: boolean;
  /** `n` of the request (default 1). */
  n?: number;
  /** Reference Unix time (seconds) for `created` (default: now, when the checker is made). */
  nowSeconds?: number;
  /** Count the tokens of each content-bearing event (e.g. `loadGptTokenCounter()`); off by default. */
  countTokens?: (text: string) => number;
  /**
   * The caller has already bounded the JSON nesting of every event's data (the load engines do, on
   * the main thread: src/load/event-bounds.ts): payloads are parsed without a second depth scan.
   */
  jsonDepthChecked?: boolean;
  /** Findings kept per rule before further ones are only counted (default 5). */
  maxFindingsPerRule?: number;
}

export interface StreamFinding {
  /** The rule broken (or the legal oddity observed); its requirement and grade are the registry's. */
  rule: StreamRuleCode;
  message: string;
  byteOffset: number;
  /** Index of the read (HTTP body chunk) where the evidence completed. */
  chunkIndex: number;
  /** Index of the SSE event (block) it is about, when it is about one. */
  eventIndex: number | undefined;
  /** JSON Pointer into the event's JSON payload, when it applies. */
  pointer: string | undefined;
  expected: unknown;
  received: unknown;
}

export interface ContentEvent {
  arrivedAt: bigint;
  chunkIndex: number;
  byteOffset: number;
  /** Characters of content, refusal and tool-call argument text the event carries. */
  chars: number;
  /** Tokens of that text, when a counter was given. */
  tokens: number | undefined;
  /** The event carried reasoning (delta.reasoning_content or delta.reasoning) and no answer text: `chars` counts the reasoning. */
  reasoning?: true;
}

export interface StreamTiming {
  /** Arrival of the first event carrying a JSON object (the role prelude included). */
  firstChunkAt: bigint | undefined;
  /** Arrival of the first event carrying non-empty content, refusal or a tool-call delta (the TTFT anchor). */
  firstTokenAt: bigint | undefined;
  /** Arrival of the first event carrying a tool-call delta (iari load's latency to the first tool call). */
  firstToolCallAt?: bigint;
  doneAt: bigint | undefined;
  /** Every event that carried content, refusal or tool-call deltas, in order; and reasoning-only events, marked `reasoning`. */
  contentEvents: ContentEvent[];
  /** The reasoning text of every choice, in arrival order (absent when none came). */
  reasoning?: string;
}

export interface StreamCheckResult {
  findings: StreamFinding[];
  /** Findings per rule beyond `maxFindingsPerRule`, counted but not kept. */
  suppressed: Partial<Record<StreamRuleCode, number>>;
  assembled: AssembledCompletion;
  timing: StreamTiming;
  reader: SseReaderStats;
}
