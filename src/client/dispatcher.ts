import { existsSync, readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, Dispatcher1Wrapper, EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';
import { proxyFor, type ConnectionOptions, type HeaderSpec } from './connection-options.ts';

/**
 * Builds the undici dispatchers that carry iari's traffic to the server under test, from the
 * shared connection options: TLS trust, proxies from the environment, extra headers.
 */

/** OS trust bundles, first found wins (the paths Go's crypto/x509 reads on Linux; SSL_CERT_FILE first). */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

export interface TrustInfo {
  verify: boolean;
  /** Where trusted roots come from: `node` (Node's bundled Mozilla roots), file paths. */
  sources: string[];
}

interface Trust extends TrustInfo {
  context: SecureContext | null;
}

let insecureWarned = false;
const trustCache = new Map<string, Trust>();

function readPem(path: string): string | null {
  try {
    const text = readFileSync(path, 'utf8');
    return text.includes('-----BEGIN CERTIFICATE-----') ? text : null;
  } catch {
    return null;
  }
}

/**
 * Trusted roots for https targets: Node's bundled roots, the operating system's bundle (so a
 * corporate CA installed on the host works, which Node 20 alone does not read),
 * NODE_EXTRA_CA_CERTS, and `--ca-file`. One secure context, built once and shared by every
 * connection (a context per connection would parse every root again).
 */
export function trustFor(conn: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Trust {
  if (conn.insecure) {
    if (!insecureWarned) {
      insecureWarned = true;
      process.stderr.write('iari: warning: --insecure: TLS certificates are NOT verified; the token goes to whoever answers\n');
    }
    return { verify: false, sources: [], context: null };
  }
  const key = `${conn.caFile?.path ?? ''}\0${env['SSL_CERT_FILE'] ?? ''}\0${env['NODE_EXTRA_CA_CERTS'] ?? ''}`;
  const hit = trustCache.get(key);
  if (hit !== undefined) return hit;
  const ca: string[] = [...rootCertificates];
  const sources = ['node'];
  const bundle = [env['SSL_CERT_FILE'], ...SYSTEM_BUNDLES].find((p): p is string => p !== undefined && p !== '' && existsSync(p));
  const system = bundle === undefined ? null : readPem(bundle);
  if (bundle !== undefined && system !== null) {
    ca.push(system);
    sources.push(bundle);
  }
  const extra = env['NODE_EXTRA_CA_CERTS'];
  const extraPem = extra === undefined || extra === '' ? null : readPem(extra);
  if (extra !== undefined && extraPem !== null) {
    ca.push(extraPem);
    sources.push(extra);
  }
  if (conn.caFile !== null) {
    ca.push(conn.caFile.pem);
    sources.push(conn.caFile.path);
  }
  const trust: Trust = { verify: true, sources, context: createSecureContext({ ca }) };
  trustCache.set(key, trust);
  return trust;
}

/** Options for tls.connect (undici's `connect` / `requestTls`), or {} for plain http. */
export function tlsConnectOptions(conn: ConnectionOptions, origin: string): { secureContext?: SecureContext; rejectUnauthorized?: boolean } {
  if (new URL(origin).protocol !== 'https:') return {};
  const t = trustFor(conn);
  if (!t.verify) return { rejectUnauthorized: false };
  return t.context === null ? {} : { secureContext: t.context };
}

/**
 * The dispatcher for one origin: a Pool with the given options (the load engines' pool: no
 * connection cap) when no proxy applies, else undici's EnvHttpProxyAgent with the same pool
 * options (it tunnels through HTTPS_PROXY / HTTP_PROXY and goes direct for NO_PROXY hosts).
 */
export function dispatcherFor(conn: ConnectionOptions, origin: string, pool: Pool.Options = {}, env: NodeJS.ProcessEnv = process.env): Dispatcher {
  const tls = tlsConnectOptions(conn, origin);
  if (proxyFor(origin, env) === null) return new Pool(origin, { ...pool, ...HTTP1, connect: { ...tls } });
  const proxyTls = tlsForProxy(conn, origin, env);
  return new EnvHttpProxyAgent({ ...pool, ...HTTP1, connect: { ...tls }, requestTls: { ...tls }, proxyTls });
}

// HDR-016 "A response is well-formed, complete HTTP/1.1": iari judges the server's HTTP/1.1 (its
// framing, its keep-alive and `Connection: close`, the connections a load run opens). undici 8
// negotiates HTTP/2 by ALPN with any TLS server that offers it unless told not to.
const HTTP1 = { allowH2: false } as const;

function tlsForProxy(conn: ConnectionOptions, origin: string, env: NodeJS.ProcessEnv): { secureContext?: SecureContext; rejectUnauthorized?: boolean } {
  const proxy = proxyFor(origin, env);
  return proxy === null ? {} : tlsConnectOptions(conn, proxy);
}

function sameOrigin(a: string | URL | undefined, b: string): boolean {
  if (a === undefined) return false;
  try {
    return new URL(String(a)).origin === b;
  } catch {
    return false;
  }
}

type Headers = Dispatcher.DispatchOptions['headers'] | undefined;
type SomeHeaders = NonNullable<Dispatcher.DispatchOptions['headers']>;

function hasHeader(headers: Headers, lower: string): boolean {
  if (headers === null || headers === undefined) return false;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === lower) return true;
    return false;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of headers as Iterable<[string, string]>) if (String(pair[0]).toLowerCase() === lower) return true;
    return false;
  }
  return Object.keys(headers).some((k) => k.toLowerCase() === lower);
}

/** The request's headers plus ours; a header the request sets itself wins. */
export function addHeaders(headers: Headers, extra: readonly HeaderSpec[]): SomeHeaders {
  const add = extra.filter((h) => !hasHeader(headers, h.name.toLowerCase()));
  if (headers === null || headers === undefined) return Object.fromEntries(add.map((h) => [h.name, h.value]));
  if (add.length === 0) return headers;
  if (Array.isArray(headers)) return [...(headers as string[]), ...add.flatMap((h) => [h.name, h.value])];
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    return [...[...(headers as Iterable<[string, string]>)].flatMap(([k, v]) => [k, v]), ...add.flatMap((h) => [h.name, h.value])];
  }
  return { ...(headers as Record<string, string | string[]>), ...Object.fromEntries(add.map((h) => [h.name, h.value])) };
}

/** Adds the `--header` headers to every request for `origin` (and only that origin: they may be secrets). */
export function withHeaders(d: Dispatcher, origin: string, headers: readonly HeaderSpec[]): Dispatcher {
  if (headers.length === 0) return d;
  const target = new URL(origin).origin;
  return d.compose((dispatch) => (opts, handler) => dispatch(sameOrigin(opts.origin, target) ? { ...opts, headers: addHeaders(opts.headers, headers) } : opts, handler));
}

/**
 * `iari test`: the dispatcher one run owns (closed when the run ends), for every client of the run:
 * the checks' undici requests and the client libraries' fetch. TLS trust for https, proxies from
 * the environment, the `--header` headers for the target's origin only. Never installed globally.
 */
export function connectionDispatcher(conn: ConnectionOptions, origin: string, env: NodeJS.ProcessEnv = process.env): Dispatcher {
  const tls = tlsConnectOptions(conn, origin);
  const anyProxy = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'].some((k) => (env[k] ?? '') !== '');
  const base: Dispatcher = anyProxy ? new EnvHttpProxyAgent({ ...HTTP1, connect: { ...tls }, requestTls: { ...tls }, proxyTls: tlsForProxy(conn, origin, env) }) : new Agent({ ...HTTP1, connect: { ...tls } });
  return withHeaders(base, origin, conn.headers);
}

/**
 * A fetch (the platform's, the one client libraries call by default) that sends through
 * `dispatcher` instead of the process-global one. Node's own fetch is an older undici (7 in Node
 * 24, 6 in Node 22) that hands the dispatcher v1 handlers (onConnect, onHeaders, ...); undici 8's
 * dispatchers take only v2 ones (onRequestStart, onResponseStart, ...), so they are wrapped in
 * undici's Dispatcher1Wrapper, which also keeps such requests on HTTP/1.1 as the v1 handlers need.
 */
export function fetchVia(dispatcher: Dispatcher): typeof fetch {
  const v1 = new Dispatcher1Wrapper(dispatcher);
  return (input, init) => globalThis.fetch(input, { ...init, dispatcher: v1 } as RequestInit);
}
