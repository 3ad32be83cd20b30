import { isUtf8 } from 'node:buffer';
import { isSecretHeader, type HeaderSpec } from './connection-options.ts';

/** The placeholder written wherever the bearer token would go. */
export const TOKEN_PLACEHOLDER = '$IARI_TOKEN';

/** A secret and the shell variable written in its place (`$IARI_TOKEN`), or a bare secret (written as `$IARI_TOKEN`). */
export type CurlSecret = string | readonly [value: string, placeholder: string];

export interface CurlInput {
  method: string;
  url: string;
  /** Request headers as sent; with `bearer`, an Authorization header is replaced by the placeholder line. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whether the request carried the run's bearer token. */
  bearer: boolean;
  /** Strings that must never appear in the line; each is replaced by its placeholder, which the shell expands. */
  secrets?: readonly CurlSecret[];
  /** Add -N (no buffering) for streamed responses. */
  stream?: boolean;
  /** A longer text body is cut there and ends with "..." (a line in a report stays readable). */
  maxBodyChars?: number;
  /**
   * The `--header` headers of the run's connection: its dispatcher adds them to every request
   * (dispatcher.ts), so the curl line carries them too, or pasted against a gateway it would get
   * another answer. A header the request sets itself wins.
   */
  connectionHeaders?: readonly HeaderSpec[];
}

/** The shell variable a secret header value is written as: its env var, or IARI_HEADER_<NAME>. */
export function headerPlaceholder(h: HeaderSpec): string {
  return `$${h.source === 'literal' ? `IARI_HEADER_${h.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}` : h.source.env}`;
}

/** `-H` arguments for the `--header` headers: secrets as `$VAR` (double-quoted so the shell expands it), the rest literal. */
function connectionHeaderArgs(headers: readonly HeaderSpec[], skip: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const h of headers) {
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

function pairs(secrets: readonly CurlSecret[]): [string, string][] {
  return secrets
    .map((x): [string, string] => (typeof x === 'string' ? [x, TOKEN_PLACEHOLDER] : [x[0], x[1]]))
    .filter(([value]) => value.length > 0)
    .sort((a, b) => b[0].length - a[0].length);
}

function redact(s: string, secrets: readonly [string, string][]): string {
  let out = s;
  for (const [value, placeholder] of secrets) out = out.split(value).join(placeholder);
  return out;
}

/** One shell word for `text`: single-quoted and literal, or double-quoted where a secret's placeholder must expand. */
function word(text: string, secrets: readonly [string, string][]): string {
  const redacted = redact(text, secrets);
  const placeholders = secrets.map(([, p]) => p).filter((p) => redacted.includes(p));
  if (placeholders.length === 0) return shellQuote(redacted);
  let out = '';
  let rest = text;
  // Walk the original text: literal parts escaped for double quotes, each secret as its bare $VAR.
  while (rest.length > 0) {
    let at = -1;
    let hit: [string, string] | undefined;
    for (const pair of secrets) {
      const i = rest.indexOf(pair[0]);
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        hit = pair;
      }
    }
    if (hit === undefined) {
      out += rest.replace(/(["\\`$])/g, '\\$1');
      break;
    }
    out += rest.slice(0, at).replace(/(["\\`$])/g, '\\$1') + hit[1];
    rest = rest.slice(at + hit[0].length);
  }
  return `"${out}"`;
}

/**
 * A curl command line that reproduces a request. The token is written as `$IARI_TOKEN` inside
 * double quotes so the shell expands it; every other value is single-quoted and literal.
 */
export function buildCurl(input: CurlInput): string {
  const secrets = pairs(input.secrets ?? []);
  const parts = ['curl', '-sS'];
  if (input.stream === true) parts.push('-N');
  if (input.method !== 'GET' || input.body !== undefined) parts.push('-X', shellQuote(input.method));
  parts.push(shellQuote(redact(input.url, secrets)));
  if (input.bearer) parts.push('-H', `"Authorization: Bearer ${TOKEN_PLACEHOLDER}"`);
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (input.bearer && name.toLowerCase() === 'authorization') continue;
    parts.push('-H', word(`${name}: ${value}`, secrets));
  }
  parts.push(...connectionHeaderArgs(input.connectionHeaders ?? [], new Set(Object.keys(input.headers ?? {}).map((k) => k.toLowerCase()))));
  if (input.body !== undefined) {
    const body = input.body;
    const max = input.maxBodyChars ?? Infinity;
    const text = typeof body === 'string' ? body : isUtf8(body) ? Buffer.from(body).toString('utf8') : undefined;
    // curl reads a file for --data-binary @name: a body that starts with @ is sent with --data-raw.
    const flag = text?.startsWith('@') === true ? '--data-raw' : '--data-binary';
    if (text !== undefined) parts.push(flag, word(text.length > max ? `${text.slice(0, max)}...` : text, secrets));
    else parts.push('--data-binary', ansiCQuote(body as Uint8Array));
  }
  return parts.join(' ');
}
