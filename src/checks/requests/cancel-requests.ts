// The requests of the CANCEL checks (src/checks/areas/cancel.ts, docs/cancellation.md): the check's own
// connections, on which a request can be cut; short probes timed to their first token; and what the
// server's GET /metrics says about the requests in flight and the tokens generated.
import type { Dispatcher } from 'undici';
import type { CheckContext } from '../context/check-types.ts';
import { chatBody } from './common-requests.ts';
import { ownRequest, type OwnAnswer } from '../http/own-request.ts';
import { CheckHttpError } from '../http/check-http.ts';
import { mockLatencyHeaders, type MockLatency } from '../http/mock-admin.ts';
import { ContentEvents } from '../../protocols/chat-completions/content-events.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';
import { parseExposition } from '../../server-metrics/prom-text.ts';
import { indexSamples, readVocabulary } from '../../server-metrics/vocabulary.ts';

/** How often the server's gauges are read while waiting on them. */
export const POLL_MS = 50;
/** Before a cut, the check waits up to this long for the server to have no request in flight (an earlier check's may still run). */
const QUIET_MS = 2_000;
export const PROBE_TOKENS = 4;
const MAX_BYTES = 4 * 1024 * 1024;
/** The bundled mock's schedule of a short probe (its per-request headers). */
export const MOCK_PROBE: MockLatency = { ttftMs: 20, itlMs: 1, completionTokens: PROBE_TOKENS };
export const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export interface Sent extends OwnAnswer {
  events: ContentEvents;
}

export interface SendOptions {
  stream: boolean;
  maxTokens: number;
  mock: MockLatency;
  /** Cut once this many content events arrived. */
  cutAfterEvents?: number;
  cutAfterMs?: number;
  cut?: AbortSignal;
  /** Called once, when `cutAfterEvents` content events arrived (before any cut). */
  onEvents?: () => void;
  /** The user message instead of the shared prompt (`longPrompt()`: a prefill that takes time). */
  prompt?: string;
}

/** Short English words, one token each in the o200k and qwen2 vocabularies. */
const WORDS = ['the', 'of', 'and', 'to', 'in', 'is', 'it', 'on', 'at', 'by', 'we', 'he', 'she', 'they', 'you', 'for', 'with', 'as', 'was', 'are', 'but', 'not', 'or', 'an', 'be', 'this', 'that', 'from', 'have', 'had'];

/** About 800 more prompt tokens: a prefill long enough to cut into; `n` picks the sequence (each differs from its first word on). */
function longPromptNumber(n: number): string {
  let x = (n * 2654435761) >>> 0;
  const words: string[] = [];
  for (let i = 0; i < 800; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    words.push(WORDS[(x >>> 16) % WORDS.length] as string);
  }
  return `${words.join(' ')}. Count the words above.`;
}

/** The check's own connections to the server, and requests on them that the check may cut. */
export class Line {
  readonly #d: Dispatcher;
  readonly #origin: string;
  readonly #path: string;
  #longPrompts = 0;
  constructor(
    readonly ctx: CheckContext,
    readonly model: string,
    connections: number,
  ) {
    const base = new URL(ctx.baseUrl);
    this.#origin = base.origin;
    this.#path = `${base.pathname.replace(/\/+$/, '')}${CHAT_COMPLETIONS_ROUTE}`;
    this.#d = ctx.connect({ connections, pipelining: 1 });
  }

  /**
   * A long prompt (a prefill that takes time to cut into), another word sequence on every call so that a
   * server's prefix cache cannot skip the prefill of the one cut after the ones timed; the run's seed picks
   * where the sequences start.
   */
  readonly longPrompt = (): string => longPromptNumber(this.ctx.seed * 1_000 + ++this.#longPrompts);

  /** Sends one request on the check's own connections; a rate-limit 429 is waited out and the request sent again, as for every check's request (rate-limit-retry.ts). */
  async send(o: SendOptions): Promise<Sent> {
    const retry = this.ctx.http.rateLimits;
    if (retry === undefined) return this.#sendOnce(o);
    const authorization = `Bearer ${this.ctx.http.tokenForProbe()}`;
    // A 429 here is waited out and reported (LIMIT-010), but does not judge LIMIT-009 ("a limit lower than
    // reported"): these requests go 4 at once and are cut mid-answer, and the window iari counts for them
    // does not line up with the server's closely enough to accuse it (a fake clock in the fault matrix showed
    // it); LIMIT-009 is judged from the other checks' requests.
    return retry.run({ method: 'POST', path: this.#path, authorization, account: 'other' }, () => this.#sendOnce(o, () => retry.noteSent(authorization)), (a) => ({
      status: a.status ?? 0,
      headers: a.headers,
      json: jsonOf(a.text),
      requestId: a.headers['x-request-id'],
    }));
  }

  /** `sent`: called once the throttle let the request go (the rate-limit window counts it from then on, as check-http.ts does). */
  async #sendOnce(o: SendOptions, sent?: () => void): Promise<Sent> {
    const ctx = this.ctx;
    const fault = ctx.http.fault;
    const events = new ContentEvents();
    let told = false;
    // The run's stall record (stalls.ts), as for every check's request: a kind of request whose answer never
    // completed is not sent again (its root cause decides it), and after a stall a new kind waits less.
    const what = `POST ${this.#path}`;
    const guard = ctx.http.stalled.guard({ method: 'POST', path: this.#path, streamed: o.stream });
    if (guard.kind === 'refused') throw CheckHttpError.refused(what, guard.root, '');
    await ctx.http.acquireSlot();
    sent?.();
    const asked = guard.deadline(ctx.http.timeoutMs);
    const answer = await ownRequest(this.#d, {
      origin: this.#origin,
      path: this.#path,
      method: 'POST',
      headers: {
        ...ctx.http.tokenHeader(),
        'content-type': 'application/json',
        ...(o.stream ? { accept: 'text/event-stream' } : {}),
        ...mockLatencyHeaders(ctx, o.mock),
        ...(fault === undefined ? {} : { 'x-iari-fault': fault }),
      },
      body: JSON.stringify(chatBody(ctx, this.model, { max_tokens: o.maxTokens, ...(o.stream ? { stream: true } : {}), ...(o.prompt === undefined ? {} : { messages: [{ role: 'user', content: o.prompt }] }) })),
      deadlineMs: asked.ms,
      maxBytes: MAX_BYTES,
      signal: ctx.http.signal,
      ...(o.cutAfterMs === undefined ? {} : { cutAfterMs: o.cutAfterMs }),
      ...(o.cut === undefined ? {} : { cut: o.cut }),
      cutWhen: (piece) => {
        const n = o.stream ? events.feed(piece) : 0;
        if (o.cutAfterEvents === undefined || n < o.cutAfterEvents) return false;
        if (!told) {
          told = true;
          o.onEvents?.();
        }
        return o.onEvents === undefined;
      },
    });
    if (answer.timedOut) throw CheckHttpError.late(what, asked.expired(answer.headers['x-request-id']), '');
    if (answer.complete) ctx.http.stalled.completed(performance.now() - answer.sentAt);
    return { ...answer, events };
  }

  /** A short streamed request read to the end: its TTFT (first content event), or why there is none. */
  async ttft(prompt?: string): Promise<number | string> {
    const a = await this.send({ stream: true, maxTokens: PROBE_TOKENS, mock: MOCK_PROBE, ...(prompt === undefined ? {} : { prompt }) });
    if (a.status !== 200 || a.error !== null) return refusal(a);
    return a.events.firstAt === null ? 'a short streamed request carried no content' : a.events.firstAt - a.sentAt;
  }

  /** The median TTFT of three short streamed requests, one after the other (`prompt`: each with a prompt it makes). */
  async baseline(prompt?: () => string): Promise<number | string> {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await this.ttft(prompt?.());
      if (typeof t === 'string') return t;
      runs.push(t);
    }
    return runs.sort((a, b) => a - b)[1] as number;
  }

  close(): Promise<void> {
    return this.#d.destroy().catch(() => undefined);
  }
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function refusal(a: OwnAnswer): string {
  if (a.status === 429) return 'the server answered 429 (its quota is spent); LIMIT-010 reports it';
  if (a.error !== null) return `a request failed: ${a.error.message}`;
  return `a request answered ${a.status ?? 'nothing'} (the CHAT checks judge it)`;
}

/** CANCEL-006's bound: twice the baseline's median TTFT plus 100 ms. */
export function ttftBound(baselineMs: number): number {
  return 2 * baselineMs + 100;
}

/** What GET /metrics says now: requests in flight (running + waiting) and generated tokens, under a name iari maps; null where not. */
export interface Gauges {
  inFlight: number | null;
  generated: number | null;
}

export async function gauges(ctx: CheckContext): Promise<Gauges> {
  try {
    const ex = await ctx.http.get('/metrics');
    if (ex.status !== 200) return { inFlight: null, generated: null };
    const parsed = parseExposition(ex.text);
    if (!parsed.ok) return { inFlight: null, generated: null };
    const r = readVocabulary(indexSamples(parsed.exposition));
    const running = r.gauges.running;
    return { inFlight: running === undefined ? null : running + (r.gauges.waiting ?? 0), generated: r.counters.generatedTokens ?? null };
  } catch {
    return { inFlight: null, generated: null };
  }
}
/**
 * The gauges once the server has no request in flight, or after QUIET_MS (another client's, or a request an
 * earlier check abandoned to a server that ignores it): a request of someone else's that ends during a check
 * would otherwise look like the check's own stopping.
 */
export async function quiet(ctx: CheckContext): Promise<Gauges> {
  const from = performance.now();
  for (;;) {
    const g = await gauges(ctx);
    if (g.inFlight === null || g.inFlight === 0 || performance.now() - from >= QUIET_MS) return g;
    await wait(POLL_MS * 2);
  }
}
