import { renderSections, type FlagSection } from '../flag-help.ts';
import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { MIN_SECRET_LENGTH } from './token.ts';

/**
 * How iari reaches the server under test, shared by `iari load` and `iari test`: TLS trust
 * (`--ca-file`, `--insecure`), extra request headers (`--header`), and proxies from the
 * environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, as undici's EnvHttpProxyAgent reads them).
 */
export interface ConnectionOptions {
  /** `--ca-file`: a private CA, trusted besides the system's. */
  caFile: { path: string; pem: string } | null;
  /** `--insecure`: certificates are not verified (a warning is printed once). */
  insecure: boolean;
  /** `--header`, in the order given; secret values (`isSecretHeader`) are redacted from reports like the token. */
  headers: HeaderSpec[];
}

export interface HeaderSpec {
  /** As written (case kept); compared case-insensitively. */
  name: string;
  value: string;
  /** `env` when the value came from `--header 'Name: env:VAR'`. */
  source: 'literal' | { env: string };
}

export const noConnectionOptions: ConnectionOptions = { caFile: null, insecure: false, headers: [] };

/** Flags every command that talks to a server accepts (parseArgs spec). */
export const connectionFlagSpec = {
  'ca-file': { type: 'string' },
  insecure: { type: 'boolean' },
  header: { type: 'string', multiple: true },
} as const;

/** The connection flags of iari load and iari test, as help rows (src/flag-help.ts). */
export const connectionHelpSection: FlagSection = {
  title: 'Connection (iari load and iari test take the same flags):',
  rows: [
    { head: '--ca-file PATH', flags: ['ca-file'], help: ["also trust this CA (PEM) besides the system's and Node's"] },
    { head: '--insecure', flags: ['insecure'], help: ['do not verify TLS certificates (a warning is printed once)'] },
    { head: "--header 'Name: value'", flags: ['header'], help: ["extra request header, repeatable; 'Name: env:VAR' takes the value", 'from $VAR so no secret goes on the command line; env: values and', 'values of secret-named headers (authorization, cookie, *key*,', '*token*, *secret*) are redacted from reports like the token'] },
    { note: ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY (or lower case) are honoured (undici EnvHttpProxyAgent)'] },
  ],
};

export const connectionHelp = renderSections([connectionHelpSection]);

/** RFC 9110 field-name: a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Header names iari sets itself or that belong to the connection: a gateway header must not
 * change how the request is framed or who it authenticates as (the token has its own flags).
 */
const RESERVED = new Map<string, string>([
  ['authorization', 'the bearer token is given with --token-env or --token-file'],
  ['proxy-authorization', 'put proxy credentials in HTTPS_PROXY / HTTP_PROXY'],
  ['host', 'it follows --base-url'],
  ['content-length', 'iari frames the body'],
  ['content-type', 'iari sends application/json'],
  ['transfer-encoding', 'iari frames the body'],
  ['connection', 'it is managed by the connection pool'],
  ['keep-alive', 'it is managed by the connection pool'],
  ['upgrade', 'it is managed by the connection pool'],
  ['te', 'it is managed by the connection pool'],
  ['trailer', 'it is managed by the connection pool'],
  ['expect', 'it is managed by the connection pool'],
]);

/**
 * How an entry point names the connection options in its messages: `iari load` and `iari test` by
 * their flags, the library (runLoad) by its option names. Both validate with the same code.
 */
export interface ConnectionNames {
  /** `iari load`, `iari test`, `runLoad`. */
  who: string;
  header: string;
  caFile: string;
  insecure: string;
}

/** The CLI's flag names for `iari COMMAND`. */
export function cliConnectionNames(command: string): ConnectionNames {
  return { who: `iari ${command}`, header: '--header', caFile: '--ca-file', insecure: '--insecure' };
}

function configError(who: string, message: string, hint?: string): HarnessError {
  return new HarnessError(HarnessErrorCode.CONFIG_INVALID, `${who}: ${message}`, hint === undefined ? {} : { hint });
}

/** `Name: value` or `Name: env:VAR`; a bad header is a usage error before any traffic. */
export function parseHeader(command: string, raw: string, env: NodeJS.ProcessEnv = process.env): HeaderSpec {
  const names = cliConnectionNames(command);
  const colon = raw.indexOf(':');
  if (colon <= 0) throw new HarnessError(HarnessErrorCode.USAGE, `iari ${command}: --header must be 'Name: value', got ${JSON.stringify(raw.length > 40 ? raw.slice(0, 20) + '...' : raw.split(':')[0])}`);
  const name = raw.slice(0, colon).trim();
  const written = raw.slice(colon + 1).trim();
  checkHeaderName(names, name);
  const ref = ENV_REF.exec(written);
  if (ref === null) return checkHeader(names, { name, value: written, source: 'literal' });
  const variable = ref[1] as string;
  const fromEnv = env[variable];
  if (fromEnv === undefined || fromEnv.trim() === '') throw configError(names.who, `--header ${name}: $${variable} is not set`, `export ${variable} before running iari`);
  const value = fromEnv.trim();
  // A value this short would also match ordinary text, so it cannot be kept out of reports.
  if (value.length < MIN_SECRET_LENGTH) throw configError(names.who, `--header ${name}: $${variable} has ${value.length} characters; at least ${MIN_SECRET_LENGTH} are needed to keep it out of reports`);
  return checkHeader(names, { name, value, source: { env: variable } });
}

function checkHeaderName(names: ConnectionNames, name: string): void {
  if (!TOKEN.test(name)) throw new HarnessError(HarnessErrorCode.USAGE, `${names.who}: ${names.header} name ${JSON.stringify(name)} is not a valid HTTP field name`);
  const why = RESERVED.get(name.toLowerCase());
  if (why !== undefined) throw new HarnessError(HarnessErrorCode.USAGE, `${names.who}: ${names.header} cannot set ${name}: ${why}`);
}

/** A header's value as every entry point checks it. */
function checkHeader(names: ConnectionNames, h: HeaderSpec): HeaderSpec {
  // Never echo the value: it may be a secret.
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(h.value)) throw configError(names.who, `${names.header} ${h.name}: the value contains a control character (CR, LF, NUL...)`);
  if (h.value === '') throw new HarnessError(HarnessErrorCode.USAGE, `${names.who}: ${names.header} ${h.name} has an empty value`);
  return h;
}

type ConnectionValues = { 'ca-file'?: string | undefined; insecure?: boolean | undefined; header?: string[] | undefined };

/** Validates the connection flags (before any traffic); reads --ca-file and header env vars. */
export function connectionFromFlags(command: string, v: ConnectionValues, env: NodeJS.ProcessEnv = process.env): ConnectionOptions {
  const headers = (v.header ?? []).map((h) => parseHeader(command, h, env));
  return validateConnection(cliConnectionNames(command), { headers, caFile: v['ca-file'], insecure: v.insecure });
}

/**
 * The library's connection options (runLoad), typed: `headers` by name with literal values (a
 * program holds its secrets in memory, so no `env:` indirection), `caFile` a path, `insecure`.
 * Checked as the flags are: the same names refused, the same control characters, the CA file read
 * and refused alike.
 */
export interface ConnectionInput {
  caFile?: string | undefined;
  insecure?: boolean | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
}

/** Validates the library's connection options with the CLI's rules, naming them as `names` does (before any traffic). */
export function connectionFromOptions(names: ConnectionNames, input: ConnectionInput): ConnectionOptions {
  const headers = Object.entries(input.headers ?? {}).map(([raw, value]) => {
    const name = raw.trim();
    checkHeaderName(names, name);
    return checkHeader(names, { name, value: String(value).trim(), source: 'literal' });
  });
  return validateConnection(names, { headers, caFile: input.caFile, insecure: input.insecure });
}

function validateConnection(names: ConnectionNames, v: { headers: HeaderSpec[]; caFile: string | undefined; insecure: boolean | undefined }): ConnectionOptions {
  const seen = new Set<string>();
  for (const h of v.headers) {
    const key = h.name.toLowerCase();
    if (seen.has(key)) throw new HarnessError(HarnessErrorCode.USAGE, `${names.who}: ${names.header} ${h.name} is given twice`);
    seen.add(key);
  }
  if (v.insecure === true && v.caFile !== undefined) throw new HarnessError(HarnessErrorCode.USAGE, `${names.who}: give ${names.caFile} or ${names.insecure}, not both`);
  let caFile: ConnectionOptions['caFile'] = null;
  if (v.caFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(v.caFile, 'utf8');
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: cannot read ${names.caFile} ${v.caFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: ${names.caFile} ${v.caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    caFile = { path: v.caFile, pem };
  }
  return { caFile, insecure: v.insecure === true, headers: v.headers };
}

/**
 * Header names whose values are secrets whatever their source: authorization, cookie, and any
 * name with a part (between `-` or `_`) that is a key, token or secret (x-api-key, apikey,
 * x-auth-token, client-secret). By part, not substring: `x-portkey-provider` names a provider.
 */
export function isSecretHeaderName(name: string): boolean {
  const n = name.toLowerCase();
  return /authorization|cookie/.test(n) || n.split(/[-_.]/).some((part) => /^(?:api|access|auth|session|private)?(?:key|token|secret|password)s?$/.test(part));
}

/** Whether a `--header` value is a secret: taken from the environment (`env:VAR`), or under a secret-named header (redact.ts isSecretHeaderName). */
export function isSecretHeader(h: HeaderSpec): boolean {
  return h.source !== 'literal' || isSecretHeaderName(h.name);
}

/**
 * Every value that must never appear in a report: secret header values (`isSecretHeader`; a value
 * passed in plain sight under an ordinary name, like `x-portkey-provider: openai`, is not one) and
 * proxy credentials.
 */
export function connectionSecrets(conn: ConnectionOptions, origin: string | null, env: NodeJS.ProcessEnv = process.env): string[] {
  const out = conn.headers.filter(isSecretHeader).map((h) => h.value);
  const proxy = origin === null ? null : proxyFor(origin, env);
  if (proxy !== null) {
    try {
      const u = new URL(proxy);
      if (u.password !== '') out.push(decodeURIComponent(u.password));
      if (u.username !== '') out.push(decodeURIComponent(u.username));
    } catch {
      // An unparsable proxy URL fails at connect time with undici's own error.
    }
  }
  return out;
}

/** 127.0.0.0/8, ::1 (and ::ffff:127.x.y.z) and `localhost`, by name only (no lookup). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const m = /^(?:::ffff:)?127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((x) => Number(x) <= 255);
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy undici's EnvHttpProxyAgent uses for `origin`, or null for a direct connection: the
 * same variables in the same order (lower case first), NO_PROXY entries matched by host and
 * subdomain, with an optional port, and `*` for none (undici lib/dispatcher/env-http-proxy-agent.js).
 */
export function proxyFor(origin: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const url = new URL(origin);
  const httpProxy = env['http_proxy'] ?? env['HTTP_PROXY'];
  const httpsProxy = env['https_proxy'] ?? env['HTTPS_PROXY'];
  const proxy = url.protocol === 'https:' ? httpsProxy || httpProxy : httpProxy;
  if (proxy === undefined || proxy === '') return null;
  const noProxy = env['no_proxy'] ?? env['NO_PROXY'] ?? '';
  if (noProxy === '*') return null;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (entry === '') continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? (parsed[1] as string) : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2] as string, 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return null;
  }
  return proxy;
}

/** A proxy URL as shown in reports and the announce line: no credentials. */
export function displayUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable proxy URL)';
  }
}

/**
 * Test guard. With IARI_LOOPBACK_ONLY=1 (set by this repository's test setup), a target or proxy
 * whose address is not loopback is refused before any traffic, so a mistake in a test cannot
 * reach another machine. The product itself loads whatever server the user names.
 */
export async function assertTargetAllowed(origin: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env['IARI_LOOPBACK_ONLY'] !== '1') return;
  const hosts = [new URL(origin).hostname];
  const proxy = proxyFor(origin, env);
  if (proxy !== null) hosts.push(new URL(proxy).hostname);
  for (const raw of hosts) {
    const host = raw.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch (error) {
        throw new HarnessError(HarnessErrorCode.TARGET_BLOCKED, `IARI_LOOPBACK_ONLY=1: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? 'error'}), so it is not known to be loopback`);
      }
    }
    const outside = addresses.filter((a) => !isLoopbackHost(a));
    if (addresses.length === 0 || outside.length > 0) {
      throw new HarnessError(HarnessErrorCode.TARGET_BLOCKED, `IARI_LOOPBACK_ONLY=1: ${host} resolves to ${outside.join(', ') || 'nothing'}, not a loopback address; refusing to send traffic there`, {
        hint: 'this guard is set by the test setup; unset IARI_LOOPBACK_ONLY to load a real server',
      });
    }
  }
}
