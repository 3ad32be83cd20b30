import dns from 'node:dns';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

// An in-process network guard for the offline proof: every DNS lookup and every TCP connection of
// this process goes through it, and anything but loopback is refused before it leaves the process
// (nothing is sent) and recorded. Node's net and tls (and so undici's fetch) resolve names with
// dns.lookup and connect with net.Socket.prototype.connect, so patching those two covers every
// client library; the resolver APIs (dns.resolve*, dns.promises.*) are refused outright.

export interface Attempt {
  kind: 'lookup' | 'resolve' | 'connect';
  target: string;
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.', 'ip6-localhost']);

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x), localhost: the only addresses the guard lets through. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return net.isIPv4(v4) && v4.startsWith('127.');
}

export interface OfflineGuard {
  readonly attempts: readonly Attempt[];
  /** Forgets what was recorded so far. */
  reset(): void;
  /** Puts the original functions back. */
  uninstall(): void;
}

type Callback = (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;

function refusal(kind: string, target: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`offline guard: ${kind} of ${target} refused (only loopback is allowed)`);
  err.code = 'EAI_FAIL';
  return err;
}

export function installOfflineGuard(): OfflineGuard {
  const attempts: Attempt[] = [];
  const originalLookup = dns.lookup;
  const originalPromisesLookup = dns.promises.lookup;
  const originalConnect = net.Socket.prototype.connect;
  const resolverNames = Object.keys(dns).filter((k) => k.startsWith('resolve') || k === 'reverse') as (keyof typeof dns)[];
  const promiseResolverNames = Object.keys(dns.promises).filter((k) => k.startsWith('resolve') || k === 'reverse') as (keyof typeof dns.promises)[];
  const savedResolvers = resolverNames.map((k) => [k, dns[k]] as const);
  const savedPromiseResolvers = promiseResolverNames.map((k) => [k, dns.promises[k]] as const);

  const lookup = function (this: unknown, hostname: string, ...rest: unknown[]): void {
    const callback = rest[rest.length - 1] as Callback;
    if (isLoopback(String(hostname))) {
      (originalLookup as (...a: unknown[]) => void).call(this, hostname, ...rest);
      return;
    }
    attempts.push({ kind: 'lookup', target: String(hostname) });
    process.nextTick(() => callback(refusal('DNS lookup', String(hostname))));
  };
  (dns as { lookup: unknown }).lookup = lookup;
  (dns.promises as { lookup: unknown }).lookup = async (hostname: string, ...rest: unknown[]) => {
    if (isLoopback(String(hostname))) return (originalPromisesLookup as (...a: unknown[]) => Promise<unknown>)(hostname, ...rest);
    attempts.push({ kind: 'lookup', target: String(hostname) });
    throw refusal('DNS lookup', String(hostname));
  };
  for (const k of resolverNames) {
    (dns as unknown as Record<string, unknown>)[k] = (name: unknown, ...rest: unknown[]) => {
      attempts.push({ kind: 'resolve', target: String(name) });
      const callback = rest[rest.length - 1];
      if (typeof callback === 'function') process.nextTick(() => (callback as Callback)(refusal('DNS resolve', String(name))));
    };
  }
  for (const k of promiseResolverNames) {
    (dns.promises as unknown as Record<string, unknown>)[k] = async (name: unknown) => {
      attempts.push({ kind: 'resolve', target: String(name) });
      throw refusal('DNS resolve', String(name));
    };
  }
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; port?: number; path?: string } | number | string;
    let host: string | undefined;
    let path: string | undefined;
    if (typeof options === 'object' && options !== null) {
      host = options.host ?? (options.path === undefined ? 'localhost' : undefined);
      path = options.path;
    } else if (typeof options === 'number' || (typeof options === 'string' && /^\d+$/.test(options))) {
      host = typeof args[1] === 'string' ? args[1] : 'localhost';
    } else if (typeof options === 'string') {
      path = options;
    }
    if (path !== undefined || (host !== undefined && isLoopback(host))) return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
    attempts.push({ kind: 'connect', target: String(host) });
    process.nextTick(() => this.destroy(refusal('connection to', String(host))));
    return this;
  } as typeof net.Socket.prototype.connect;
  syncBuiltinESMExports();

  return {
    attempts,
    reset() {
      attempts.length = 0;
    },
    uninstall() {
      (dns as { lookup: unknown }).lookup = originalLookup;
      (dns.promises as { lookup: unknown }).lookup = originalPromisesLookup;
      for (const [k, f] of savedResolvers) (dns as unknown as Record<string, unknown>)[k] = f;
      for (const [k, f] of savedPromiseResolvers) (dns.promises as unknown as Record<string, unknown>)[k] = f;
      net.Socket.prototype.connect = originalConnect;
      syncBuiltinESMExports();
    },
  };
}
