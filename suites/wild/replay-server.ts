import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { isLoopbackHost } from '../../src/client/connection-options.ts';
import type { LoadedExchange, ReplayMatch } from './corpus.ts';

/**
 * The replay server: answers the requests a recorded exchange matches with the recorded status,
 * headers and bytes, and forwards every other request to the bundled faithful mock, so iari's
 * ordinary checks (`iari test --only IDS` or the library) run against a server that behaves like
 * the real one on exactly that route. Loopback only, with a cap on request bodies, on open
 * connections and on the time a forwarded request may take.
 */

export interface ReplayServerOptions {
  exchanges: readonly LoadedExchange[];
  /** Origin of the mock every unmatched request goes to; must be a loopback address. */
  upstream: string;
  /** Tokens the mock issued ("valid" credentials); anything else in Authorization is "invalid". */
  validTokens: readonly string[];
  /** Model ids the mock lists ("listed" models). */
  listedModels: readonly string[];
  /** Seconds since the epoch, for `shiftCreated` (tests pass a fixed clock). */
  nowSeconds?: () => number;
  maxBodyBytes?: number;
  maxConnections?: number;
  forwardTimeoutMs?: number;
}

export interface ReplayServer {
  /** e.g. http://127.0.0.1:PORT (iari's root; the paths carry /v1). */
  origin: string;
  /** How many times each exchange (by id) was served. */
  served(id: string): number;
  /** The requests that were replayed, in order (method, path, exchange id). */
  log: { method: string; path: string; id: string }[];
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 8 * 1024 * 1024;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'content-length']);

interface Incoming {
  method: string;
  path: string;
  authorization: string | undefined;
  json: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether `req` is one of the requests `m` describes. Absent keys match anything. */
export function matches(m: ReplayMatch, req: Incoming, valid: ReadonlySet<string>, listed: ReadonlySet<string>): boolean {
  if (m.method !== req.method) return false;
  if (m.path !== undefined && m.path !== req.path) return false;
  if (m.pathPattern !== undefined && !new RegExp(m.pathPattern).test(req.path)) return false;
  // Body predicates need a JSON object: a request that is not one (invalid JSON, an array) never matches them.
  if ((m.bodyIncludes !== undefined || m.bodyLacks !== undefined) && !isRecord(req.json)) return false;
  const body = isRecord(req.json) ? req.json : {};
  if (m.stream !== undefined && (body['stream'] === true) !== m.stream) return false;
  const options = body['stream_options'];
  if (m.includeUsage !== undefined && (isRecord(options) && options['include_usage'] === true) !== m.includeUsage) return false;
  const tools = body['tools'];
  if (m.tools !== undefined && (Array.isArray(tools) && tools.length > 0) !== m.tools) return false;
  if (m.n !== undefined && (typeof body['n'] === 'number' ? body['n'] : 1) !== m.n) return false;
  if (m.auth !== undefined && m.auth !== 'any') {
    const a = req.authorization;
    const kind = a === undefined ? 'none' : /^Bearer (.+)$/.exec(a) !== null && valid.has(a.slice('Bearer '.length)) ? 'valid' : 'invalid';
    if (m.auth === 'not-valid' ? kind === 'valid' : kind !== m.auth) return false;
  }
  if (m.model !== undefined && m.model !== 'any') {
    const model = body['model'];
    // unlisted: a model string the mock does not list (a missing or non-string model is neither).
    if (typeof model !== 'string') return false;
    if ((m.model === 'listed') !== listed.has(model)) return false;
  }
  if (m.bodyIncludes !== undefined) {
    for (const [k, v] of Object.entries(m.bodyIncludes)) if (!sameJson(body[k], v)) return false;
  }
  if (m.bodyLacks !== undefined && m.bodyLacks.some((k) => k in body)) return false;
  return true;
}

/** Moves every `"created": <integer>` by one offset so the first one becomes `now`. */
export function shiftCreated(text: string, now: number): string {
  const first = /"created"\s*:\s*(\d+)/.exec(text);
  if (first === null) return text;
  const offset = now - Number(first[1]);
  return text.replace(/("created"\s*:\s*)(\d+)/g, (_all, head: string, value: string) => `${head}${Number(value) + offset}`);
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let total = 0;
    req.on('data', (c: Buffer) => {
      total += c.byteLength;
      if (total > max) {
        resolve('too-large');
        req.destroy();
        return;
      }
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** Splits an event stream after each blank line, so events leave as separate writes. */
function eventWrites(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i + 1 < bytes.length; i += 1) {
    if (bytes[i] === 0x0a && bytes[i + 1] === 0x0a) {
      out.push(bytes.subarray(start, i + 2));
      start = i + 2;
    }
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const upstream = new URL(options.upstream);
  if (!isLoopbackHost(upstream.hostname)) throw new Error(`replay server: upstream must be a loopback address, not ${upstream.hostname}`);
  const valid = new Set(options.validTokens);
  const listed = new Set(options.listedModels);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const forwardTimeoutMs = options.forwardTimeoutMs ?? 15_000;
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const served = new Map<string, number>();
  const log: ReplayServer['log'] = [];
  const sockets = new Set<Socket>();

  async function replay(ex: LoadedExchange, res: ServerResponse): Promise<void> {
    let bytes = ex.bodyBytes;
    if (ex.replay.shiftCreated === true) bytes = new TextEncoder().encode(shiftCreated(new TextDecoder().decode(bytes), now()));
    // A server that stamps its process start time (LocalAI) sends a created that is days old; keep that age.
    else if (ex.replay.createdAgeSeconds !== undefined) bytes = new TextEncoder().encode(shiftCreated(new TextDecoder().decode(bytes), now() - ex.replay.createdAgeSeconds));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.response.headers ?? {})) if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
    if (ex.response.sse !== undefined) {
      res.writeHead(ex.response.status, headers);
      for (const part of eventWrites(bytes)) res.write(part);
      res.end();
      return;
    }
    res.writeHead(ex.response.status, { ...headers, 'content-length': String(bytes.byteLength) });
    res.end(bytes);
  }

  async function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k)) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const up = await request(new URL(req.url ?? '/', upstream), {
      method: (req.method ?? 'GET') as 'GET',
      headers,
      ...(body.byteLength === 0 ? {} : { body }),
      headersTimeout: forwardTimeoutMs,
      bodyTimeout: forwardTimeoutMs,
    });
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
    res.writeHead(up.statusCode, out);
    for await (const chunk of up.body) res.write(chunk as Uint8Array);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, maxBody);
    if (body === 'too-large') {
      res.writeHead(413, { 'content-type': 'application/json' }).end('{"error":{"message":"replay server: request body over its cap","type":"invalid_request_error","param":null,"code":null}}');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://replay.invalid');
    let json: unknown;
    try {
      json = body.byteLength === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch {
      json = undefined;
    }
    const incoming: Incoming = { method: req.method ?? 'GET', path: url.pathname, authorization: req.headers.authorization, json };
    for (const ex of options.exchanges) {
      const times = ex.replay.times ?? Number.POSITIVE_INFINITY;
      if ((served.get(ex.id) ?? 0) >= times) continue;
      if (!matches(ex.replay.match, incoming, valid, listed)) continue;
      served.set(ex.id, (served.get(ex.id) ?? 0) + 1);
      log.push({ method: incoming.method, path: incoming.path, id: ex.id });
      await replay(ex, res);
      return;
    }
    await forward(req, body, res);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `replay server: ${(error as Error).message}`, type: 'server_error', param: null, code: null } }));
      else res.destroy();
    });
  });
  server.maxConnections = options.maxConnections ?? 64;
  server.requestTimeout = forwardTimeoutMs * 2;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    served: (id) => served.get(id) ?? 0,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
