// The mock's side of the protocol contract: how the bundled mock serves an API it was given. The
// mock owns everything every API shares (body limits, auth, models, rate limits, spend caps,
// receipts, pacing, service slots, /metrics, cancellation, billing); the protocol owns its wire:
// which requests are valid, and how an answer looks (a computed body, or a generated answer
// rendered as a body or as timed events).

/** A 400 as OpenAI sends it, naming the member at fault. */
export interface MockRefusal {
  ok: false;
  param: string | null;
  message: string;
  code?: string;
  /** Written without the error envelope, as {"detail": message} (a fault: FastAPI's default body). */
  bare?: true;
}

/** The parsed request: what the protocol reads later, the model it asks for, and whether it streams. */
export interface MockParsed<Ask> {
  ok: true;
  ask: Ask;
  model: string;
  stream: boolean;
}

/** One message of the conversation the mock's generator answers. */
export interface AskMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  /** Its text (text parts joined); null when absent. */
  text: string | null;
  toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  toolCallId: string | null;
}

export interface AskTool {
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
}

export type AskToolChoice = { mode: 'none' } | { mode: 'auto' } | { mode: 'required' } | { mode: 'named'; name: string };

/** What the answer's text must be: free text, a JSON object, or JSON valid against a schema. */
export type AskFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean };

/** What the mock's generator is asked, whatever the API's wire: the conversation, the tools, the bounds. */
export interface GenerationAsk {
  model: string;
  messages: AskMessage[];
  temperature: number | null;
  /** Answers generated (chat's `n`). */
  n: number;
  stop: string[];
  /** The bound on each answer, in tokens (null: none). */
  maxTokens: number | null;
  stream: boolean;
  /** The stream carries usage at its end. */
  includeUsage: boolean;
  tools: AskTool[];
  toolChoice: AskToolChoice;
  parallelToolCalls: boolean;
  seed: number | null;
  format: AskFormat;
  /** Generate until maxTokens, never stop early (vLLM's ignore_eos). */
  ignoreEos: boolean;
  /** Do not stop before this many tokens (vLLM's min_tokens). */
  minTokens: number | null;
  /** The parsed body, as received (the Receipt's input digest). */
  raw: Record<string, unknown>;
}

/** A piece of generated text and the tokens it carries: one timed step of a stream. */
export interface AnswerPiece {
  text: string;
  tokens: number;
}

export interface PlannedToolCall {
  id: string;
  name: string;
  arguments: string;
  argPieces: AnswerPiece[];
  nameTokens: number;
}

export type PlannedFinish = 'stop' | 'length' | 'tool_calls';

export interface PlannedChoice {
  index: number;
  content: string | null;
  pieces: AnswerPiece[];
  /** Empty for a text answer. */
  toolCalls: PlannedToolCall[];
  finishReason: PlannedFinish;
  completionTokens: number;
}

/** The generated answer, before any wire: deterministic for (request, seed, settings). */
export interface AnswerPlan {
  promptTokens: number;
  /** Prompt tokens served from the prefix cache; absent without a cache. */
  cachedTokens?: number;
  completionTokens: number;
  choices: PlannedChoice[];
  /** A renderer's cache of pre-serialised parts, kept with the plan (plans are shared by identical bodies). */
  streamCache: Map<string, unknown>;
}

/** One write of a stream at its intended time (ms from the stream's start). */
export interface WireEvent {
  atMs: number;
  /** The bytes of the event in canonical framing (`data: ...\n\n`). */
  data: string;
  /** Output tokens it carries (billed when written). */
  tokens: number;
  /** It carries generated output (the first one written is the server's first token). */
  content: boolean;
  /** The answer (choice) and text it carries, for the Receipt's record of what was sent. */
  choice?: number;
  /** The tool call within the choice, for argument fragments. */
  call?: number;
  text?: string;
  /** Close the connection abruptly instead of writing (a fault). */
  action?: 'destroy';
  /** Raw bytes written instead of `data`, unframed (a fault). */
  bytes?: Uint8Array;
}

/** What the renderer is told about the answer it writes. */
export interface RenderContext {
  id: string;
  created: number;
  model: string;
  faults: ReadonlySet<string>;
}

/** An error the route answers with (the error envelope is the mock's). */
export interface WireError {
  status: number;
  type: string;
  message: string;
  param: string | null;
  code: string | null;
}

/** How a generated answer looks on the wire. */
export interface AnswerRenderer {
  /** How many timed steps its stream has (the mock paces them). */
  steps(plan: AnswerPlan, ask: GenerationAsk): number;
  /** The whole body of a non-streamed answer. */
  whole(plan: AnswerPlan, ask: GenerationAsk, ctx: RenderContext): string;
  /** The events of a streamed answer, step k written at `stepTimes[k]`. */
  stream(plan: AnswerPlan, ask: GenerationAsk, ctx: RenderContext, stepTimes: readonly number[]): WireEvent[];
  /** The bytes of events [from, to) of a faultless stream, cached with the plan (optional: the mock then writes `data`). */
  wire?(plan: AnswerPlan, ask: GenerationAsk, ctx: RenderContext, events: readonly WireEvent[]): { events: readonly WireEvent[]; bytes(from: number, to: number): Uint8Array };
  /** The events that end a stream failing after it started: `errorBody` is the error envelope as JSON text, null when a fault swallows it. */
  failure(at: number, errorBody: string | null): WireEvent[];
}

/** A fault of this API: each makes its route break exactly the requirements it names. */
export interface MockFault {
  name: string;
  kind: 'fault' | 'legal';
  breaks: string[];
  description: string;
  /** Capabilities the fault matrix declares with --expect (a fault that makes the server not offer one). */
  expect?: string[];
  /** A legal mode: the requirements whose tolerance it exercises. */
  exercises?: string[];
}

/** What a computed answer may use of the mock. */
export interface MockKit {
  /** The mock's seed. */
  seed: number;
  /** The mock's tokenizer. */
  countTokens(text: string): number;
  faults: ReadonlySet<string>;
}

/** An answer computed at once (embeddings): a status and a JSON body, or a refusal. */
export interface ComputedAnswer<Ask> {
  kind: 'computed';
  compute(ask: Ask, kit: MockKit): { status: number; body: unknown } | MockRefusal;
}

/** An answer the mock's generator writes (text, tool calls, paced tokens), rendered by the protocol. */
/**
 * The records a stateful API keeps (stored responses), scoped to the account of the request; the
 * mock keeps them per API and account, bounded (least recently used first out).
 */
export interface MockSession {
  get(id: string): unknown;
  /** A record of any account (a fault: a store not scoped to its owner). */
  getAnyAccount(id: string): unknown;
  put(id: string, record: unknown): void;
  delete(id: string): boolean;
}

export interface GeneratedAnswer<Ask> {
  kind: 'generated';
  /** The generator's view of the request; a stateful API reads its session (an earlier answer) and may refuse. */
  generation(ask: Ask, session: MockSession): GenerationAsk | MockRefusal;
  renderer: AnswerRenderer;
  /** What identical plans are shared by, where the generation reads more than the body (a session, a fault); default the body as received. */
  planKey?(generation: GenerationAsk): string;
  /** A stateful API: what to keep of an answer once admitted, under the id it carries (the mock puts it in the session). */
  keep?(plan: AnswerPlan, ask: Ask, generation: GenerationAsk, ctx: RenderContext): { id: string; record: unknown } | undefined;
}

/** What the route of one record answers: its body, an error, or that the route is not served at all. */
export type ItemAnswer = { status: number; body: unknown } | { error: WireError } | { unserved: true };

/** The routes of one record of a stateful API (GET and DELETE /v1/responses/{id}). */
export interface MockItems {
  /** The collection, relative to /v1 (`/responses`): a record is at `<prefix>/<id>`. */
  prefix: string;
  serve(method: string, id: string, session: MockSession, faults: ReadonlySet<string>): ItemAnswer;
}

export interface MockSide<Ask = unknown> {
  /** Validates a JSON body as the server does. */
  parse(body: unknown, faults: ReadonlySet<string>): MockParsed<Ask> | MockRefusal;
  readonly answer: ComputedAnswer<Ask> | GeneratedAnswer<Ask>;
  /** A fault on which the route is not served at all (404, a server without this API). */
  readonly missing?: string;
  readonly faults: readonly MockFault[];
  /** A stateful API's record routes. */
  readonly items?: MockItems;
}
