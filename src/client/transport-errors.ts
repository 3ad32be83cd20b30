// The one closed set of transport failures: every HTTP path of iari (the checks' client, the load
// engines, the bounded client behind the model choice, the SDKs' fetch) names a failure by these
// classes, from these code lists, so a reset is a reset everywhere.

/** How a request failed below HTTP, or `other` when the error names no transport failure. */
export const transportClasses = ['timeout', 'connect', 'tls', 'reset', 'framing', 'other'] as const;
export type TransportClass = (typeof transportClasses)[number];

/** iari's own deadlines and undici's timeouts. */
const TIMEOUT_CODES = new Set(['IARI_IDLE_TIMEOUT', 'IARI_REQUEST_DEADLINE', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
/** No connection was made: nothing reached the server. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAI_AGAIN', 'UND_ERR_CONNECT']);
/** The connection ended under the request or its response (a reset, a close, a short body). */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
/** Certificate and handshake failures (Node puts OpenSSL's verify code in `code`). */
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|CERT_|HOSTNAME_MISMATCH)/;

/**
 * iari's own total deadline for one exchange passed (the request, its head and its whole body): the
 * error every bounded path raises for it, so a caller (or a library wrapping it as its `cause`)
 * is matched by class or code, never by its wording.
 */
export class RequestDeadline extends Error {
  override readonly name = 'RequestDeadline';
  readonly code = 'IARI_REQUEST_DEADLINE';
}

/** True when `err`, or an error it wraps, is iari's own request deadline (RequestDeadline). */
export function isRequestDeadline(err: unknown): boolean {
  return errorCodeOf(err) === 'IARI_REQUEST_DEADLINE';
}

/** The error code of an error, looking through `cause` and an AggregateError's first error. */
export function errorCodeOf(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (typeof e === 'object' && e !== null && !seen.has(e) && seen.size < 8) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (e as { errors?: unknown[] }).errors;
    e = Array.isArray(inner) && inner.length > 0 ? inner[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A certificate or handshake failure. */
export function isTlsFailure(err: unknown): boolean {
  const code = errorCodeOf(err);
  return code !== undefined && TLS_CODES.test(code);
}

/** True for a connection that ended under the request (a kept-alive socket the server closed: an idempotent request may be sent again). */
export function isReset(err: unknown): boolean {
  const code = errorCodeOf(err);
  return code !== undefined && RESET_CODES.has(code);
}

/** The class of a transport failure (see transportClasses). */
export function transportClass(err: unknown): TransportClass {
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && CONNECT_CODES.has(code)) return 'connect';
  if (isTlsFailure(err)) return 'tls';
  // undici's HTTPParserError does not always carry llhttp's code.
  if (code?.startsWith('HPE_') === true || (err as { name?: unknown } | null)?.name === 'HTTPParserError') return 'framing';
  if ((code !== undefined && RESET_CODES.has(code)) || /other side closed|socket hang up/i.test(message)) return 'reset';
  return 'other';
}
