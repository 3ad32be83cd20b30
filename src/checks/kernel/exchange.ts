import type { BoundViolation } from '../../client/body-limits.ts';

/** One request the checks sent and what came back, read within the bounds (http/check-http.ts makes them; evidence and verdicts cite them). */
export interface HttpExchange {
  method: string;
  path: string;
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  bytes: Uint8Array;
  text: string;
  /** The parsed body when it is JSON, else undefined (see `jsonError`). */
  json: unknown;
  jsonError: string | undefined;
  requestId: string | undefined;
  /** Reproduces the request; the token is written as $IARI_TOKEN. */
  curl: string;
  /** Chunks as they arrived, with arrival time in ms since the request was sent (streams). */
  chunks: { at: number; bytes: Uint8Array }[];
  durationMs: number;
  /** The JSON body that was sent, if any. */
  sentJson: unknown;
  /** Set when the server broke the body off (connection closed or reset); bounds iari keeps throw instead. */
  bodyError: string | undefined;
  /** The bound the server's broken body crossed (HDR-016 for a reset or a short body), when bodyError is set. */
  violation?: BoundViolation;
}
