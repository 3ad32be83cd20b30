import { buildCurl } from '../../client/curl.ts';
import { assertOrigin, bodyLimit, OriginRefused } from '../../client/fetch-policy.ts';
import { responseLimits } from '../../client/body-limits.ts';
import { CheckHttpError } from '../http/check-http.ts';
import type { StallDeadline } from '../http/stalls.ts';
import type { CheckContext } from '../context/check-types.ts';
import type { Failure } from '../kernel/verdicts.ts';
import { clip } from '../kernel/evidence.ts';

/** What iari saw of one request a client library sent: for the evidence of a failed operation. */
export interface ClientExchange {
  method: string;
  url: string;
  status: number | undefined;
  requestId: string | undefined;
  /** The start of the body when the server answered an error status (what the client had to work with). */
  errorBody: string | undefined;
  curl: string;
  /** The whole body as the client read it, where the operation asked for it (`keepBodies`): bounded like the client's own read. */
  body?: Promise<string>;
}

/**
 * The `fetch` every client library is handed (all three take one: openai-node's `fetch`, the AI
 * SDK provider's `fetch`, LangChain's `configuration.fetch`). It is the only way a client reaches
 * the network during a check, so it applies the fetch policy (client/fetch-policy.ts):
 * - refuses any origin but the server under test (the token never travels elsewhere, and a client
 *   that tries to phone home fails its operation instead of leaving the machine);
 * - waits for the run's throttle, adds the run's fault header, bounds each request in time and
 *   each response in bytes;
 * - records what was sent and answered, so a failure carries the x-request-id and a curl line.
 */
export class ClientTransport {
  readonly exchanges: ClientExchange[] = [];
  /** Origins a client tried to reach besides the server under test. */
  readonly refused: string[] = [];
  /** Keep each answer's body beside the client's read, for an operation that compares what the client made of it. */
  keepBodies = false;
  readonly #ctx: CheckContext;
  readonly #origin: string;
  readonly #timeoutMs: number;
  readonly #bodyLimit: number;
  readonly #send: typeof fetch;
  /** The deadline (stalls.ts) of each request sent, to learn after the operation which never completed. */
  readonly #deadlines: { path: string; signal: AbortSignal; deadline: StallDeadline; exchange: ClientExchange }[] = [];
  #blocked: CheckHttpError | undefined;

  /**
   * `rateLimit: 'retry'` (default): a rate-limit 429 is waited out and sent again like the checks'
   * own requests (rate-limit-retry.ts), so a server's limit stays the LIMIT checks' finding and
   * never becomes a client failure. `'raw'`: the 429 reaches the library (the 429 operations).
   */
  constructor(ctx: CheckContext, options: { timeoutMs?: number; bodyLimit?: number; rateLimit?: 'retry' | 'raw' } = {}) {
    this.#ctx = ctx;
    this.#origin = new URL(ctx.baseUrl).origin;
    this.#timeoutMs = options.timeoutMs ?? ctx.http.timeoutMs;
    this.#bodyLimit = options.bodyLimit ?? responseLimits.bodyBytes;
    // Issue 43: a run without a token sends no Authorization; the libraries were given a stand-in key.
    this.#send = ctx.http.withoutStandIn((options.rateLimit === 'raw' ? undefined : ctx.http.sdkFetch(this.#timeoutMs)) ?? ctx.http.fetch);
  }

  get baseUrl(): string {
    return this.#ctx.baseUrl;
  }

  /**
   * After the operation: the error that decides it at once when one of its requests was not sent
   * (its kind never completed before) or did not complete within its deadline (it becomes the root
   * cause of its kind). The runner then blocks the requirement (check-runner.ts), as for the
   * checks' own requests, instead of judging the library's account of an answer that never came.
   */
  stall(): CheckHttpError | undefined {
    if (this.#blocked !== undefined) return this.#blocked;
    const late = this.#deadlines.find((d) => d.signal.aborted);
    if (late === undefined) return undefined;
    return CheckHttpError.late(`${late.exchange.method} ${late.path}`, late.deadline.expired(late.exchange.requestId), late.exchange.curl);
  }

  /** The last request a client sent, if any. */
  last(): ClientExchange | undefined {
    return this.exchanges[this.exchanges.length - 1];
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    try {
      assertOrigin(url, this.#origin);
    } catch (error) {
      if (error instanceof OriginRefused) this.refused.push(error.origin);
      throw error;
    }
    const target = new URL(url);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const fault = this.#ctx.http.fault;
    if (fault !== undefined) headers.set('x-iari-fault', fault);
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const exchange: ClientExchange = { method, url, status: undefined, requestId: undefined, errorBody: undefined, curl: this.#curl(method, url, headers, body) };
    this.exchanges.push(exchange);
    const rootPath = new URL(this.#ctx.http.root).pathname.replace(/\/+$/, '');
    const path = target.pathname.startsWith(rootPath) ? target.pathname.slice(rootPath.length) : target.pathname;
    const guard = this.#ctx.http.stalled.guard({ method, path, streamed: typeof body === 'string' && /"stream"\s*:\s*true/.test(body) });
    if (guard.kind === 'refused') {
      this.#blocked ??= CheckHttpError.refused(`${method} ${path}`, guard.root, exchange.curl);
      throw new TypeError(`iari: not sent: ${guard.root}`);
    }
    await this.#ctx.http.acquireSlot();
    const asked = guard.deadline(this.#timeoutMs);
    const deadline = AbortSignal.timeout(asked.ms);
    this.#deadlines.push({ path, signal: deadline, deadline: asked, exchange });
    // The running check's signal too (CheckHttp.forCheck): an abandoned check's library requests end with it.
    const signal = AbortSignal.any([deadline, ...(init?.signal == null ? [] : [init.signal]), ...(this.#ctx.http.signal === undefined ? [] : [this.#ctx.http.signal])]);
    const res = await this.#send(input instanceof Request ? input : url, { ...init, method, headers, signal });
    exchange.status = res.status;
    exchange.requestId = res.headers.get('x-request-id') ?? undefined;
    const limited = res.body === null ? null : res.body.pipeThrough(bodyLimit(this.#bodyLimit));
    const out = new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
    if (this.keepBodies) {
      const copy = out.clone().text().catch(() => '');
      exchange.body = copy;
    }
    if (res.status >= 400) {
      const text = await out.clone().text().catch(() => '');
      exchange.errorBody = this.#ctx.http.redact(text.length > 500 ? `${text.slice(0, 500)}...` : text);
    }
    return out;
  };

  /** A failure whose message is the client's own account of what went wrong, tied to the last exchange. */
  failure(message: string, detail: { expected?: unknown; received?: unknown } = {}): Failure {
    const f: Failure = { message: this.#ctx.http.redact(message) };
    if (detail.expected !== undefined) f.expected = clip(detail.expected);
    if ('received' in detail) f.received = detail.received === undefined ? '(absent)' : clip(typeof detail.received === 'string' ? this.#ctx.http.redact(detail.received) : detail.received);
    const last = this.last();
    if (last?.requestId !== undefined) f.requestId = last.requestId;
    if (last !== undefined) f.curl = last.curl;
    return f;
  }

  #curl(method: string, url: string, headers: Headers, body: string | undefined): string {
    const shown: Record<string, string> = {};
    let bearer = false;
    headers.forEach((value, name) => {
      // A deliberately wrong key (the 401 operations) is left out rather than shown as the token.
      if (name === 'authorization') bearer = this.#ctx.http.sendsToken && value === `Bearer ${this.#ctx.http.tokenForProbe()}`;
      else if (name === 'content-type' || name === 'x-iari-fault') shown[name] = value;
    });
    return buildCurl({ method, url, headers: shown, ...(body === undefined ? {} : { body }), bearer, secrets: this.#ctx.http.secretPairs, connectionHeaders: this.#ctx.http.connectionHeaders });
  }
}

/** What a library threw in iari's client process (client-process.ts): its clientErrorText, made there. */
export class ThrownInClient extends Error {
  override readonly name = 'ThrownInClient';
  constructor(readonly text: string) {
    super(text);
  }
}

/** The error a client threw, as the client words it: its class name and message. */
export function clientErrorText(error: unknown): string {
  if (error instanceof ThrownInClient) return error.text;
  if (error instanceof Error) {
    // The AI SDK names its errors (AI_APICallError); openai-node's classes keep the name "Error".
    const name = error.name !== 'Error' ? error.name : error.constructor.name;
    const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (cause: ${error.cause.message})` : '';
    return `${name}: ${error.message}${cause}`.replace(/\s+/g, ' ').trim();
  }
  // Not an Error: the AI SDK hands a stream's error chunk on as the server sent it (a plain object),
  // which String() writes "[object Object]" (issue 37): the object itself, in JSON, bounded.
  if (typeof error === 'object' && error !== null) {
    let json: string | undefined;
    try {
      json = JSON.stringify(error);
    } catch {
      json = undefined;
    }
    if (json !== undefined && json !== '{}') return `${json.length > 500 ? `${json.slice(0, 500)}…` : json} (as the stream's error part carried it)`;
    return `an error part with nothing readable in it (${Object.prototype.toString.call(error)})`;
  }
  return String(error);
}
