import type { OutputEvent, Protocol, ResponseChecker, ResponseFacts, SentRequest } from '../../protocols/protocol.ts';
import { protocolNamed, type ProtocolList } from '../../protocols/registry.ts';
import type { Grade } from '../../checks/kernel/verdicts.ts';
import type { ErrorClass } from '../results/load-result.ts';
import type { RequestTiming } from '../results/request-timing.ts';
import type { ResponseExtras } from '../results/response-extras.ts';
import { apportionTokens, countTokens, tokensByOffsets } from '../workloads/token-count.ts';
import { ruleGrades } from '../../checks/registry/registry-view.ts';

/**
 * The APIs a run's checker knows and how it grades their rules (the registry's grade of each
 * rule's requirement): made once per run, on each thread that checks.
 */
export interface CheckScope {
  protocols: ProtocolList;
  grade: (protocol: Pick<Protocol, 'rules'>, rule: string) => Grade;
}

export function checkScope(protocols: ProtocolList): CheckScope {
  return { protocols, grade: ruleGrades(protocols) };
}

const ANSWER_LIMIT = 256 * 1024;
const ARGUMENTS_LIMIT = 64 * 1024;
const ID_LIMIT = 1024;

/** What a checked answer tells the collector beyond its timing (cached tokens, the answer a conversation sends back, tool calls, the API's counters). */
function extrasOf(facts: ResponseFacts): ResponseExtras {
  const a = facts.answer;
  const base: ResponseExtras = a === null ? { cachedTokens: facts.usage.cachedInput } : { cachedTokens: facts.usage.cachedInput, answer: a.length > ANSWER_LIMIT ? a.slice(0, ANSWER_LIMIT) : a };
  if (facts.toolCalls.length > 0) base.toolCalls = facts.toolCalls.slice(0, 64).map((c) => ({ name: c.name, arguments: c.arguments.length > ARGUMENTS_LIMIT ? c.arguments.slice(0, ARGUMENTS_LIMIT) : c.arguments }));
  if (facts.counters !== undefined) base.counters = facts.counters;
  if (facts.id !== undefined && facts.id.length <= ID_LIMIT) base.answerId = facts.id;
  if (facts.cutAtLimit === true) base.cutAtLimit = true;
  if (facts.serverPrefillMs !== undefined) base.serverPrefillMs = facts.serverPrefillMs;
  return base;
}

/** What checking a response adds to its timing (everything else is stamped by the engine). */
export type CheckedPart = Pick<RequestTiming, 'endNs' | 'tokenEvents' | 'outputTokens' | 'promptTokens' | 'tokenSource' | 'events' | 'error' | 'abortedAtEnd' | 'extras' | 'reasoningTokens' | 'reasoningSource'>;

/**
 * What a response's head already decides: `check` its body; `skip-body`, an error status (its
 * verdict is the status, the body adds nothing); `failed`, a stream whose content type is not
 * server-sent events. Engines stop reading a failed response at once and never hand a skipped
 * body to the checker, so a hostile body costs reads, not copies.
 */
export type HeadDecision = 'check' | 'skip-body' | 'failed';

export function headDecision(stream: boolean, status: number, contentType: string | null): HeadDecision {
  if (status < 200 || status > 299) return 'skip-body';
  // Spec, chat completions: "Response, stream true: server-sent events as described under streamed chunk, ended by the literal [DONE]."
  if (stream && (contentType === null || !contentType.toLowerCase().startsWith('text/event-stream'))) return 'failed';
  return 'check';
}

/**
 * Parses and checks one response from its reads and stamps, on whichever thread runs it (the
 * load process, or the check worker: src/load/measure/check-worker.ts). Every stream goes through the
 * strict SSE reader and the stream checker: a non-conforming stream is an error of class
 * `stream_nonconforming`.
 */
export class TimingBuilder {
  readonly #stream: boolean;
  readonly #sent: SentRequest | undefined;
  readonly #scope: CheckScope;
  #status: number | null = null;
  #protocol: Protocol | undefined;
  #checker: ResponseChecker | undefined;
  readonly t: CheckedPart = { endNs: null, tokenEvents: [], outputTokens: 0, promptTokens: 0, tokenSource: 'none', events: 0, error: null, abortedAtEnd: false };

  /** `sent`: what the request sent, whose `api` names the protocol that checks the answer (absent: a request that failed before its head). */
  constructor(stream: boolean, sent: SentRequest | undefined, scope: CheckScope) {
    this.#stream = stream;
    this.#sent = sent;
    this.#scope = scope;
  }

  headers(status: number, contentType: string | null): void {
    this.#status = status;
    if (status < 200 || status > 299) return;
    if (this.#stream && headDecision(true, status, contentType) === 'failed') {
      this.t.error = { class: 'stream_nonconforming', detail: `content-type ${contentType ?? '(none)'} is not text/event-stream`, finding: 'content-type' };
    }
    if (this.#sent === undefined) return;
    try {
      this.#protocol = protocolNamed(this.#scope.protocols, this.#sent.api);
      // Every answer goes through its protocol's checker (a stream through the strict reader). Its
      // bytes reach this builder only through RequestTimer, whose EventBounds already bounded each
      // event's (or the body's) size and nesting: the checker does not scan them again.
      this.#checker = this.#protocol.checker(this.#sent, { jsonDepthChecked: true });
    } catch (error) {
      this.#broken = error;
    }
  }

  feed(chunk: Buffer, atNs: bigint): void {
    if (this.#broken !== undefined) return;
    try {
      this.#checker?.feed(chunk, atNs);
    } catch (error) {
      this.#broken = error;
    }
  }

  /** An error inside the checker: the verdict of this response alone, never the end of the run. */
  #broken: unknown;

  #brokenPart(atNs: bigint): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    t.error = { class: 'other', detail: `iari could not check this response: ${(this.#broken as Error)?.message ?? String(this.#broken)}` };
    return t;
  }

  end(atNs: bigint): CheckedPart {
    if (this.#broken !== undefined) return this.#brokenPart(atNs);
    try {
      return this.#end(atNs);
    } catch (error) {
      this.#broken = error;
      return this.#brokenPart(atNs);
    }
  }

  #end(atNs: bigint): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    const status = this.#status;
    if (status !== null && (status < 200 || status > 299)) {
      if (t.error === null) t.error = { class: 'http_status', detail: `HTTP ${status}` };
      return t;
    }
    const protocol = this.#protocol;
    const checker = this.#checker;
    if (protocol === undefined || checker === undefined) {
      t.error ??= { class: 'other', detail: 'iari could not check this response: no protocol named what its request sent' };
      return t;
    }
    const checked = checker.end();
    const errorClass: ErrorClass = this.#stream ? 'stream_nonconforming' : 'body_invalid';
    if (checked.unusable !== undefined) {
      if (t.error === null) t.error = { class: errorClass, detail: checked.unusable.detail, ...(checked.unusable.finding === undefined ? {} : { finding: checked.unusable.finding }) };
      return t;
    }
    // An answer that breaks a MUST requirement (the registry's grade of the rule's requirement) is nonconforming.
    const bad = checked.findings.find((f) => this.#scope.grade(protocol, f.rule) === 'MUST');
    if (t.error === null && bad !== undefined) t.error = { class: errorClass, detail: `${protocol.rules[bad.rule]?.requirement ?? bad.rule} ${bad.message}`, finding: bad.rule };
    this.#finishFacts(protocol, checked.facts);
    return t;
  }

  fail(atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd: boolean): CheckedPart {
    const t = this.t;
    t.endNs = atNs;
    t.error = { class: errorClass, detail };
    t.abortedAtEnd = abortedAtEnd;
    try {
      if (this.#stream && this.#protocol !== undefined && this.#checker !== undefined && this.#broken === undefined) this.#finishFacts(this.#protocol, this.#checker.end().facts);
    } catch {
      // The request already failed for its own reason; what the checker could not finish adds nothing.
    }
    return t;
  }

  /** What the answer's facts give its timing: tokens (streamed or whole), prompt tokens, extras. */
  #finishFacts(protocol: Protocol, facts: ResponseFacts): void {
    const t = this.t;
    if (protocol.units.output === 'none') {
      // It generates nothing (embeddings): no output tokens and no token events, so TTFT, ITL and TPOT do not apply to it.
      t.promptTokens = facts.usage.input ?? 0;
      t.tokenSource = facts.usage.input === null ? 'none' : 'usage';
      t.extras = { ...extrasOf(facts), cachedTokens: null };
      return;
    }
    if (this.#stream) return this.#finishTokens(facts);
    const reported = facts.usage.output;
    const tokens = reported ?? countTokens(facts.outputText());
    t.outputTokens = tokens;
    t.promptTokens = facts.usage.input ?? 0;
    t.extras = extrasOf(facts);
    // A whole answer's tool calls arrive with its end.
    if (t.extras.toolCalls !== undefined && t.endNs !== null) t.extras.firstToolCallNs = t.endNs;
    t.tokenSource = reported !== null ? 'usage' : 'tokenizer';
    // A non-streamed answer arrives whole: its tokens are stamped at the end of the body.
    if (tokens > 0 && t.endNs !== null) t.tokenEvents = [{ atNs: t.endNs, tokens }];
  }

  /**
   * D-LOAD-03: the output token total is the server's usage (else the client tokenizer over the
   * output text); it is split over the output events in proportion to the tokens of one
   * tokenization of the whole text, each token assigned to the event holding its first character
   * (text length when the text cannot be recovered), every event keeping at least one token.
   */
  #finishTokens(facts: ResponseFacts): void {
    const t = this.t;
    t.events = facts.events;
    const events = facts.output;
    const completion = facts.usage.output;
    if (facts.usage.input !== null) t.promptTokens = facts.usage.input;
    t.extras = extrasOf(facts);
    if (facts.firstToolCallAt !== undefined && t.extras.toolCalls !== undefined) t.extras.firstToolCallNs = facts.firstToolCallAt;
    // A failed response is never a sample: the client tokenizer (linear, but 1 s for 7 MB) does not run on it.
    const sample = t.error === null;
    const reasoningText = facts.reasoningText;
    let total = completion;
    if (total === null && events.length > 0 && sample) total = countTokens(facts.outputText()) + (reasoningText === undefined ? 0 : countTokens(reasoningText));
    let k: number[] = [];
    if (reasoningText === undefined) k = this.#split(events, total, sample, () => facts.eventTexts());
    else if (total !== null) {
      // The output count includes the reasoning; the usage's reasoning count says how much (else it is counted).
      const reported = facts.usage.reasoning;
      const reasoning = Math.min(total, reported ?? (sample ? countTokens(reasoningText) : 0));
      t.reasoningTokens = reasoning;
      t.reasoningSource = reported !== null ? 'usage' : 'tokenizer';
      const ofKind = (r: boolean): number[] => events.flatMap((e, i) => ((e.reasoning === true) === r ? [i] : []));
      const [ri, ai] = [ofKind(true), ofKind(false)];
      const texts = facts.eventTexts();
      const rk = this.#split(ri.map((i) => events[i]!), reasoning, sample, () => (texts === null ? null : ri.map((i) => texts[i] ?? '')));
      const ak = this.#split(ai.map((i) => events[i]!), total - reasoning, sample, () => (texts === null ? null : ai.map((i) => texts[i] ?? '')));
      k = events.map(() => 0);
      ri.forEach((i, j) => (k[i] = rk[j] ?? 0));
      ai.forEach((i, j) => (k[i] = ak[j] ?? 0));
    }
    t.tokenEvents = events.map((e, i) => (e.reasoning === true ? { atNs: e.arrivedAt, tokens: k[i] ?? 0, reasoning: true as const } : { atNs: e.arrivedAt, tokens: k[i] ?? 0 }));
    t.outputTokens = total ?? 0;
    t.tokenSource = completion !== null ? 'usage' : total !== null ? 'tokenizer' : 'none';
  }

  /** Splits `total` tokens over `events` (one tokenization of their texts when they line up, else by characters). */
  #split(events: readonly OutputEvent[], total: number | null, sample: boolean, texts: () => string[] | null): number[] {
    if (total === null) return [];
    if (!sample) return apportionTokens(events.map((e) => e.chars), total);
    if (total === events.length) return events.map(() => 1);
    const chars = events.map((e) => e.chars);
    const tx = texts();
    const byTokenizer = tx === null ? null : tokensByOffsets(tx.join(''), chars);
    const sum = byTokenizer?.reduce((a, b) => a + b, 0);
    return byTokenizer !== null && sum === total ? byTokenizer : apportionTokens(byTokenizer ?? chars, total);
  }
}
