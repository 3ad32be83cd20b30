/**
 * Defense in depth for secrets: everything a report writes passes through a redactor that knows
 * the secret(s) of the run and scrubs them (and their URL- and JSON-encoded forms) from strings
 * and, recursively, from objects. Independently, Authorization headers and URL credentials are
 * scrubbed whatever their value.
 */

// Spec, Authentication 4: "The token is a secret. It is not to be placed in prompts, repositories,
// client-side bundles, logs, screenshots or support messages".
export const REDACTED = '[REDACTED]';

export interface Redactor {
  /** The string with every known secret replaced by [REDACTED]. */
  string(text: string): string;
  /** A deep copy of `value` with secrets scrubbed from every string, key included. */
  value<T>(value: T): T;
  /** True when `text` contains a known secret (in any of its encoded forms). */
  leaks(text: string): boolean;
}

import { MIN_SECRET_LENGTH } from '../client/token.ts';

export { MIN_SECRET_LENGTH };
/**
 * A secret at least this long is scrubbed wherever it appears, even inside a longer run of letters
 * (no ordinary word is that long); a shorter one only as a whole value, never out of a word
 * ("myorg1" is scrubbed from `org=myorg1` but not from "myorg12").
 */
export const SUBSTRING_SECRET_LENGTH = 20;


function forms(secret: string): string[] {
  const out = new Set<string>([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  out.add(Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''));
  return [...out].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const all = secrets
    .filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)
    .flatMap(forms)
    .sort((a, b) => b.length - a.length);
  // Short values only as a whole value: not preceded or followed by a letter or digit.
  const alternative = (f: string): string => (f.length >= SUBSTRING_SECRET_LENGTH ? escapeRegExp(f) : `(?<![A-Za-z0-9])${escapeRegExp(f)}(?![A-Za-z0-9])`);
  const pattern = all.length === 0 ? null : new RegExp([...new Set(all)].map(alternative).join('|'), 'g');
  const string = (text: string): string => (pattern === null ? text : text.replace(pattern, REDACTED));
  const deep = (value: unknown, seen: WeakMap<object, unknown>): unknown => {
    if (typeof value === 'string') return string(value);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return seen.get(value);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(deep(item, seen));
      return out;
    }
    if (value instanceof Error) {
      const copy = new Error(string(value.message));
      copy.name = value.name;
      if (value.stack !== undefined) copy.stack = string(value.stack);
      return copy;
    }
    const out: Record<string, unknown> = {};
    seen.set(value, out);
    for (const [k, v] of Object.entries(value)) out[string(k)] = deep(v, seen);
    return out;
  };
  return {
    string,
    value: <T>(value: T): T => deep(value, new WeakMap()) as T,
    leaks: (text) => pattern !== null && new RegExp(pattern.source).test(text),
  };
}

const sensitiveHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-iari-token']);

/** Header names whose values are always credentials. */
export function isSensitiveHeader(name: string): boolean {
  return sensitiveHeaders.has(name.toLowerCase());
}

/** A copy of the headers with credential values replaced; `Authorization: Bearer` keeps its scheme. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isSensitiveHeader(name) || value === undefined) {
      out[name] = value;
      continue;
    }
    const scrub = (v: string) => {
      const scheme = /^(Bearer|Basic|Token)\s+/i.exec(v);
      return scheme === null ? REDACTED : `${scheme[1]} ${REDACTED}`;
    };
    out[name] = Array.isArray(value) ? value.map(scrub) : scrub(value);
  }
  return out;
}

// `Authorization: Bearer xyz`, `"authorization":"Bearer xyz"`, `-H 'Authorization: Basic xyz'`; the
// literal placeholder $IARI_TOKEN (or ${NAME}) is left alone, so curl lines stay runnable.
const authPattern = /((?:proxy-)?authorization["']?\s*[:=]\s*["']?\s*(?:(?:Bearer|Basic|Token)\s+)?)([^\s"'`\\,;&<>]+)/gi;
const apiKeyHeaderPattern = /((?:x-api-key|api-key)["']?\s*[:=]\s*["']?\s*)([^\s"'`\\,;&<>]+)/gi;
const placeholder = /^\$(?:[A-Z_][A-Z0-9_]*|\{[A-Z_][A-Z0-9_]*\})$/;
// scheme://user:password@host -> scheme://[REDACTED]@host
const urlCredentialPattern = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"']+)@/gi;
const queryCredentialPattern = /([?&](?:api[_-]?key|access[_-]?token|token|key|secret|password|auth)=)([^&#\s"']+)/gi;

/** Scrubs Authorization / API-key header values, URL userinfo and credential query parameters from text. */
export function scrubCredentials(text: string): string {
  return text
    .replace(authPattern, (m, head: string, value: string) => (placeholder.test(value) ? m : `${head}${REDACTED}`))
    .replace(apiKeyHeaderPattern, (m, head: string, value: string) => (placeholder.test(value) ? m : `${head}${REDACTED}`))
    .replace(urlCredentialPattern, (_m, scheme: string) => `${scheme}${REDACTED}@`)
    .replace(queryCredentialPattern, (_m, head: string) => `${head}${REDACTED}`);
}

/** A URL without userinfo (for reports: `baseUrl` "with any credentials removed"). */
export function stripUrlCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return scrubCredentials(url);
    u.username = '';
    u.password = '';
    return scrubCredentials(u.toString());
  } catch {
    return scrubCredentials(url);
  }
}

/** Both layers: the known secrets, then credential-shaped text. */
export function sanitize(text: string, redactor?: Redactor): string {
  return scrubCredentials(redactor === undefined ? text : redactor.string(text));
}
