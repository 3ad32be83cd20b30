import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

/** One request as a proxy or decoy received it. */
export interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

export interface Recorder {
  /** The proxy's base URL (`…/v1`); for a decoy, its origin. */
  url: string;
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function listen(server: Server, seen: Seen[], suffix: string): Promise<Recorder> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const origin = `http://127.0.0.1:${address.port}`;
  return { url: `${origin}${suffix}`, origin, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A loopback proxy in front of `target` (an origin) that records the URL and headers of every request. */
export function startRecordingProxy(target: string): Promise<Recorder> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  return listen(server, seen, '/v1');
}

/** A server no request may reach: it records each one and answers `{}`. */
export function startDecoy(): Promise<Recorder> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  return listen(server, seen, '');
}
