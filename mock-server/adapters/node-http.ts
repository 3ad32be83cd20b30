import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockCore } from '../core/handler.ts';
import type { FullResponse, MockRequest, StreamResponse } from '../core/types.ts';
import { frameEvent, framingRng, writePieces } from '../core/framing.ts';
import { BODY_LIMIT } from '../core/request-intake.ts';
import { newRequestId } from '../core/ids.ts';
import { SendLog, SendLogEntry, sendLogJson } from './send-log.ts';

/** Bodies are read up to this size; beyond it the rest is drained and not kept. */
const READ_LIMIT = 8 * BODY_LIMIT;
const EMPTY_BODY = new Uint8Array(0);
const EMPTY_QUERY = new URLSearchParams();
const notFrozen = (): number => 0;

export interface NodeHttpOptions {
  host: string;
  port: number;
  sendLogCapacity?: number;
  /** Extra read-only debug routes under /_iari/ (answered before the core). */
  debug?: (path: string, query: URLSearchParams) => unknown | undefined;
}

export interface NodeHttpServer {
  server: Server;
  origin: string;
  sendLog: SendLog;
  /** Streams currently being written. */
  activeStreams(): number;
  close(): Promise<void>;
}

function hrtime(): bigint {
  return process.hrtime.bigint();
}

function writeFull(res: ServerResponse, r: FullResponse, log: SendLog, receivedNs: bigint, frozenFor: () => number): void {
  const entry = new SendLogEntry(r.requestId, 'full', receivedNs, null);
  log.add(entry);
  let done = false;
  const finish = (sent: boolean) => {
    if (done) return;
    done = true;
    entry.completed = sent;
    entry.interrupted = !sent;
    r.done?.(sent);
  };
  const send = () => {
    if (res.destroyed) return finish(false);
    const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    r.headers['content-length'] = String(r.declaredLength ?? body.byteLength);
    res.writeHead(r.status, r.headers);
    entry.headNs = hrtime();
    // The outcome (and its durable receipt) is recorded before the response is finished.
    finish(true);
    if (r.declaredLength !== undefined) {
      // Fault bounds-short-body: the body ends short of its Content-Length and the connection closes.
      res.write(body, () => res.destroy());
      return;
    }
    res.end(body);
    entry.written[0] = hrtime();
  };
  const delay = (r.delayMs ?? 0) + frozenFor();
  if (delay > 0) {
    const timer = setTimeout(send, delay);
    res.once('close', () => {
      clearTimeout(timer);
      finish(false);
    });
  } else send();
}

/**
 * Writes each event at its intended time with one timer per stream, scheduled against the
 * stream's start (no cumulative drift), and logs the time right after each write.
 */
function writeStream(res: ServerResponse, s: StreamResponse, log: SendLog, receivedNs: bigint, active: Map<ServerResponse, () => void>, frozenFor: () => number): void {
  const entry = new SendLogEntry(s.requestId, 'stream', receivedNs, s.events);
  log.add(entry);
  const events = s.events;
  const framing = s.framing;
  const rng = framing.length > 0 ? framingRng(s.framingSeed) : null;
  const pieceWise = framing.includes('tiny-writes') || framing.includes('split-utf8');
  const wire = rng === null && s.wire !== undefined && s.wire.events === events ? s.wire : null;
  let index = 0;
  let timer: NodeJS.Timeout | null = null;
  let ended = false;
  const end = (interrupted: boolean, sent = index) => {
    if (ended) return;
    ended = true;
    active.delete(res);
    if (timer !== null) clearTimeout(timer);
    timer = null;
    entry.completed = !interrupted && sent >= events.length;
    entry.interrupted = interrupted;
    // A client that went away (possibly half-open) must not keep the socket.
    if (interrupted && !res.destroyed) res.destroy();
    s.finish({ sent, interrupted });
  };
  active.set(res, () => {
    res.destroy();
    end(index < events.length);
  });
  res.once('close', () => end(index < events.length));
  res.writeHead(s.status, s.headers);
  // With the first event due later, the head goes out now (clients see the status at once).
  if ((events[0]?.atMs ?? 0) > 0) res.flushHeaders();
  let startMs = performance.now();
  entry.headNs = hrtime();

  const pump = (): void => {
    timer = null;
    if (ended) return;
    if (res.destroyed) return end(true);
    const frozen = frozenFor();
    if (frozen > 0) {
      // A freeze shifts the rest of the schedule by its remaining length.
      startMs += frozen;
      timer = setTimeout(pump, frozen);
      return;
    }
    const elapsed = performance.now() - startMs;
    const batchStart = index;
    let writable = true;
    // Plain events due together leave in one write (one HTTP chunk), as the bare server of the benchmark writes them;
    // from the cached wire bytes when the core gave them for these events.
    let joined = '';
    let wireFrom = -1;
    const flushJoined = () => {
      if (wireFrom >= 0 && wire !== null) {
        writable = res.write(wire.bytes(wireFrom, index));
        wireFrom = -1;
        return;
      }
      if (joined.length === 0) return;
      writable = res.write(joined);
      joined = '';
    };
    if (!pieceWise) res.cork();
    while (index < events.length) {
      const e = events[index];
      if (e === undefined || e.atMs > elapsed) break;
      if (e.action === 'destroy') {
        flushJoined();
        if (!pieceWise) res.uncork();
        res.destroy();
        return end(true);
      }
      // The outcome (and its durable receipt) is recorded before the last event leaves.
      if (index === events.length - 1) end(false, events.length);
      if (e.bytes !== undefined) {
        flushJoined();
        writable = res.write(e.bytes);
      } else if (rng === null) {
        if (wire === null) joined += e.data;
        else if (wireFrom < 0) wireFrom = index;
      }
      else {
        const framed = frameEvent(e.data, framing);
        if (pieceWise) {
          const at = index++;
          sendApart(writePieces(Buffer.from(framed), framing, rng), () => {
            entry.written[at] = hrtime();
            next();
          });
          return;
        }
        writable = res.write(framed);
      }
      index++;
      if (!writable) break;
    }
    flushJoined();
    if (!pieceWise) {
      res.uncork();
      const t = hrtime();
      for (let k = batchStart; k < index; k++) entry.written[k] = t;
    }
    if (!writable && index < events.length) {
      res.once('drain', pump);
      return;
    }
    next();
  };

  /** After the events written so far: the end of the stream, or the timer for the next event. */
  const next = (): void => {
    if (index >= events.length) {
      // Fault keep-alive-close-after-stream: the connection closes once the stream has left, whatever its headers said.
      if (s.closeAfter === true) {
        const socket = res.socket;
        res.end(() => socket?.destroy());
      } else res.end();
      end(false);
      return;
    }
    timer = setTimeout(pump, Math.max(0, (events[index]?.atMs ?? 0) - (performance.now() - startMs)));
  };

  // Legal modes tiny-writes and split-utf8 (CHAT-STREAM-035): each piece is a write of its own, sent
  // once the one before has left, so each reaches the client as a read of its own. Written in one
  // go, Node 24's http response hands the writes of one tick to the socket together, as one read.
  const sendApart = (pieces: readonly Uint8Array[], then: () => void): void => {
    let i = 0;
    const one = (): void => {
      if (res.destroyed) return;
      const piece = pieces[i++];
      if (piece === undefined) then();
      else res.write(piece, one);
    };
    one();
  };
  pump();
}

function toMockRequest(req: IncomingMessage, body: Uint8Array): MockRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return {
    method: req.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? EMPTY_QUERY : new URLSearchParams(url.slice(q + 1)),
    headers: req.headers as Record<string, string | undefined>,
    body,
  };
}

function internalError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message: 'The mock server failed to handle the request.', type: 'server_error', param: null, code: 'internal_error' } });
  res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': newRequestId() });
  res.end(body);
}

function debugResponse(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-request-id': newRequestId() });
  res.end(body);
}

export async function listenNodeHttp(core: MockCore, options: NodeHttpOptions): Promise<NodeHttpServer> {
  const sendLog = new SendLog(options.sendLogCapacity);
  const active = new Map<ServerResponse, () => void>();

  const dispatch = (req: IncomingMessage, res: ServerResponse, body: Uint8Array, receivedNs: bigint) => {
    try {
      const mockReq = toMockRequest(req, body);
      if (mockReq.path === '/_iari/send-log' && req.method === 'GET') {
        const id = mockReq.query.get('request_id');
        if (id === null) return debugResponse(res, 200, { object: 'list', data: sendLog.ids() });
        const record = sendLog.get(id);
        if (record === undefined) return debugResponse(res, 404, { error: { message: `No send-log entry for request id '${id}'.`, type: 'invalid_request_error', param: 'request_id', code: 'not_found' } });
        return debugResponse(res, 200, sendLogJson(record));
      }
      if (mockReq.path.startsWith('/_iari/') && req.method === 'GET' && options.debug !== undefined) {
        const payload = options.debug(mockReq.path, mockReq.query);
        if (payload !== undefined) return debugResponse(res, 200, payload);
      }
      const response = core.handle(mockReq);
      const frozenFor = mockReq.path.startsWith('/_iari/') ? notFrozen : core.admin.frozenFor;
      if (response.kind === 'full') writeFull(res, response, sendLog, receivedNs, frozenFor);
      else writeStream(res, response, sendLog, receivedNs, active, frozenFor);
    } catch {
      internalError(res);
    }
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    res.on('error', () => res.destroy());
    req.on('error', () => res.destroy());
    const method = req.method ?? 'GET';
    if ((method === 'GET' || method === 'HEAD') && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      req.resume();
      dispatch(req, res, EMPTY_BODY, hrtime());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size <= READ_LIMIT) chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      // Bodies beyond the read limit are cut there: still over the 1 MiB limit, so still a 413.
      dispatch(req, res, body.length > READ_LIMIT ? body.subarray(0, READ_LIMIT + 1) : body, hrtime());
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('clientError', (_error, socket) => {
    if (socket.writable) {
      const body = JSON.stringify({ error: { message: 'Malformed HTTP request.', type: 'invalid_request_error', param: null, code: 'bad_request' } });
      socket.end(`HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-type: application/json\r\nx-request-id: ${newRequestId()}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    } else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  let closing: Promise<void> | null = null;
  return {
    server,
    origin,
    sendLog,
    activeStreams: () => active.size,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const stop of [...active.values()]) stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
