/**
 * A server written to misbehave, one mode per behaviour of issue 14's table. GET /v1/models
 * answers a valid list in every mode (so `iari load` can pick a model and `iari test` reaches the
 * other routes); every other request gets the mode's behaviour. Loopback only.
 *
 * Run alone: `npx tsx suites/hostile/hostile-server.ts MODE [PORT]`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

export const hostileModes = [
  'endless-stream',
  'ping-only',
  'dribble',
  'gzip-bomb',
  'huge-json',
  'huge-json-chunked',
  'deep-json',
  'deep-bare',
  'huge-event',
  'bad-chunk-size',
  'reset-mid-body',
  'garbage-status',
  'bad-content-length',
  'redirect-loop',
  'http10',
  'token-reflect',
  'redirect-other-origin',
] as const;
export type HostileMode = (typeof hostileModes)[number];

/** What each mode does, one line (the suite's table and the README cite these). */
export const modeBehaviour: Record<HostileMode, string> = {
  'endless-stream': 'an SSE stream with a content chunk every 10 ms, never [DONE]',
  'ping-only': 'an SSE stream of ": ping" comments every 10 ms, for ever',
  dribble: 'a valid body dribbled at 1 byte per second',
  'gzip-bomb': 'Content-Encoding: gzip, 2 MiB on the wire inflating to 2 GiB',
  'huge-json': 'a 2 GiB JSON body (Content-Length 2 GiB), generated on the fly',
  'huge-json-chunked': 'a 2 GiB JSON body sent chunked (no Content-Length: the size shows only while reading)',
  'deep-json': 'JSON nested 1,000,000 deep (in the body, or in a stream chunk)',
  'deep-bare': 'data: and 2 MB of bare nesting [[[…]]] (1,000,000 deep, no chunk envelope) in every response',
  'huge-event': 'one 7 MB event of valid JSON (just under the 8 MiB event limit) per response, as fast as the client reads',
  'bad-chunk-size': 'Transfer-Encoding: chunked with a chunk size that is not hex',
  'reset-mid-body': 'half the body, then a TCP reset',
  'garbage-status': 'a status line that is not HTTP',
  'bad-content-length': 'Content-Length 1 MiB, 100 bytes sent, then the connection closes',
  'redirect-loop': '307 to the same URL, for ever',
  http10: 'HTTP/1.0 200 with a body that ends only when the connection closes, which it never does',
  'token-reflect': 'the bearer token reflected in a header, error bodies and the stream (a 401 to every JSON request; an SSE stream echoing it, without [DONE])',
  'redirect-other-origin': '307 to the same path on another loopback port (which records any Authorization it receives)',
};

export const HOSTILE_MODEL = 'hostile-model-1';
const MODELS_BODY = JSON.stringify({ object: 'list', data: [{ id: HOSTILE_MODEL, object: 'model', created: 1_700_000_000, owned_by: 'hostile' }] });
const GiB = 1024 * 1024 * 1024;

export interface HostileServer {
  url: string;
  mode: HostileMode;
  /** The other origin of `redirect-other-origin`: requests it got, and how many carried Authorization. */
  otherOrigin: { url: string; requests: number; withAuthorization: number };
  close(): Promise<void>;
}

let bombCache: Buffer | undefined;
/** One gzip member of 256 MiB of spaces (about 256 KiB); sent 8 times (members concatenate) it inflates to 2 GiB. */
function bombMember(): Buffer {
  bombCache ??= gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20), { level: 9 });
  return bombCache;
}

/**
 * Makes what the modes send that takes seconds to make (the gzip bomb's member: a synchronous
 * gzip of 256 MiB). Called before any run: made during the runs it blocked every server of the
 * suite's process at once, so another mode's GET /v1/models went unanswered past a load run's
 * 5 s pre-window deadline (iari load against dribble exited 2 in two runs of four).
 */
export function prepareHostileModes(): void {
  bombMember();
}

function chunk(content: unknown): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: HOSTILE_MODEL, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
}

const DEEP = 1_000_000;
/** 7 MB of content: the event stays just under the 8 MiB event limit (CHAT-STREAM-046). */
const HUGE_EVENT_BYTES = 7_000_000;
const deepJson = (): string => '['.repeat(DEEP) + ']'.repeat(DEEP);

function wantsStream(body: string): boolean {
  return /"stream"\s*:\s*true/.test(body);
}

/** Writes until the client goes away, respecting back-pressure. */
function pump(res: ServerResponse | Socket, next: () => string | Buffer | null, done: () => void = () => undefined): void {
  const write = (): void => {
    for (;;) {
      if (res.destroyed) return;
      const piece = next();
      if (piece === null) return done();
      if (!res.write(piece)) {
        res.once('drain', write);
        return;
      }
    }
  };
  write();
}

function every(res: ServerResponse | Socket, ms: number, piece: () => string): void {
  const t = setInterval(() => {
    if (res.destroyed) clearInterval(t);
    else res.write(piece());
  }, ms);
  res.once('close', () => clearInterval(t));
}

function raw(socket: Socket, text: string | Buffer, then: 'end' | 'hold' | 'reset' = 'end'): void {
  socket.write(text);
  if (then === 'end') socket.end();
  else if (then === 'reset') socket.resetAndDestroy();
}

/** 2 GiB of valid JSON (a model list), made on the fly; with its length declared, or chunked. */
function hugeJson(res: ServerResponse, declareLength: boolean): void {
  const head = '{"object":"list","data":[';
  const item = '{"id":"hostile-padding-0000000000","object":"model","created":1,"owned_by":"hostile"},';
  const block = Buffer.from(item.repeat(Math.floor((1024 * 1024) / item.length)));
  const total = 2 * GiB;
  const tail = '{}]}';
  res.writeHead(200, declareLength ? { 'content-type': 'application/json', 'content-length': String(total) } : { 'content-type': 'application/json' });
  let sent = 0;
  pump(
    res,
    () => {
      if (sent === 0) return (sent += head.length), head;
      const left = total - sent - tail.length;
      if (left <= 0) return sent >= total ? null : ((sent = total), tail);
      const piece = left >= block.length ? block : Buffer.alloc(left, 0x20);
      sent += piece.length;
      return piece;
    },
    () => res.end(),
  );
}

function handle(mode: HostileMode, req: IncomingMessage, res: ServerResponse, body: string, other: string): void {
  const stream = wantsStream(body);
  const auth = req.headers['authorization'] ?? '';
  const socket = req.socket;
  switch (mode) {
    case 'endless-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      every(res, 10, () => chunk('a'));
      return;
    case 'ping-only':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      every(res, 10, () => ': ping\n\n');
      return;
    case 'dribble': {
      const text = stream ? `${chunk('hello')}data: [DONE]\n\n` : JSON.stringify({ object: 'dribble', data: 'x'.repeat(200) });
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      let i = 0;
      res.write(text.slice(i, ++i));
      every(res, 1000, () => text.slice(i, ++i));
      return;
    }
    case 'gzip-bomb': {
      const member = bombMember();
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', 'content-encoding': 'gzip', 'content-length': String(member.length * 8) });
      let n = 0;
      pump(res, () => (n++ < 8 ? member : null), () => res.end());
      return;
    }
    case 'huge-json':
    case 'huge-json-chunked':
      hugeJson(res, mode === 'huge-json');
      return;
    case 'deep-json': {
      const deep = deepJson();
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${chunk('start')}data: {"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"${HOSTILE_MODEL}","choices":[{"index":0,"delta":{"content":${deep}},"finish_reason":null}]}\n\ndata: [DONE]\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"id":"chatcmpl-hostile","object":"chat.completion","created":1,"model":"${HOSTILE_MODEL}","choices":[{"index":0,"message":{"role":"assistant","content":${deep}},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`);
      }
      return;
    }
    case 'deep-bare': {
      const deep = deepJson();
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.end(stream ? `data: ${deep}\n\ndata: [DONE]\n\n` : deep);
      return;
    }
    case 'huge-event': {
      const content = 'a'.repeat(HUGE_EVENT_BYTES);
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      if (stream) res.end(`${chunk(content)}data: [DONE]\n\n`);
      else res.end(JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion', created: 1, model: HOSTILE_MODEL, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      return;
    }
    case 'bad-chunk-size':
      raw(socket, `HTTP/1.1 200 OK\r\nContent-Type: ${stream ? 'text/event-stream' : 'application/json'}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\nZZZZ\r\n${'x'.repeat(40)}\r\n0\r\n\r\n`);
      return;
    case 'reset-mid-body': {
      const text = stream ? `${chunk('hello')}${chunk(' world')}data: [DONE]\n\n` : JSON.stringify({ id: 'chatcmpl-hostile', object: 'chat.completion', padding: 'x'.repeat(400) });
      raw(socket, `HTTP/1.1 200 OK\r\nContent-Type: ${stream ? 'text/event-stream' : 'application/json'}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text.slice(0, Math.floor(text.length / 2))}`, 'hold');
      setTimeout(() => socket.destroyed || socket.resetAndDestroy(), 50);
      return;
    }
    case 'garbage-status':
      raw(socket, 'HXXP/9.9 two hundred NOT-HTTP\r\n\x00\x01\x02 garbage\r\n\r\n{}');
      return;
    case 'bad-content-length':
      // The content type a client asked for, so only the length is wrong (a stream of another type fails at its head).
      raw(socket, `HTTP/1.1 200 OK\r\nContent-Type: ${stream ? 'text/event-stream' : 'application/json'}\r\nContent-Length: ${1024 * 1024}\r\n\r\n${(stream ? chunk('hello') : '{"a":"').padEnd(100, 'x').slice(0, 100)}`);
      return;
    case 'redirect-loop':
      res.writeHead(307, { location: req.url ?? '/', 'content-type': 'text/plain' });
      res.end('again');
      return;
    case 'http10':
      raw(socket, `HTTP/1.0 200 OK\r\nContent-Type: ${stream ? 'text/event-stream' : 'application/json'}\r\n\r\n${stream ? chunk('hello') : '{"id":"chatcmpl-hostile",'}`, 'hold');
      return;
    case 'token-reflect': {
      res.setHeader('x-echo-authorization', auth);
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${chunk(`you sent ${auth}`)}${chunk(auth)}`);
      } else {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="${auth}"` });
        res.end(JSON.stringify({ error: { message: `Invalid credentials: ${auth}`, type: 'authentication_error', param: auth, code: 'invalid_api_key' } }));
      }
      return;
    }
    case 'redirect-other-origin':
      res.writeHead(307, { location: `${other}${req.url ?? '/'}`, 'content-type': 'text/plain' });
      res.end('moved');
      return;
  }
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

export async function startHostileServer(mode: HostileMode): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const track = (s: Server): void => {
    s.on('connection', (c: Socket) => {
      sockets.add(c);
      c.on('close', () => sockets.delete(c));
      // A reset or a client abort must not crash the server.
      c.on('error', () => undefined);
    });
  };
  const otherOrigin = { url: '', requests: 0, withAuthorization: 0 };
  const other = createServer((req, res) => {
    otherOrigin.requests++;
    if (req.headers['authorization'] !== undefined) otherOrigin.withAuthorization++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(MODELS_BODY);
  });
  track(other);
  otherOrigin.url = await listen(other);
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      if (body.length < 1_000_000) body += d;
    });
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && (path === '/v1/models' || path === '/v1/models/')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_0123456789abcdef01234567' });
        res.end(MODELS_BODY);
        return;
      }
      handle(mode, req, res, body, otherOrigin.url);
    });
  });
  track(server);
  // Node starts its 5 s keep-alive timer when a response is handed to the kernel, not when the client
  // has read it: a client that needs over 5 s to read and parse a 7 MB answer (huge-event, on a loaded
  // machine) can send its next request as the server closes that connection, and meets "other side
  // closed" instead of the fault under test. Each mode is about one fault, so the connection stays.
  server.keepAliveTimeout = 120_000;
  const url = await listen(server);
  return {
    url: `${url}/v1`,
    mode,
    otherOrigin,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise<void>((r) => server.close(() => r())), new Promise<void>((r) => other.close(() => r()))]);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const mode = process.argv[2] as HostileMode;
  if (!hostileModes.includes(mode)) {
    process.stderr.write(`usage: hostile-server.ts MODE\nmodes: ${hostileModes.join(', ')}\n`);
    process.exit(2);
  }
  const s = await startHostileServer(mode);
  process.stdout.write(`${s.url} (${modeBehaviour[mode]})\n`);
}
