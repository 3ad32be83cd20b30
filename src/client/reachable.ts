import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { assertTargetAllowed, noConnectionOptions, proxyFor, type ConnectionOptions } from './connection-options.ts';
import { tlsConnectOptions } from './dispatcher.ts';

/**
 * The preflight every run against a server starts with (`iari test`, `iari load`, runConformance,
 * runLoad): open one connection to the target (TCP, then TLS with the run's trust for https) and
 * close it, sending no byte of HTTP. A server that cannot be reached is a configuration error, one
 * line and exit 2, before anything is judged or measured: not 283 failed requirements nor 9,408
 * failed requests. A server that accepts the connection is reachable, whatever it answers later
 * (the checks and the load report judge that). Through a proxy (HTTPS_PROXY / HTTP_PROXY) the
 * connection goes to the proxy, which is all this machine can reach directly.
 */

/** Certificate verification failures (OpenSSL's codes as Node reports them, and Node's host-name check). */
const TRUST_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Why a connection failed, in words, with the hint that fixes it (undefined: none to give). */
export function unreachableReason(error: unknown, host: string, timeoutMs: number): { reason: string; hint?: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const detail = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return { reason: 'connection refused (ECONNREFUSED): nothing listens there', hint: 'start the server, or check the host and port of --base-url' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return { reason: `DNS: cannot resolve ${host} (${code})`, hint: 'check the host name of --base-url' };
  if (TRUST_CODES.has(code)) return { reason: `TLS: the server's certificate is not trusted (${code}: ${detail})`, hint: '--ca-file PATH trusts a private CA (or NODE_EXTRA_CA_CERTS); --insecure skips verification' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { reason: `no connection within ${timeoutMs / 1000} s (${code})`, hint: 'check the host, port and any firewall between' };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { reason: `no route to ${host} (${code})` };
  return { reason: code === '' ? detail : `${detail} (${code})` };
}

/** Opens one connection to `origin` (or the proxy that carries it) and closes it; throws IARI_TARGET_UNREACHABLE when it cannot. */
export async function assertReachable(origin: string, conn: ConnectionOptions = noConnectionOptions, env: NodeJS.ProcessEnv = process.env, timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): Promise<void> {
  const proxy = proxyFor(origin, env);
  const url = new URL(proxy ?? origin);
  const https = url.protocol === 'https:';
  const connect = buildConnector({ ...tlsConnectOptions(conn, url.origin), timeout: timeoutMs });
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    connect({ hostname, host: url.host, protocol: url.protocol, port: url.port || (https ? '443' : '80'), ...(isIP(hostname) === 0 ? { servername: hostname } : {}) }, (error, socket) => {
      if (error === null) {
        socket.destroy();
        resolve();
        return;
      }
      const { reason, hint } = unreachableReason(error, hostname, timeoutMs);
      const what = proxy === null ? `the server at ${url.origin}` : `the proxy ${url.origin} (for ${origin})`;
      reject(new HarnessError(HarnessErrorCode.TARGET_UNREACHABLE, `cannot reach ${what}: ${reason}`, { ...(hint === undefined ? {} : { hint }), cause: error }));
    });
  });
}

/**
 * Before any traffic to a server the user names: the test guard (IARI_LOOPBACK_ONLY), then one
 * connection. `iari test`, `iari load`, runConformance and runLoad all start here.
 */
export async function preflightTarget(origin: string, conn: ConnectionOptions = noConnectionOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await assertTargetAllowed(origin, env);
  await assertReachable(origin, conn, env);
}
