import { request } from 'undici';
import type { RequestGate } from './throttle.ts';
import { retryingFetch, type RateLimitRetry } from './rate-limit-retry.ts';

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
  /** `raw`: a 429 goes to the check as it is, never waited out (checks that exhaust limits on purpose). */
  rateLimit?: 'retry' | 'raw';
}

export interface HttpExchange {
  method: string;
  path: string;
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  bytes: Uint8Array;
  text: string;
  /** The parsed body when it is JSON, else undefined (see `jsonError`). */
  json: unknown;
  jsonError: string | undefined;
  requestId: string | undefined;
  /** Reproduces the request; the token is written as $IARI_TOKEN. */
  curl: string;
  /** Chunks as they arrived, with arrival time in ms since the request was sent (streams). */
  chunks: { at: number; bytes: Uint8Array }[];
  durationMs: number;
  /** The JSON body that was sent, if any. */
  sentJson: unknown;
  /** Set when the body could not be read to its end (connection closed, timeout, too large). */
  bodyError: string | undefined;
}

export interface SentRecord {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
  sentJson: unknown;
  json: unknown;
  headers: Record<string, string>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The checks' HTTP client (undici): every request has a timeout, a body cap and a curl line,
 * carries the run's fault header when one is set, passes the throttle, and is logged so later
 * checks (usage, receipts) can tie server records to the requests that caused them.
 */
export class CheckHttp {
  readonly root: string;
  readonly #token: string;
  /** Secret values and the shell text that stands for them in reports and curl lines, longest first. */
  readonly #secrets: [string, string][] = [];
  readonly secondToken: string | undefined;
  readonly #fault: string | undefined;
  readonly #gate: RequestGate;
  readonly #timeoutMs: number;
  readonly sent: SentRecord[] = [];
  /** Waits out 429s (absent: every 429 goes to the check as it is). */
  readonly rateLimits: RateLimitRetry | undefined;

  constructor(options: { root: string; token: string; secondToken?: string; fault?: string; gate: RequestGate; timeoutMs?: number; rateLimits?: RateLimitRetry }) {
    this.root = options.root.replace(/\/+$/, '');
    this.#token = options.token;
    this.secondToken = options.secondToken;
    this.registerSecret(options.token, '$IARI_TOKEN');
    if (options.secondToken !== undefined) this.registerSecret(options.secondToken, '$IARI_TOKEN_2');
    this.#fault = options.fault;
    this.#gate = options.gate;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.rateLimits = options.rateLimits;
  }

  get fault(): string | undefined {
    return this.#fault;
  }

  /** Registers a secret (or a piece of one) to be written as `placeholder` wherever it would appear. */
  registerSecret(value: string, placeholder: string): void {
    if (value.length === 0) return;
    this.#secrets.push([value, placeholder]);
    this.#secrets.sort((a, b) => b[0].length - a[0].length);
  }

  /** Replaces every registered secret in `s` with its shell placeholder (`$IARI_TOKEN`...). */
  redact(s: string): string {
    let out = s;
    for (const [value, placeholder] of this.#secrets) out = out.split(value).join(placeholder);
    return out;
  }

  /**
   * The run's token, for checks that must send it in a wrong form (another scheme, truncated).
   * Pieces of it must be registered with `registerSecret` before they are sent.
   */
  tokenForProbe(): string {
    return this.#token;
  }

  /** Waits for the throttle, for requests sent by other clients (the openai SDK). */
  acquireSlot(): Promise<void> {
    return this.#gate.acquire();
  }

  /** A `fetch` for SDK clients whose 429s are waited out like the checks' own (undefined: use the SDK's default). */
  sdkFetch(timeoutMs: number): typeof fetch | undefined {
    return this.rateLimits === undefined ? undefined : retryingFetch(this.rateLimits, this.#gate, { timeoutMs });
  }

  get(path: string, options: RequestOptions = {}): Promise<HttpExchange> {
    return this.send('GET', path, options);
  }

  post(path: string, json: unknown, options: RequestOptions = {}): Promise<HttpExchange> {
    return this.send('POST', path, { ...options, json });
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
    return auth === 'token' ? `Bearer ${this.#token}` : auth === 'none' ? undefined : auth.authorization;
  }

  async #sendOnce(method: string, path: string, options: RequestOptions): Promise<HttpExchange> {
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
    const url = this.root + path;
    const curl = this.#curl(method, url, headers, body);
    await this.#gate.acquire();
    const windowEntry = this.rateLimits?.noteSent(authorization);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    const send = () =>
      request(url, {
        method: method as 'GET',
        headers,
        ...(body === undefined ? {} : { body }),
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    let res;
    try {
      res = await send();
    } catch (error) {
      // A kept-alive socket the server closed meanwhile is the transport's race, not the server's answer:
      // an idempotent GET is sent once more; anything else fails the check.
      const code = (error as { code?: string }).code;
      const retriable = method === 'GET' && !signal.aborted && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE');
      if (!retriable) throw new CheckHttpError(`${method} ${path}: ${this.redact((error as Error).message)}`, curl);
      try {
        res = await send();
      } catch (again) {
        throw new CheckHttpError(`${method} ${path}: ${this.redact((again as Error).message)}`, curl);
      }
    }
    const chunks: { at: number; bytes: Uint8Array }[] = [];
    let total = 0;
    let bodyError: string | undefined;
    try {
      for await (const chunk of res.body) {
        const bytes = chunk as Uint8Array;
        chunks.push({ at: performance.now() - started, bytes });
        total += bytes.byteLength;
        if (total > MAX_BODY_BYTES) {
          res.body.destroy();
          throw new Error(`response body exceeds ${MAX_BODY_BYTES} bytes`);
        }
      }
    } catch (error) {
      // The status and headers arrived: keep what was read, so the checks judge the broken body.
      bodyError = this.redact((error as Error).message);
    }
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const c of chunks) {
      bytes.set(c.bytes, offset);
      offset += c.bytes.byteLength;
    }
    const text = new TextDecoder().decode(bytes);
    let json: unknown;
    let jsonError: string | undefined;
    try {
      json = JSON.parse(text);
    } catch (error) {
      jsonError = (error as Error).message;
    }
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      responseHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    const requestId = responseHeaders['x-request-id'];
    const used = (json as { usage?: { total_tokens?: unknown } } | undefined)?.usage?.total_tokens;
    if (windowEntry !== undefined && typeof used === 'number') windowEntry.tokens = used;
    const sentJson = options.json;
    this.sent.push({ method, path, status: res.statusCode, requestId, sentJson, json, headers: responseHeaders });
    return {
      method,
      path,
      status: res.statusCode,
      headers: responseHeaders,
      bytes,
      text,
      json,
      jsonError,
      requestId,
      curl,
      chunks,
      durationMs: performance.now() - started,
      sentJson,
      bodyError,
    };
  }

  #curl(method: string, url: string, headers: Record<string, string>, body: string | Uint8Array | undefined): string {
    const parts = ['curl', '-sS', '-N', '-X', method, shellQuote(url)];
    for (const [k, v] of Object.entries(headers)) {
      if (k === 'accept') continue;
      const value = this.redact(v);
      // The token placeholder must expand, so that header goes in double quotes.
      parts.push('-H', value.includes('$IARI_TOKEN') || value.includes('${IARI_TOKEN') ? `"${k}: ${value.replace(/(["\\`])/g, '\\$1')}"` : shellQuote(`${k}: ${value}`));
    }
    if (body !== undefined) {
      const s = typeof body === 'string' ? body : new TextDecoder().decode(body);
      parts.push('--data-raw', shellQuote(this.redact(s.length > 4096 ? `${s.slice(0, 4096)}...` : s)));
    }
    return parts.join(' ');
  }
}

/** A transport failure (refused, reset, timeout, oversized body); the calling check fails with it. */
export class CheckHttpError extends Error {
  override readonly name = 'CheckHttpError';
  readonly curl: string;
  constructor(message: string, curl: string) {
    super(message);
    this.curl = curl;
  }
}
