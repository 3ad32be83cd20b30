import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A front on 127.0.0.1 that forwards to a server on 127.0.0.1 (the mock) and closes connections
 * the way llama.cpp's server does (research: llama-server-2026-11.md, "Keep-alive"): every answer
 * says `Keep-Alive: timeout=5, max=100` and never `Connection: close`, then the connection closes.
 * - `after-answer`: closed as soon as an answer has left (llama.cpp): whether the client's next
 *   request was already written on it is a race the client may or may not lose.
 * - `on-next-request`: closed when the next request arrives on it, before any byte of an answer:
 *   every request written on a reused connection loses the race (deterministic).
 * - `fresh`: every connection is closed at its first request, before any byte of an answer.
 */
export type CloseMode = 'after-answer' | 'on-next-request' | 'fresh';

export interface ClosingFront {
  port: number;
  url: string;
  /** Connections accepted. */
  connections: number;
  /** Requests dropped unanswered (the connection closed under them). */
  dropped: number;
  /** Requests answered. */
  answered: number;
  /** The bodies of the requests dropped and of those forwarded, in arrival order. */
  droppedBodies: string[];
  forwardedBodies: string[];
  close(): Promise<void>;
}

/** `connectionClose`: the answers say `Connection: close` instead (a server that closes and says so). */
export async function startClosingFront(targetPort: number, mode: CloseMode, options: { connectionClose?: boolean } = {}): Promise<ClosingFront> {
  const sockets = new Set<Socket>();
  const served = new WeakSet<Socket>();
  const state = { connections: 0, dropped: 0, answered: 0 };
  const droppedBodies: string[] = [];
  const forwardedBodies: string[] = [];
  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    const socket = req.socket;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, socket, Buffer.concat(chunks)));
  });
  const forward = (req: IncomingMessage, res: ServerResponse, socket: Socket, body: Buffer): void => {
    // Closed with the whole request read and before any byte of an answer.
    if (mode === 'fresh' || (mode === 'on-next-request' && served.has(socket))) {
      state.dropped++;
      droppedBodies.push(body.toString());
      socket.destroy();
      return;
    }
    forwardedBodies.push(body.toString());
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      const headers: Record<string, string | string[] | undefined> = { ...r.headers };
      delete headers['connection'];
      delete headers['keep-alive'];
      if (options.connectionClose === true) headers['connection'] = 'close';
      else headers['keep-alive'] = 'timeout=5, max=100';
      res.writeHead(r.statusCode ?? 502, headers);
      r.pipe(res);
    });
    up.on('error', () => socket.destroy());
    res.on('finish', () => {
      state.answered++;
      served.add(socket);
      if (mode === 'after-answer') socket.destroy();
    });
    up.end(body);
  };
  server.on('connection', (s: Socket) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return state.connections;
    },
    get dropped() {
      return state.dropped;
    },
    get answered() {
      return state.answered;
    },
    droppedBodies,
    forwardedBodies,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
