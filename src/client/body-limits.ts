/**
 * Everything iari reads from a server is bounded: in time (deadlines: src/checks/kernel/check-deadline.ts,
 * src/load/executors/engine.ts) and in size (this table). Each bound has the requirement a breach fails
 * (spec/requirements.yaml, HDR-012 to HDR-016 and CHAT-STREAM-046; docs/conformance.md, Bounds),
 * so a server that hangs, floods or lies gets a failing verdict naming the bound, and iari's memory
 * stays flat whatever it sends.
 */

import { errorCodeOf, transportClass } from './transport-errors.ts';
import { formatDuration } from '../duration.ts';

const MiB = 1024 * 1024;

export const responseLimits = {
  /** Raw bytes of one response body (a stream included). HDR-013. */
  bodyBytes: 16 * MiB,
  /** Bytes a content-coded body (gzip, deflate, br) inflates to; inflating stops there. HDR-014. */
  decodedBytes: 16 * MiB,
  /** Nesting of arrays and objects in any JSON a server sends; deeper JSON is not parsed. HDR-015. */
  jsonDepth: 64,
  /** One SSE line (the reader discards the rest up to its terminator). CHAT-STREAM-005. */
  sseLineBytes: 8 * MiB,
  /** The data of one SSE event (all its data lines); the event is discarded. CHAT-STREAM-046. */
  sseEventBytes: 8 * MiB,
} as const;

/** What a response broke: a deadline, a size bound, or the HTTP framing itself. */
export type BoundKind = 'deadline' | 'body-size' | 'decoded-size' | 'json-depth' | 'framing' | 'event-size';

/** The requirement each bound decides. */
export const boundRequirement: Record<BoundKind, string> = {
  deadline: 'HDR-012',
  'body-size': 'HDR-013',
  'decoded-size': 'HDR-014',
  'json-depth': 'HDR-015',
  framing: 'HDR-016',
  'event-size': 'CHAT-STREAM-046',
};

export interface BoundViolation {
  kind: BoundKind;
  requirementId: string;
  /** One line saying what crossed which bound, ending with the requirement ID. */
  message: string;
}

export function violation(kind: BoundKind, what: string): BoundViolation {
  const requirementId = boundRequirement[kind];
  return { kind, requirementId, message: `${what} (${requirementId})` };
}

/** The HDR-012 violation of a request that had no complete response within its total deadline of `ms` (--request-timeout). */
export function deadlineViolation(ms: number): BoundViolation {
  return violation('deadline', `no complete response within the request deadline of ${formatDuration(ms)} (--request-timeout)`);
}

export { errorCodeOf } from './transport-errors.ts';

/**
 * A transport error that shows the response is malformed or incomplete at the HTTP level (a
 * garbage status line, a bad chunk size or Content-Length, a reset mid-body) as an HDR-016
 * violation; undefined for anything else (a refused connection is not the response's fault).
 */
export function framingViolation(err: unknown, phase: 'head' | 'body'): BoundViolation | undefined {
  const code = errorCodeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  const kind = transportClass(err);
  if (kind === 'framing') return violation('framing', `the response is not well-formed HTTP/1.1: ${detail}${code === undefined ? '' : ` [${code}]`}`);
  if (code === undefined) return undefined;
  if (kind === 'reset') return violation('framing', `the connection ended before the response did (${phase === 'head' ? 'no complete head' : 'mid-body'}): ${detail} [${code}]`);
  return undefined;
}

export function formatBytes(n: number): string {
  return n >= MiB && n % MiB === 0 ? `${n / MiB} MiB` : n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
