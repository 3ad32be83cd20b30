import { isUtf8 } from 'node:buffer';
import { isSecretHeader, type HeaderSpec } from './connection-options.ts';

/** The placeholder written wherever the bearer token would go. */
export const TOKEN_PLACEHOLDER = '$IARI_TOKEN';

export interface CurlInput {
  method: string;
  url: string;
  /** Request headers as sent; any Authorization header is replaced by the placeholder line. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whether the request carried the run's bearer token. */
  bearer: boolean;
  /** Strings that must never appear in the line (the token); each is replaced by the placeholder. */
  secrets?: readonly string[];
  /** Add -N (no buffering) for streamed responses. */
  stream?: boolean;
}

/**
 * The `--header` headers of the run (installed with the connection, dispatcher.ts): the
 * dispatcher adds them to every request, so every curl line carries them too, or pasted against
 * a gateway it would get another answer.
 */
let connectionHeaders: readonly HeaderSpec[] = [];

export function setCurlConnectionHeaders(headers: readonly HeaderSpec[]): void {
  connectionHeaders = headers;
}

/** The shell variable a secret header value is written as: its env var, or IARI_HEADER_<NAME>. */
export function headerPlaceholder(h: HeaderSpec): string {
  return `$${h.source === 'literal' ? `IARI_HEADER_${h.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}` : h.source.env}`;
}

/** `-H` arguments for the `--header` headers: secrets as `$VAR` (double-quoted so the shell expands it), the rest literal. */
export function connectionHeaderArgs(skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const h of connectionHeaders) {
    if (skip.has(h.name.toLowerCase())) continue;
    out.push('-H', isSecretHeader(h) ? `"${h.name}: ${headerPlaceholder(h)}"` : shellQuote(`${h.name}: ${h.value}`));
  }
  return out;
}

/** POSIX single-quote a string: everything literal, `'` written as `'\''`. */
export function shellQuote(s: string): string {
  if (s !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Bash ANSI-C quoting for bytes that are not UTF-8. */
function ansiCQuote(bytes: Uint8Array): string {
  let out = "$'";
  for (const b of bytes) {
    if (b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c) out += String.fromCharCode(b);
    else out += '\\x' + b.toString(16).padStart(2, '0');
  }
  return out + "'";
}

function redact(s: string, secrets: readonly string[]): string {
  let out = s;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(TOKEN_PLACEHOLDER);
  return out;
}

/**
 * A curl command line that reproduces a request. The token is written as `$IARI_TOKEN` inside
 * double quotes so the shell expands it; every other value is single-quoted and literal.
 */
export function buildCurl(input: CurlInput): string {
  const secrets = input.secrets ?? [];
  const parts = ['curl', '-sS'];
  if (input.stream === true) parts.push('-N');
  if (input.method !== 'GET' || input.body !== undefined) parts.push('-X', shellQuote(input.method));
  parts.push(shellQuote(redact(input.url, secrets)));
  if (input.bearer) parts.push('-H', `"Authorization: Bearer ${TOKEN_PLACEHOLDER}"`);
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (name.toLowerCase() === 'authorization') continue;
    parts.push('-H', shellQuote(`${name}: ${redact(value, secrets)}`));
  }
  parts.push(...connectionHeaderArgs(new Set(Object.keys(input.headers ?? {}).map((k) => k.toLowerCase()))));
  if (input.body !== undefined) {
    const body = input.body;
    if (typeof body === 'string') parts.push('--data-binary', shellQuote(redact(body, secrets)));
    else if (isUtf8(body)) parts.push('--data-binary', shellQuote(redact(Buffer.from(body).toString('utf8'), secrets)));
    else parts.push('--data-binary', ansiCQuote(body));
  }
  return parts.join(' ');
}
