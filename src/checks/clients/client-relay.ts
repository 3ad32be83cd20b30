import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { ClientTransport } from './client-transport.ts';

// A client library outside this process (openai-python) cannot be handed iari's fetch. It is
// pointed at this relay instead: a loopback HTTP server, alive for one operation, that sends every
// request it receives through the operation's ClientTransport. So the library's traffic gets what
// the in-process libraries get: only the target's origin, the run's throttle, fault header, TLS
// trust, proxies and --header, the time and size bounds, and a record (status, x-request-id,
// error body, curl line) for the evidence. The library is given a stand-in key; the relay puts the
// run's token in its place, so the token never enters the other process. A response's bytes are
// written as they arrive, and a response that breaks off breaks off the library's connection too.

const REQUEST_BODY_LIMIT = 1024 * 1024;
/** Hop-by-hop members and those fetch has already undone (encoding, length, framing). */
const DROPPED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'accept-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

export interface ClientRelay {
  /** The relay's URL for the target's base URL (`http://127.0.0.1:PORT/<base path>`). */
  baseUrl: string;
  /** The key to give the library: the relay sends the run's token instead. */
  standInKey: string;
  /** What iari's own fetch threw (a refused origin, the run's 429 budget spent, a request not sent): the operation's to rethrow. */
  readonly errors: unknown[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > REQUEST_BODY_LIMIT) throw new Error('request body over 1 MiB');
    parts.push(chunk as Buffer);
  }
  return parts.length === 0 ? undefined : Buffer.concat(parts);
}

async function relay(t: ClientTransport, target: URL, standIn: string, token: string, req: IncomingMessage, res: ServerResponse, errors: unknown[], tap?: (chunk: Uint8Array) => void): Promise<void> {
  const body = await readBody(req);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED.has(name)) continue;
    const v = Array.isArray(value) ? value.join(', ') : value;
    headers.set(name, name === 'authorization' && v === `Bearer ${standIn}` ? `Bearer ${token}` : v);
  }
  const url = new URL(req.url ?? '/', target.origin);
  const method = req.method ?? 'GET';
  let answer: Response;
  try {
    answer = await t.fetch(url.href, { method, headers, ...(body === undefined ? {} : { body: body.toString('utf8') }) });
  } catch (error) {
    errors.push(error);
    throw error;
  }
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!DROPPED.has(name)) out[name] = value;
  });
  res.writeHead(answer.status, answer.statusText, out);
  if (answer.body === null) {
    res.end();
    return;
  }
  const reader = answer.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    tap?.(value);
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/** `tap`: sees every response's bytes as they are relayed (what a client printed can be set against what the server sent). */
export async function startClientRelay(t: ClientTransport, token: string, tap?: (chunk: Uint8Array) => void): Promise<ClientRelay> {
  const target = new URL(t.baseUrl);
  const standIn = `iari-relay-${randomBytes(12).toString('hex')}`;
  const errors: unknown[] = [];
  const server = createServer((req, res) => {
    relay(t, target, standIn, token, req, res, errors, tap).catch(() => {
      // The target's answer broke off (or was never had): so does the library's.
      res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`,
    standInKey: standIn,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
