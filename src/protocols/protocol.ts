// The protocol contract (DESIGN.md, "One module per API, behind one contract"): everything one
// endpoint family means to iari, in one object that the mock, the check catalog, the capability
// table, the registry's grades, the load engines, the timing builder, the cancellation tally and the
// report read. None of them asks which API it has. A new API is a folder `src/protocols/<api>/`
// exporting one `Protocol`, plus its line in a protocol list (registry.ts).
import type { MockSide } from './protocol-mock.ts';
import type { AnySection } from '../sections/section-contract.ts';

/** A route an API serves, relative to the base URL's `/v1` (`{ method: 'POST', path: '/embeddings' }`). */
export interface ProtocolRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
}

/** One turn of the conversation a request carries (a system prompt, the user, the server's own earlier answers). */
export interface IntentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** A function tool a request declares, as every API names it (the wire form is the protocol's). */
export interface ToolDeclaration {
  name: string;
  description?: string;
  /** A JSON Schema of its arguments (absent: any object). */
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

/**
 * What one request asks for, whatever the API: built by the load workloads (prompt, turns, tools,
 * lengths) and by checks, and turned into the API's body by `Protocol.request`.
 */
export interface RequestIntent {
  model: string;
  /** The conversation so far, oldest first. */
  messages: readonly IntentMessage[];
  /** Texts handled at once (an embeddings batch); absent: the messages are the one input. */
  inputs?: readonly string[];
  /** The bound on the answer's length, in tokens. */
  maxOutputTokens: number;
  /** Which member carries that bound, where an API has several (chat: `max_tokens`, `max_completion_tokens`, or `both`). */
  outputLimitMember?: string;
  stream: boolean;
  tools?: readonly ToolDeclaration[];
  /** Members only one API understands, by wire name (embeddings' `encoding_format`); iari's own members win over them. */
  options?: Readonly<Record<string, unknown>>;
  /** Vendor members merged under iari's (--extra-body). */
  extraBody?: Readonly<Record<string, unknown>> | null;
  /**
   * An earlier answer the server keeps, by its `id` (ResponseFacts.id), that holds the first
   * `messages` of `messages` (system turns aside): a protocol that `chains` sends only the turns
   * after them and names the answer; absent, the whole conversation is sent.
   */
  continues?: { id: string; messages: number };
}

/** JSON-like values only: what was sent travels to the check worker by structured clone. */
export type SentValue = string | number | boolean | null | readonly SentValue[] | { readonly [k: string]: SentValue };

/**
 * What a request sent that its answer is checked against (`n`, include_usage, the inputs of an
 * embeddings batch, the encoding asked). `api` names the protocol that checks the answer.
 */
export interface SentRequest {
  api: string;
  stream: boolean;
  [member: string]: SentValue;
}

/** A request ready to send: the route it goes to, its JSON body, and what its answer is checked against. */
export interface BuiltRequest {
  route: ProtocolRoute;
  body: Record<string, unknown>;
  sent: SentRequest;
}

/** One rule an answer broke (or a legal oddity it showed), by the protocol's rule code. */
export interface RuleFinding {
  rule: string;
  message: string;
  /** JSON Pointer into the body or the event's payload, where it applies. */
  pointer?: string;
  expected?: unknown;
  received?: unknown;
  /** Byte offset into a stream, where the finding is about one. */
  byteOffset?: number;
}

/** One event that carried generated output, as it arrived: the anchors of TTFT and inter-token latency. */
export interface OutputEvent {
  arrivedAt: bigint;
  /** Characters of output text it carried. */
  chars: number;
  /** It carried reasoning and no answer text. */
  reasoning?: true;
}

/** Usage as the server reported it, in tokens; null where it did not report one. */
export interface NormalUsage {
  input: number | null;
  output: number | null;
  /** Input tokens served from a prompt cache. */
  cachedInput: number | null;
  /** Output tokens spent reasoning (part of `output`). */
  reasoning: number | null;
}

/** A function call the answer made, as assembled (arguments as text). */
export interface CalledTool {
  name: string | null;
  arguments: string;
}

/**
 * The normalised facts of one checked answer, the same for every API: what the load engines, the
 * timing builder and the report read instead of the wire.
 */
export interface ResponseFacts {
  /** Server-sent events read (0 for a whole body). */
  events: number;
  /** Output-bearing events in arrival order: the first is the first output (TTFT); a whole body has none. */
  output: readonly OutputEvent[];
  usage: NormalUsage;
  /** The output text (answers, refusals, tool names and arguments) the client tokenizer counts when usage has no output count. */
  outputText(): string;
  /** The text of each output event when they can be told apart (one answer of text and reasoning), else null. */
  eventTexts(): string[] | null;
  /** The reasoning text, when the answer carried some. */
  reasoningText?: string;
  /** The first answer's text: a conversation sends it back as the next turn's history. */
  answer: string | null;
  /** The answer's id, where a later request may continue it by naming it (RequestIntent.continues). */
  id?: string;
  toolCalls: readonly CalledTool[];
  /** When the first tool-call output arrived (a whole body: absent, its calls arrive at its end). */
  firstToolCallAt?: bigint;
  /** How the answer ended (chat's finish_reason, a Response's status), when it said. */
  finish?: string | null;
  /**
   * The answer stopped at its output-token bound (chat: finish_reason "length"): its last text or
   * tool call may be cut mid-way, which is the request's bound, not the server's fault.
   */
  cutAtLimit?: boolean;
  /** The server's own prefill time, ms (llama.cpp's per-request `timings.prompt_ms`): a server-side TTFT, where the server reports it. */
  serverPrefillMs?: number;
  /** The API's own counts for its load section (embeddings: inputs, dimensions). */
  counters?: Readonly<Record<string, number | null>>;
}

/**
 * A checked answer: the rules it broke, its facts, or why it is not an answer at all (not JSON, no
 * message): `unusable` makes the request an error whatever the registry says.
 */
export interface CheckedResponse {
  findings: readonly RuleFinding[];
  facts: ResponseFacts;
  unusable?: { detail: string; finding?: string };
}

export interface CheckerOptions {
  /** The caller already bounded every event's (or the body's) JSON nesting (the load engines do): no second scan. */
  jsonDepthChecked?: boolean;
}

/** Checks one 2xx answer as its reads arrive (a stream event by event, a whole body at its end). Never throws on bad input. */
export interface ResponseChecker {
  feed(chunk: Uint8Array, arrivedAt: bigint): void;
  end(): CheckedResponse;
}

/** Counts the output-bearing events of a streamed answer on the thread that reads it (where --cancel-after cuts). */
export interface OutputTally {
  /** Adds a read (split anywhere, a multi-byte character included); returns the count so far. */
  feed(chunk: Uint8Array): number;
}

/**
 * Rule codes to requirement IDs: every code the checker can report, with what it expects (one
 * line) and the requirement it decides. Grades are the requirement registry's, never the table's.
 */
export type RuleTable = Readonly<Record<string, { readonly requirement: string; readonly expects: string }>>;

/** A requirement a protocol brings with it (a test-only API; shipped APIs keep theirs in spec/requirements.yaml). */
export interface ProtocolRequirement {
  id: string;
  area: string;
  title: string;
  source: 'seed' | 'compat' | 'profile';
  ref: string;
  grade: 'MUST' | 'SHOULD' | 'INFO';
  expectation: string;
  rationale: string;
}

/** A row of the capability table: a feature beyond the seed's core that this API offers; its requirements are judged where offered. */
export interface ProtocolCapability {
  name: string;
  title: string;
  /** The request member or route that carries it. */
  member: string;
  ids: readonly string[];
}

/**
 * A request `iari test` sends to the API's route and judges through the checker: each finding
 * breaks its rule's requirement, an answer other than 200 breaks `answered`, and every ID of `ids`
 * nothing broke passes.
 */
export interface ConformanceExchange {
  /** Stable kebab-case check name, unique across the catalog. */
  name: string;
  /** A behaviour sentence: what a conforming server does. */
  title: string;
  /** The requirement IDs this exchange decides. */
  ids: readonly string[];
  /** The requirement an answer other than 200 breaks. */
  answered: string;
  intent(model: string): RequestIntent;
}

/** How an API counts what a request does: output tokens (`none`: it generates nothing, as embeddings). */
export interface UnitCounter {
  output: 'tokens' | 'none';
}

/** What a load run tells the result sections an API adds when it binds them (src/load/results/load-sections.ts). */
export interface ProtocolSectionRun {
  /** The API the run sends to. */
  readonly api: string;
  /** The run's workload as the scenario gives it (`workload.embeddings.batch`, `workload.tools`, ...); absent: a plain prompt workload. */
  readonly workload?: Readonly<Record<string, unknown>>;
}

export interface Protocol {
  /** The API's name: `request.api` of a scenario, `SentRequest.api`, and its key in a load result. */
  readonly name: string;
  /** One line for reports and help ("Chat completions"). */
  readonly title: string;
  /**
   * The URL of the module that exports this object as `protocol` (its `import.meta.url`): the load
   * run's check worker imports it from there, so any registered API is checked off the main thread.
   */
  readonly moduleUrl: string;
  /** Every route it serves; the first is where `request` sends. */
  readonly routes: readonly [ProtocolRoute, ...ProtocolRoute[]];
  /** Whether its answers stream: on request (`optional`) or never. */
  readonly streaming: 'optional' | 'never';
  /** It can continue an answer the server keeps by naming its id (RequestIntent.continues) instead of resending the conversation. */
  readonly chains?: true;
  /** The least output bound the API accepts (a request under it is refused): a run asking less is refused before any traffic. */
  readonly minOutputTokens?: number;
  /** Its route as a capability (absent: part of the seed's core, always judged). */
  readonly capability?: ProtocolCapability;
  /** Features of its requests beyond the core, each a capability row. */
  readonly capabilities?: readonly ProtocolCapability[];
  /** Requirement areas it adds (a test-only API), with their requirements. */
  readonly requirements?: { readonly areas: readonly string[]; readonly list: readonly ProtocolRequirement[] };
  readonly rules: RuleTable;
  readonly units: UnitCounter;
  /** The request for an intent: route, body, and what the answer is checked against. */
  request(intent: RequestIntent): BuiltRequest;
  /** A checker for one 2xx answer to a request that sent `sent`. */
  checker(sent: SentRequest, options?: CheckerOptions): ResponseChecker;
  /** A tally of a streamed answer's output events, for --cancel-after Ntokens. */
  outputTally(): OutputTally;
  /** The exchanges `iari test` judges generically (an API whose checks need more sits in src/checks/areas/). */
  readonly conformance?: readonly ConformanceExchange[];
  /** What the bundled mock serves for it: request validation, the answer, its faults. */
  readonly mock?: MockSide;
  /**
   * The parts of load.json it adds (src/sections/section-contract.ts): bound to a run (`run`), or
   * unbound (absent) for merging, the summary and report.html, which read the figures alone. A
   * section builds nothing for a run that did not use it. Keys are unique over every API's sections.
   */
  resultSections?(run?: ProtocolSectionRun): readonly AnySection[];
}
