import type { SseReaderStats } from '../../client/sse-reader.ts';
import type { ResponsesFinding, ResponsesRuleCode } from './responses-rules.ts';
import type { ResponseFacts, ResponsesUsage } from './responses-body.ts';
import type { TerminalEvent } from './responses-events.ts';

export interface ResponsesStreamOptions {
  /** Count the tokens of each output delta (e.g. `loadGptTokenCounter()`); off by default. */
  countTokens?: (text: string) => number;
  /** The caller already bounded the JSON nesting of every event's data (the load engines do). */
  jsonDepthChecked?: boolean;
  /** Findings kept per rule before further ones are only counted (default 5). */
  maxFindingsPerRule?: number;
  /** max_output_tokens and metadata of the request, judged on the terminal response. */
  maxOutputTokens?: number;
  metadata?: Record<string, string>;
}

/** One event that carried generated text: the answer's, a function call's arguments, or reasoning. */
export interface OutputEvent {
  arrivedAt: bigint;
  chunkIndex: number;
  byteOffset: number;
  chars: number;
  tokens: number | undefined;
  kind: 'text' | 'arguments' | 'reasoning';
}

/** The normalised facts of one stream (what load measures and the checks compare). */
export interface ResponsesStreamFacts {
  /** JSON events read (before the terminal event and after). */
  events: number;
  firstEventAt: bigint | undefined;
  /** The first non-empty output_text or function-call arguments delta: the TTFT anchor. */
  firstOutputAt: bigint | undefined;
  firstFunctionCallAt: bigint | undefined;
  terminalAt: bigint | undefined;
  /** The terminal event type, `error` for an error event, undefined when the stream ended without one. */
  terminal: TerminalEvent | 'error' | undefined;
  /** Every output event in order: where a cut lands (cancellation) and the inter-token gaps. */
  outputEvents: OutputEvent[];
  responseId: string | undefined;
  /** The output_text deltas of every message, joined in output order. */
  text: string;
  /** The function calls as streamed (arguments from their deltas). */
  functionCalls: { callId: string; name: string; arguments: string }[];
  /** The terminal event's response, read. */
  final: ResponseFacts | undefined;
  /** usage of the terminal event's response. */
  usage: ResponsesUsage | undefined;
  /** The payload of an `error` event. */
  error: unknown;
  /** A data: [DONE] came (OpenAI sends none). */
  doneSentinel: boolean;
}

export interface ResponsesStreamResult {
  findings: ResponsesFinding[];
  /** Findings per rule beyond `maxFindingsPerRule`, counted but not kept. */
  suppressed: Partial<Record<ResponsesRuleCode, number>>;
  facts: ResponsesStreamFacts;
  reader: SseReaderStats;
}
