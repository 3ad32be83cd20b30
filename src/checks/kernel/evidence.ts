import type { Failure } from './verdicts.ts';
import type { HttpExchange } from './exchange.ts';
import { shorten } from './shorten.ts';

const MAX_RECEIVED_CHARS = 2_000;

/** Trims a received value so a report stays readable (a whole body can be megabytes). */
export function clip(value: unknown): unknown {
  if (typeof value === 'string') return shorten(value, MAX_RECEIVED_CHARS);
  if (value === undefined) return undefined;
  const s = JSON.stringify(value);
  if (s !== undefined && s.length > MAX_RECEIVED_CHARS) return shorten(s, MAX_RECEIVED_CHARS);
  return value;
}

/** A Failure tied to the exchange that showed it: its x-request-id and a curl line that reproduces it. */
export function evidence(
  ex: Pick<HttpExchange, 'requestId' | 'curl'> | undefined,
  message: string,
  detail: { expected?: unknown; received?: unknown; pointer?: string; byteOffset?: number } = {},
): Failure {
  const f: Failure = { message };
  if (detail.expected !== undefined) f.expected = clip(detail.expected);
  if ('received' in detail) f.received = detail.received === undefined ? '(absent)' : clip(detail.received);
  if (detail.pointer !== undefined) f.pointer = detail.pointer;
  if (detail.byteOffset !== undefined) f.byteOffset = detail.byteOffset;
  if (ex?.requestId !== undefined) f.requestId = ex.requestId;
  if (ex !== undefined) f.curl = ex.curl;
  return f;
}

/** Reads a member by JSON Pointer-ish path segments; undefined where the path does not exist. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

export { isRecord } from './json-guards.ts';

export function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** Short description of a status and body for failure messages. */
export function describeResponse(ex: HttpExchange): string {
  return `${ex.status} ${shorten(ex.text, 200)}`;
}
