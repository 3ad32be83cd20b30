import { Agent, type Dispatcher } from 'undici';
import { normalizeBaseUrl, type NormalizedBaseUrl } from './base-url.ts';
import { buildCurl, TOKEN_PLACEHOLDER } from './curl.ts';
import { errorCodeOf, transportClass } from './transport-errors.ts';
import { StreamValidator, type StreamCheckOptions, type StreamCheckResult } from './stream-checker.ts';

export interface Timeouts {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From sending to the complete response head. */
  headersMs: number;
  /** Longest silence between two body reads. */
  bodyIdleMs: number;
  /** The whole exchange, whatever happens. */
  deadlineMs: number;
}

export const defaultTimeouts: Timeouts = { connectMs: 5_000, headersMs: 30_000, bodyIdleMs: 30_000, deadlineMs: 120_000 };

export interface HttpClientOptions {
  /** With or without trailing `/v1`, with or without trailing slash. */
  baseUrl: string;
  /** Bearer token, held in memory only: never logged, never in a result or error message. */
  token?: string;
  timeouts?: Partial<Timeouts>;
  /** A dispatcher owned by the caller (e.g. the load engine's pool); default: an Agent owned by this client. */
  dispatcher?: Dispatcher;
  /** `x-iari-fault` header sent on every request (meta-suite against the mock). */
  fault?: string;
  /** Responses larger than this are cut off and reported `body-too-large` (default 16 MiB). */
  maxBodyBytes?: number;
}

/** How a request authenticates: the run's token, no Authorization header, or a literal header value. */
export type Auth = 'token' | 'none' | { authorization: string };

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** Path from the root, e.g. `/v1/chat/completions` or `/_iari/sendlog`. */
  path: string;
  query?: Record<string, string | number | boolean>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Raw body; set `headers['content-type']` yourself. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Default `token` when the client has one, else `none`. */
  auth?: Auth;
  /** `x-iari-fault` for this request; `null` suppresses the client's default. */
  fault?: string | null;
  timeouts?: Partial<Timeouts>;
  /** Called for every body read as it arrives (before the reader), with its arrival time. */
  onChunk?: (chunk: Buffer, arrivedAt: bigint, index: number) => void;
  /** Feed a stream validator with a 2xx body and return its result in `sse`. */
  sse?: StreamCheckOptions;
  /** Keep the per-read records (bytes and arrival) in the result (default true). */
  keepChunks?: boolean;
  /** Keep the whole body bytes in the result (default true). */
  keepBody?: boolean;
  signal?: AbortSignal;
}

export interface ChunkRecord {
  arrivedAt: bigint;
  offset: number;
  bytes: Buffer;
}

export interface ExchangeTiming {
  /** hrtime when the request was handed to undici. */
  sentAt: bigint;
  /** hrtime when the response head was complete. */
  headersAt: bigint | undefined;
  /** hrtime when the exchange ended (body end, error or deadline). */
  endedAt: bigint;
}

export interface ResponseData {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  requestId: string | undefined;
  body: Buffer;
  bodyBytes: number;
  chunks: ChunkRecord[];
  sse: StreamCheckResult | undefined;
}

interface ResultBase {
  method: string;
  url: string;
  /** Reproduces the request with `$IARI_TOKEN` for the token. */
  curl: string;
  timing: ExchangeTiming;
}

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'deadline';

export type HttpResult =
  | (ResultBase & { kind: 'ok' } & ResponseData)
  | (ResultBase & { kind: 'timeout'; phase: TimeoutPhase; message: string; partial: ResponseData | undefined })
  | (ResultBase & { kind: 'reset'; message: string; partial: ResponseData | undefined })
  | (ResultBase & { kind: 'connect-error'; code: string; message: string })
  | (ResultBase & { kind: 'body-too-large'; limit: number; partial: ResponseData })
  | (ResultBase & { kind: 'aborted'; message: string; partial: ResponseData | undefined })
  | (ResultBase & { kind: 'error'; code: string; message: string; partial: ResponseData | undefined });

function joinHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/**
 * The undici client of the suites and the load engine. Never throws on what the server does:
 * every outcome is a variant of `HttpResult`, and every wait is bounded.
 */
export class HttpClient {
  readonly base: NormalizedBaseUrl;
  readonly timeouts: Timeouts;
  readonly #token: string | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #fault: string | undefined;
  readonly #maxBodyBytes: number;

  constructor(options: HttpClientOptions) {
    this.base = normalizeBaseUrl(options.baseUrl);
    this.timeouts = { ...defaultTimeouts, ...options.timeouts };
    this.#token = options.token === '' ? undefined : options.token;
    this.#fault = options.fault;
    this.#maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    if (options.dispatcher !== undefined) {
      this.#dispatcher = options.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      this.#dispatcher = new Agent({ connectTimeout: this.timeouts.connectMs, keepAliveTimeout: 4_000 });
      this.#ownsDispatcher = true;
    }
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** Replace every occurrence of the token with `$IARI_TOKEN`. */
  redact(s: string): string {
    return this.#token === undefined ? s : s.split(this.#token).join(TOKEN_PLACEHOLDER);
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async request(req: HttpRequest): Promise<HttpResult> {
    const method = req.method ?? (req.json !== undefined || req.body !== undefined ? 'POST' : 'GET');
    const t: Timeouts = { ...this.timeouts, ...req.timeouts };
    let path = req.path.startsWith('/') ? req.path : '/' + req.path;
    if (req.query !== undefined) {
      const qs = new URLSearchParams(Object.entries(req.query).map(([k, v]) => [k, String(v)])).toString();
      if (qs !== '') path += (path.includes('?') ? '&' : '?') + qs;
    }
    const url = this.base.root + path;
    const target = new URL(url);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: string | Uint8Array | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    }
    const auth = req.auth ?? (this.#token !== undefined ? 'token' : 'none');
    let bearer = false;
    if (auth === 'token') {
      if (this.#token !== undefined) {
        headers['authorization'] = `Bearer ${this.#token}`;
        bearer = true;
      }
    } else if (auth !== 'none') headers['authorization'] = auth.authorization;
    const fault = req.fault === undefined ? this.#fault : req.fault;
    if (fault !== undefined && fault !== null) headers['x-iari-fault'] = fault;
    if (req.sse !== undefined) headers['accept'] ??= 'text/event-stream';

    const curlHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (k !== 'authorization' || auth !== 'token') curlHeaders[k] = v;
    const secrets = this.#token === undefined ? [] : [this.#token];
    const curl = buildCurl({ method, url, headers: curlHeaders, ...(body === undefined ? {} : { body }), bearer, secrets, stream: req.sse !== undefined });
    const base = { method, url, curl };

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceeded(`deadline of ${t.deadlineMs} ms exceeded`)), t.deadlineMs);
    const signal = req.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, req.signal]);
    const sentAt = process.hrtime.bigint();
    const timing: ExchangeTiming = { sentAt, headersAt: undefined, endedAt: sentAt };
    let partial: ResponseData | undefined;
    let validator: StreamValidator | undefined;

    const classify = (err: unknown): HttpResult => {
      timing.endedAt = process.hrtime.bigint();
      if (partial !== undefined && validator !== undefined && partial.sse === undefined) partial.sse = validator.end();
      const message = this.redact(err instanceof Error ? err.message : String(err));
      if (deadline.signal.aborted) return { ...base, timing, kind: 'timeout', phase: 'deadline', message: `deadline of ${t.deadlineMs} ms exceeded`, partial };
      if (req.signal?.aborted === true) return { ...base, timing, kind: 'aborted', message, partial };
      const code = errorCodeOf(err) ?? (err as { name?: string } | null)?.name ?? 'UNKNOWN';
      const kind = transportClass(err);
      if (code === 'UND_ERR_CONNECT_TIMEOUT') return { ...base, timing, kind: 'timeout', phase: 'connect', message, partial };
      if (code === 'UND_ERR_HEADERS_TIMEOUT') return { ...base, timing, kind: 'timeout', phase: 'headers', message, partial };
      if (code === 'UND_ERR_BODY_TIMEOUT') return { ...base, timing, kind: 'timeout', phase: 'body', message, partial };
      if (kind === 'reset') return { ...base, timing, kind: 'reset', message, partial };
      if (kind === 'connect' && partial === undefined) return { ...base, timing, kind: 'connect-error', code, message };
      return { ...base, timing, kind: 'error', code, message, partial };
    };

    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.#dispatcher.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method,
          headers,
          body: body ?? null,
          headersTimeout: t.headersMs,
          bodyTimeout: t.bodyIdleMs,
          signal,
        });
      } catch (err) {
        return classify(err);
      }
      timing.headersAt = process.hrtime.bigint();
      const resHeaders = joinHeaders(res.headers as Record<string, string | string[] | undefined>);
      const keepChunks = req.keepChunks ?? true;
      const keepBody = req.keepBody ?? true;
      const chunks: ChunkRecord[] = [];
      const data: ResponseData = {
        status: res.statusCode,
        headers: resHeaders,
        requestId: resHeaders['x-request-id'],
        body: Buffer.alloc(0),
        bodyBytes: 0,
        chunks,
        sse: undefined,
      };
      partial = data;
      if (req.sse !== undefined && res.statusCode >= 200 && res.statusCode < 300) validator = new StreamValidator(req.sse);
      const bodyParts: Buffer[] = [];
      const limit = this.#maxBodyBytes;
      const outcome = await new Promise<'end' | 'too-large' | { error: unknown }>((resolve) => {
        let index = 0;
        const stream = res.body;
        const onData = (chunk: Buffer): void => {
          const arrivedAt = process.hrtime.bigint();
          const offset = data.bodyBytes;
          data.bodyBytes += chunk.length;
          if (data.bodyBytes > limit) {
            stream.off('data', onData);
            stream.destroy();
            resolve('too-large');
            return;
          }
          if (keepChunks) chunks.push({ arrivedAt, offset, bytes: chunk });
          if (keepBody) bodyParts.push(chunk);
          req.onChunk?.(chunk, arrivedAt, index);
          validator?.feed(chunk, arrivedAt);
          index++;
        };
        stream.on('data', onData);
        stream.once('end', () => resolve('end'));
        stream.once('error', (error: unknown) => resolve({ error }));
        stream.once('close', () => resolve({ error: Object.assign(new Error('response body closed before its end'), { code: 'UND_ERR_SOCKET' }) }));
      });
      data.body = bodyParts.length === 1 ? (bodyParts[0] as Buffer) : Buffer.concat(bodyParts);
      if (outcome === 'end') {
        timing.endedAt = process.hrtime.bigint();
        if (validator !== undefined) data.sse = validator.end();
        return { ...base, timing, kind: 'ok', ...data };
      }
      if (outcome === 'too-large') {
        timing.endedAt = process.hrtime.bigint();
        if (validator !== undefined) data.sse = validator.end();
        return { ...base, timing, kind: 'body-too-large', limit, partial: data };
      }
      return classify(outcome.error);
    } finally {
      clearTimeout(timer);
    }
  }
}
