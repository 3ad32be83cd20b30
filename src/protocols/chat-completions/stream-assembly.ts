/** The message a chat completion stream adds up to, per choice, for comparison with a non-streaming answer. */

export interface AssembledToolCall {
  index: number;
  id: string | undefined;
  type: string | undefined;
  name: string | undefined;
  /** The argument fragments joined in arrival order. */
  arguments: string;
}

export interface AssembledChoice {
  index: number;
  role: string | undefined;
  /** All content fragments joined; null when no chunk carried a string content. */
  content: string | null;
  refusal: string | null;
  toolCalls: AssembledToolCall[];
  /** The last non-null finish_reason; null when none came. */
  finishReason: unknown;
}

export interface AssembledUsage {
  prompt_tokens: unknown;
  completion_tokens: unknown;
  total_tokens: unknown;
  [key: string]: unknown;
}

export interface AssembledCompletion {
  id: unknown;
  object: unknown;
  created: unknown;
  model: unknown;
  systemFingerprint: unknown;
  /** Sorted by index. */
  choices: AssembledChoice[];
  /** The usage object of the last chunk that carried a non-null one. */
  usage: AssembledUsage | null;
  /** The payload of an in-stream `{"error": ...}` event, when one came. */
  error: unknown;
  /** llama.cpp's per-request `timings` of the last chunk that carried one (absent elsewhere: undefined). */
  timings?: unknown;
  /** `[DONE]` (or a near-miss of it) was received. */
  done: boolean;
  chunks: number;
}

export interface AssembledMessage {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  tool_calls?: { id: string | undefined; type: string | undefined; function: { name: string | undefined; arguments: string } }[];
}

/** The streamed choice in the shape of a non-streaming `choices[].message`. */
export function toMessage(choice: AssembledChoice): AssembledMessage {
  const message: AssembledMessage = { role: 'assistant', content: choice.content, refusal: choice.refusal };
  if (choice.toolCalls.length > 0) {
    message.tool_calls = choice.toolCalls.map((c) => ({ id: c.id, type: c.type, function: { name: c.name, arguments: c.arguments } }));
  }
  return message;
}

export function newChoice(index: number): AssembledChoice {
  return { index, role: undefined, content: null, refusal: null, toolCalls: [], finishReason: null };
}
