import { execFileSync, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { isLoopbackHost } from '../../src/client/connection-options.ts';

/**
 * Loopback-only stand-ins for what a real deployment puts in front of a server: a TLS
 * terminator with a private CA, a CONNECT proxy, a gateway that checks a header. Each listens on
 * 127.0.0.1 and forwards only to 127.0.0.1.
 */

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface Certificates {
  caFile: string;
  keyPem: string;
  certPem: string;
}

/** A private CA and a server certificate for 127.0.0.1, ::1, localhost and `names`, made with the openssl CLI. */
export function makeCertificates(dir: string, names: readonly string[]): Certificates {
  const ssl = (args: string[]): void => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 20_000 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(code === 'ENOENT' ? 'the openssl CLI is needed to make test certificates (Debian: apt-get install openssl; .ci/run installs it)' : `openssl ${args[0]} failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=iari test CA']);
  ssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  const san = ['IP:127.0.0.1', 'IP:::1', 'DNS:localhost', ...names.map((n) => `DNS:${n}`)].join(',');
  writeFileSync(join(dir, 'ext.cnf'), `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`);
  ssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf']);
  return { caFile: join(dir, 'ca.pem'), keyPem: readFileSync(join(dir, 'server.key'), 'utf8'), certPem: readFileSync(join(dir, 'server.pem'), 'utf8') };
}

function portOf(server: Server | TlsServer): number {
  return (server.address() as AddressInfo).port;
}

const close = (server: Server | TlsServer, sockets: Set<Socket>): Promise<void> =>
  new Promise((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });

export interface Front {
  port: number;
  /** Connections accepted. */
  connections: number;
  close(): Promise<void>;
}

/** TLS terminator on 127.0.0.1: decrypts and pipes every connection to 127.0.0.1:`targetPort`. */
export async function startTlsFront(targetPort: number, certs: Certificates): Promise<Front> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server = createTlsServer({ key: certs.keyPem, cert: certs.certPem }, (tlsSocket) => {
    state.connections++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [tlsSocket, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    tlsSocket.pipe(upstream).pipe(tlsSocket);
    tlsSocket.on('close', () => upstream.destroy());
    upstream.on('close', () => tlsSocket.destroy());
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: portOf(server),
    get connections() {
      return state.connections;
    },
    close: () => close(server, sockets),
  };
}

export interface ConnectProxy {
  url: string;
  /** `host:port` of every CONNECT tunnel asked for. */
  tunnels: string[];
  close(): Promise<void>;
}

/** An HTTP CONNECT proxy on 127.0.0.1 that tunnels to loopback addresses only. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const tunnels: string[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => undefined);
    const target = req.url ?? '';
    tunnels.push(target);
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (m === null || !isLoopbackHost(m[1] ?? '')) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(m[2]), m[1] ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${portOf(server)}`, tunnels, close: () => close(server, sockets) };
}

export interface HeaderGateway {
  port: number;
  /** Value of `header` on every request, in order (undefined when absent). */
  seen: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A gateway on 127.0.0.1 in front of the mock that records `header` on every request. With
 * `echo`, GET /v1/models answers 500 with the header's value in the error message, the way a
 * careless gateway quotes what it got (so the value reaches the checks' evidence).
 */
export async function startHeaderGateway(targetPort: number, header: string, options: { echo?: boolean } = {}): Promise<HeaderGateway> {
  const sockets = new Set<Socket>();
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    const value = req.headers[header.toLowerCase()];
    seen.push(Array.isArray(value) ? value.join(',') : value);
    if (options.echo === true && req.method === 'GET' && (req.url ?? '').startsWith('/v1/models')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `organization ${String(value)} is not allowed here`, type: 'server_error', param: null, code: null } }));
      return;
    }
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: portOf(server), seen, close: () => close(server, sockets) };
}

/**
 * A host name other than `localhost` whose every address is loopback: the names in /etc/hosts
 * (Debian lists ip6-localhost and ip6-loopback for ::1 and the machine's name, often 127.0.1.1),
 * the machine's host name, localhost.localdomain. Null when there is none.
 */
export async function loopbackName(): Promise<{ name: string; address: string } | null> {
  const candidates: string[] = [];
  try {
    for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
      const fields = line.replace(/#.*/, '').trim().split(/\s+/);
      candidates.push(...fields.slice(1));
    }
  } catch {
    // No /etc/hosts: the fixed names below.
  }
  candidates.push(hostname(), 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback');
  const found: { name: string; address: string }[] = [];
  for (const name of [...new Set(candidates)]) {
    if (name === '' || name.toLowerCase() === 'localhost' || isLoopbackHost(name)) continue;
    try {
      const addresses = await lookup(name, { all: true });
      if (addresses.length > 0 && addresses.every((a) => isLoopbackHost(a.address))) found.push({ name, address: addresses[0]!.address });
    } catch {
      // Does not resolve here.
    }
  }
  // An IPv4 address first: the mock under test listens on 127.0.0.1.
  return found.find((f) => f.address.includes('.')) ?? found[0] ?? null;
}

export interface RunOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the iari CLI in a child process (bounded), with proxy variables only as given in `env`. */
export function iari(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 90_000): Promise<RunOutput> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy']) delete base[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', ...args], { cwd: repoRoot, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
