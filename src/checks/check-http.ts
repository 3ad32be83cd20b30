import { request } from 'undici';
import type { RequestGate } from './throttle.ts';
import { checkScopeSignal, formatDuration } from './check-deadline.ts';

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

  constructor(options: { root: string; token: string; secondToken?: string; fault?: string; gate: RequestGate; timeoutMs?: number }) {
    this.root = options.root.replace(/\/+$/, '');
    this.#token = options.token;
    this.secondToken = options.secondToken;
    this.registerSecret(options.token, '$IARI_TOKEN');
    if (options.secondToken !== undefined) this.registerSecret(options.secondToken, '$IARI_TOKEN_2');
    this.#fault = options.fault;
    this.#gate = options.gate;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  get fault(): string | undefined {
    return this.#fault;
  }

  /** The total deadline of one request (--request-timeout). */
  get timeoutMs(): number {
    return this.#timeoutMs;
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

  get(path: string, options: RequestOptions = {}): Promise<HttpExchange> {
    return this.send('GET', path, options);
  }

  post(path: string, json: unknown, options: RequestOptions = {}): Promise<HttpExchange> {
    return this.send('POST', path, { ...options, json });
  }

  async send(method: string, path: string, options: RequestOptions = {}): Promise<HttpExchange> {
    const headers: Record<string, string> = { accept: '*/*', ...(options.headers ?? {}) };
    const auth = options.auth ?? 'token';
    if (auth === 'token') headers['authorization'] = `Bearer ${this.#token}`;
    else if (auth !== 'none') headers['authorization'] = auth.authorization;
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
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const started = performance.now();
    // A total deadline (not an idle timeout: a server that keeps sending bytes cannot keep the request
    // alive), and the running check's signal, aborted when the check passes its own deadline.
    const deadline = AbortSignal.timeout(timeoutMs);
    const scoped = checkScopeSignal();
    const signal = scoped === undefined ? deadline : AbortSignal.any([deadline, scoped]);
    const why = (error: unknown): string => {
      if (deadline.aborted) return `no complete response within the request deadline of ${formatDuration(timeoutMs)} (--request-timeout)`;
      if (scoped?.aborted === true) return `aborted: ${(scoped.reason as Error | undefined)?.message ?? 'the check was abandoned'}`;
      return this.redact((error as Error).message);
    };
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
      if (!retriable) throw new CheckHttpError(`${method} ${path}: ${why(error)}`, curl);
      try {
        res = await send();
      } catch (again) {
        throw new CheckHttpError(`${method} ${path}: ${why(again)}`, curl);
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
      // Cut off by iari (a deadline): the check fails saying so, not on the truncated body.
      if (signal.aborted) throw new CheckHttpError(`${method} ${path}: answered ${res.statusCode}, then ${why(error)}`, curl);
      // The server broke the body off: keep what was read, so the checks judge the broken body.
      bodyError = why(error);
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
