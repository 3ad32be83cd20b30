import { Stalls, type LateAnswer } from './stalls.ts';
import { collectGarbage } from '../../collect-garbage.ts';
import type { Dispatcher } from 'undici';
import { fetchVia } from '../../client/dispatcher.ts';
import type { RequestGate } from '../rate-limits/throttle.ts';
import { violation, type BoundViolation } from '../../client/body-limits.ts';
import type { HttpExchange } from '../kernel/exchange.ts';
import { HttpCore, type Ended } from '../../client/http-core.ts';
import type { HeaderSpec } from '../../client/connection-options.ts';
import { Secrets } from '../../client/secrets.ts';
import { NO_TOKEN, NO_TOKEN_STAND_IN } from '../../client/token.ts';
import { parseJsonBounded, type BoundedJson } from '../../client/json-depth.ts';
import { retryingFetch, type RateLimitRetry } from '../rate-limits/rate-limit-retry.ts';

/** How a request authenticates: the run's token, no Authorization header, or a literal header value. */
export type Auth = 'token' | 'none' | { authorization: string };

export interface RequestOptions {
  auth?: Auth;
  /** A JSON value to send as `application/json`, or raw bytes with an explicit content type. */
  json?: unknown;
  raw?: { body: string | Uint8Array; contentType: string | null };
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Do not add the run's fault header (used by checks that must see the faithful behaviour). */
  noFault?: boolean;
  /** Aborts the request (besides its deadline); default the running check's signal (`CheckHttp.forCheck`). */
  signal?: AbortSignal;
  /** `raw`: a 429 goes to the check as it is, never waited out (checks that exhaust limits on purpose). */
  rateLimit?: 'retry' | 'raw';
}

export type { HttpExchange } from '../kernel/exchange.ts';

/**
 * One request of the run, kept to its end for the checks that look back over the run (ERR-015,
 * HDR headers, LIMITS counts): the response body only for a 5xx (ERR-015 judges its shape), so the
 * log never holds the run's bodies (eight 7 MB answers were 56 MiB of it).
 */
/** Past this size an answer is large: the garbage of earlier ones is collected first. */
const LARGE_BODY_BYTES = 1024 * 1024;

export interface SentRecord {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
  /** The parsed body of a 5xx answer; undefined for every other status. */
  json: unknown;
  headers: Record<string, string>;
}


export interface CheckHttpOptions {
  root: string;
  token: string;
  secondToken?: string;
  fault?: string;
  gate: RequestGate;
  timeoutMs?: number;
  rateLimits?: RateLimitRetry;
  dispatcher: Dispatcher;
  /** The `--header` headers the dispatcher adds: the curl lines carry them. */
  connectionHeaders?: readonly HeaderSpec[];
  stalls?: Stalls;
}

/**
 * The checks' HTTP client: an adapter on the one HTTP core (src/client/http-core.ts: the total
 * deadline, the body bounds, the curl line, the transport error classes) that adds what the checks
 * need: the run's fault header, the throttle, 429s waited out (rate-limit-retry.ts), the stall
 * record (stalls.ts), the running check's signal, JSON parsed within its depth bound, and a log of
 * the run's requests so later checks (usage, receipts) can tie server records to them.
 */
export class CheckHttp {
  readonly root: string;
  readonly #token: string;
  /** Secret values and the shell text that stands for them in reports and curl lines. */
  readonly #secrets: Secrets;
  readonly secondToken: string | undefined;
  readonly #fault: string | undefined;
  readonly #gate: RequestGate;
  readonly #timeoutMs: number;
  readonly sent: SentRecord[];
  /** The running check's signal (`forCheck`): aborted when the check passes its deadline; undefined outside a check. */
  readonly signal: AbortSignal | undefined;
  /** Waits out 429s (absent: every 429 goes to the check as it is). */
  readonly rateLimits: RateLimitRetry | undefined;

  /** The core on the run's dispatcher: every request of the run, the client libraries' included, goes through that dispatcher. */
  readonly #core: HttpCore;
  /** A fetch through the run's dispatcher, for the client libraries run as checks. */
  readonly fetch: typeof fetch;

  constructor(options: CheckHttpOptions, scope?: { run: CheckHttp; signal: AbortSignal }) {
    const run = scope?.run;
    this.signal = scope?.signal;
    this.stalled = run?.stalled ?? options.stalls ?? new Stalls();
    this.#secrets = run === undefined ? new Secrets() : run.#secrets;
    this.#core = run === undefined ? new HttpCore(options.dispatcher, this.#secrets, options.connectionHeaders) : run.#core;
    this.fetch = run?.fetch ?? fetchVia(options.dispatcher);
    this.sent = run?.sent ?? [];
    this.#defaults = run === undefined ? {} : run.#defaults;
    this.root = options.root.replace(/\/+$/, '');
    this.#token = options.token;
    this.secondToken = options.secondToken;
    if (run === undefined) {
      this.registerSecret(options.token, '$IARI_TOKEN');
      if (options.secondToken !== undefined) this.registerSecret(options.secondToken, '$IARI_TOKEN_2');
    }
    this.#fault = options.fault;
    this.#gate = options.gate;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.rateLimits = options.rateLimits;
    this.#options = options;
  }

  readonly #options: CheckHttpOptions;

  /** The run's request defaults (useBodyDefaults), shared with every check's client. */
  readonly #defaults: { body?: (path: string, json: unknown) => Promise<unknown> };

  /**
   * Gives every POST body of the run, every check's included, its defaults before it is sent (the
   * output bound, output-bound.ts): set once by the runner, which knows the checks' requests.
   */
  useBodyDefaults(body: (path: string, json: unknown) => Promise<unknown>): void {
    this.#defaults.body = body;
  }

  /**
   * The run's client for one check: the same log, secrets, stall record, throttle and dispatcher,
   * every request carrying `signal` (aborted when the check passes its deadline, check-runner.ts).
   */
  forCheck(signal: AbortSignal): CheckHttp {
    return new CheckHttp(this.#options, { run: this, signal });
  }

  get fault(): string | undefined {
    return this.#fault;
  }

  /** The run's `--header` headers (its dispatcher sends them): every curl line of the run carries them. */
  get connectionHeaders(): readonly HeaderSpec[] {
    return this.#core.connectionHeaders;
  }

  /** The total deadline of one request (--request-timeout); also given to the client libraries of the CLIENT area. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Registers a secret (or a piece of one) to be written as `placeholder` wherever it would appear. */
  registerSecret(value: string, placeholder: string): void {
    this.#secrets.register(value, placeholder);
  }

  /** The registered secrets with the shell variable written for each, longest first (for curl lines). */
  get secretPairs(): readonly (readonly [string, string])[] {
    return this.#secrets.pairs;
  }

  /** Replaces every registered secret in `s` with its shell placeholder (`$IARI_TOKEN`...). */
  redact(s: string): string {
    return this.#secrets.redact(s);
  }

  /**
   * The run's token, for checks that must send it in a wrong form (another scheme, truncated).
   * Pieces of it must be registered with `registerSecret` before they are sent.
   */
  tokenForProbe(): string {
    return this.#token === NO_TOKEN ? NO_TOKEN_STAND_IN : this.#token;
  }

  /** False when the run sends no token (issue 43: none named and $IARI_TOKEN unset): its requests carry no Authorization. */
  get sendsToken(): boolean {
    return this.#token !== NO_TOKEN;
  }

  /** `f` with the stand-in key a client library was given (tokenForProbe in a run without a token) taken off each request. */
  withoutStandIn(f: typeof fetch): typeof fetch {
    if (this.sendsToken) return f;
    return (input, init) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      if (headers.get('authorization') === `Bearer ${NO_TOKEN_STAND_IN}`) headers.delete('authorization');
      return f(input, { ...init, headers });
    };
  }

  /** The Authorization header of the run's token for a request built by hand: none when the run sends no token. */
  tokenHeader(): { authorization?: string } {
    return this.#token === NO_TOKEN ? {} : { authorization: `Bearer ${this.#token}` };
  }

  /** Waits for the throttle, for requests sent by other clients (the openai SDK). */
  acquireSlot(): Promise<void> {
    return this.#gate.acquire();
  }

  /** A `fetch` for SDK clients whose 429s are waited out like the checks' own (undefined: use the SDK's default). */
  sdkFetch(timeoutMs: number, fetchImpl?: typeof fetch): typeof fetch | undefined {
    return this.rateLimits === undefined ? undefined : retryingFetch(this.rateLimits, this.#gate, { timeoutMs, fetchImpl: fetchImpl ?? this.fetch });
  }

  get(path: string, options: RequestOptions = {}): Promise<HttpExchange> {
    return this.send('GET', path, options);
  }

  post(path: string, json: unknown, options: RequestOptions = {}): Promise<HttpExchange> {
    const defaults = this.#defaults.body;
    if (defaults === undefined) return this.send('POST', path, { ...options, json });
    return defaults(path, json).then((body) => this.send('POST', path, { ...options, json: body }));
  }

  /** Sends a request; a rate-limit 429 is waited out and the request sent again (rate-limit-retry.ts) unless `rateLimit: 'raw'`. */
  send(method: string, path: string, options: RequestOptions = {}): Promise<HttpExchange> {
    const retry = this.rateLimits;
    if (retry === undefined || options.rateLimit === 'raw') return this.#sendOnce(method, path, options);
    const account = (options.auth ?? 'token') === 'token' ? 'run' : 'other';
    return retry.run({ method, path, authorization: this.#authorization(options), account }, () => this.#sendOnce(method, path, options), (ex) => ex);
  }

  #authorization(options: RequestOptions): string | undefined {
    const auth = options.auth ?? 'token';
    if (auth === 'token') return this.#token === NO_TOKEN ? undefined : `Bearer ${this.#token}`;
    return auth === 'none' ? undefined : auth.authorization;
  }

  /**
   * Requests whose answer never completed within the request deadline, by kind (method, path,
   * streamed or not): the root cause every later request of that kind shares (issue 22). Such a
   * request is not sent again to wait out another deadline; it fails at once, naming the first.
   * After one stall, a request of a new kind gets a shorter deadline (stalls.ts).
   */
  readonly stalled: Stalls;

  /** The root causes found so far: one message per kind of request that never completed. */
  get stalls(): readonly string[] {
    return this.stalled.all;
  }

  async #sendOnce(method: string, path: string, options: RequestOptions): Promise<HttpExchange> {
    const streamed = (options.json as { stream?: unknown } | undefined)?.stream === true;
    // A bounds probe the bundled mock answers with a fault (x-iari-probe, areas/bounds.ts) is a kind of its own.
    const guard = this.stalled.guard({ method, path, streamed, probe: options.headers?.['x-iari-probe'] });
    if (guard.kind === 'refused') throw CheckHttpError.refused(`${method} ${path}`, guard.root, '');
    const headers: Record<string, string> = { accept: '*/*', ...(options.headers ?? {}) };
    const authorization = this.#authorization(options);
    if (authorization !== undefined) headers['authorization'] = authorization;
    if (this.#fault !== undefined && options.noFault !== true) headers['x-iari-fault'] = this.#fault;
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw.body;
      if (options.raw.contentType !== null) headers['content-type'] = options.raw.contentType;
    }
    await this.#gate.acquire();
    const windowEntry = this.rateLimits?.noteSent(authorization);
    const asked = guard.deadline(options.timeoutMs ?? this.#timeoutMs);
    const result = await this.#core.send({
      method,
      url: this.root + path,
      headers,
      body,
      deadlineMs: asked.ms,
      signal: options.signal ?? this.signal,
      resendOnReset: method === 'GET',
      curl: { omit: ['accept'], stream: true, maxBodyChars: 4096 },
    });
    const { curl } = result;
    // What ended the exchange early: a bound iari keeps (HDR-012, HDR-016...) or the check's abandonment.
    const fail = (ended: Ended, prefix = '', requestId?: string): CheckHttpError =>
      ended.cause === 'deadline' ? CheckHttpError.late(`${method} ${path}`, asked.expired(requestId), curl, prefix) : new CheckHttpError(`${method} ${path}: ${prefix}${ended.message}`, curl, ended.violation);
    if (result.kind === 'failed') throw fail(result.ended);
    const { status, headers: responseHeaders, body: read, startedAt: started } = result;
    const answered = `answered ${status}, then `;
    // The garbage of earlier large answers goes before this one is decoded and parsed (src/collect-garbage.ts).
    if (read.bytes > LARGE_BODY_BYTES) collectGarbage();
    // Cut off by iari at a size bound: the check fails saying so, not on the truncated body.
    if (read.violation !== undefined) throw new CheckHttpError(`${method} ${path}: ${answered}${read.violation.message}`, curl, read.violation);
    let bodyError: string | undefined;
    let bodyViolation: BoundViolation | undefined;
    if (result.ended !== undefined) {
      if (result.ended.cause === 'deadline' || result.ended.cause === 'aborted') throw fail(result.ended, answered, responseHeaders['x-request-id']);
      // The server broke the body off: keep what was read, so the checks judge the broken body.
      bodyError = result.ended.message;
      bodyViolation = result.ended.violation;
    }
    const bytes = new Uint8Array(read.bytes);
    let offset = 0;
    // One copy of the body: each read becomes a view into it (the reads themselves are dropped).
    const chunks = read.chunks.map((c) => {
      bytes.set(c.bytes, offset);
      const view = { at: c.at, bytes: bytes.subarray(offset, offset + c.bytes.byteLength) };
      offset += c.bytes.byteLength;
      return view;
    });
    let json: unknown;
    let jsonError: string | undefined;
    // The first characters decide whether the body is JSON (a UTF-8 character cut at byte 256 waits, not U+FFFD).
    const head = new TextDecoder().decode(bytes.subarray(0, 256), { stream: true });
    const first = /^\s*(\S)/.exec(head)?.[1];
    const looksJson = first !== undefined && '{["-0123456789tfn'.includes(first);
    // The whole text is decoded for JSON, and kept beside the bytes only when small: an answer of
    // megabytes (an event stream, mostly) is decoded again where a check reads it (issue 42: five 7 MB
    // streams held as text too added 35 MiB to a run's peak).
    const small = bytes.length <= LARGE_BODY_BYTES;
    const text = small || looksJson ? new TextDecoder().decode(bytes) : undefined;
    // Only what looks like JSON is parsed, and only after its nesting was checked (HDR-015).
    const parsed: BoundedJson = looksJson && text !== undefined ? parseJsonBounded(text) : { ok: false, tooDeep: false, error: 'not JSON' };
    if (parsed.ok) json = parsed.value;
    else if (parsed.tooDeep) {
      const v = violation('json-depth', `the body is ${parsed.error}`);
      throw new CheckHttpError(`${method} ${path}: ${answered}${v.message}`, curl, v);
    } else jsonError = parsed.error === 'not JSON' ? safeParseError(head) : parsed.error;
    const kept = small ? text : undefined;
    const requestId = responseHeaders['x-request-id'];
    if (result.ended === undefined) this.stalled.completed(performance.now() - started);
    const used = (json as { usage?: { total_tokens?: unknown } } | undefined)?.usage?.total_tokens;
    if (windowEntry !== undefined && typeof used === 'number') windowEntry.tokens = used;
    const sentJson = options.json;
    this.sent.push({ method, path, status, requestId, json: status >= 500 ? json : undefined, headers: responseHeaders });
    return {
      method,
      path,
      status,
      headers: responseHeaders,
      bytes,
      get text() {
        return kept ?? new TextDecoder().decode(bytes);
      },
      json,
      jsonError,
      requestId,
      curl,
      chunks,
      durationMs: performance.now() - started,
      sentJson,
      bodyError,
      ...(bodyViolation === undefined ? {} : { violation: bodyViolation }),
    };
  }
}

/** A transport failure (refused, reset, timeout, oversized body); the calling check fails with it. */
export class CheckHttpError extends Error {
  override readonly name = 'CheckHttpError';
  readonly curl: string;
  /** The bound the response crossed (body-limits.ts), when that is why the request failed. */
  readonly violation: BoundViolation | undefined;
  /** Not sent: an earlier request of the same kind never completed (the root cause is in the message). */
  readonly blocked: boolean;
  constructor(message: string, curl: string, violation?: BoundViolation, blocked = false) {
    super(message);
    this.curl = curl;
    this.violation = violation;
    this.blocked = blocked;
  }

  /** `what` (method and path) was not sent: its kind never completed before (stalls.ts); `root` names the first. */
  static refused(what: string, root: string, curl: string): CheckHttpError {
    return new CheckHttpError(`${what}: ${root}`, curl, undefined, true);
  }

  /** `what` did not complete within its deadline (stalls.ts): blocked on its root cause, or the HDR-012 violation after `prefix`. */
  static late(what: string, late: LateAnswer, curl: string, prefix = ''): CheckHttpError {
    return late.kind === 'not-decided' ? CheckHttpError.refused(what, late.root, curl) : new CheckHttpError(`${what}: ${prefix}${late.violation.message}`, curl, late.violation);
  }
}

/** JSON.parse's own message for a body that does not look like JSON (it fails on the first character: cheap). */
function safeParseError(text: string): string {
  try {
    JSON.parse(text.length > 64 ? text.slice(0, 64) : text);
    return 'not JSON';
  } catch (error) {
    return (error as Error).message;
  }
}
