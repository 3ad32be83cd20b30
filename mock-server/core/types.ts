// Transport-free request and response shapes shared by every adapter (node:http, msw).
import type { WireEvent } from '../../src/protocols/protocol-mock.ts';

export interface MockRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/me/usage". */
  path: string;
  query: URLSearchParams;
  /** Header names lower-case. */
  headers: Readonly<Record<string, string | undefined>>;
  body: Uint8Array;
}

export type HeaderMap = Record<string, string>;

/** A complete response written at once (after `delayMs`, when set). */
export interface FullResponse {
  kind: 'full';
  status: number;
  headers: HeaderMap;
  body: string | Uint8Array;
  requestId: string;
  delayMs?: number;
  /**
   * Called by the adapter once the body was written (`sent`) or the client went away first;
   * `extraCompletionTokens` are tokens a rewrite after the route added (a reasoning model's thinking).
   */
  done?: (sent: boolean, extraCompletionTokens?: number) => void;
  /** A fault: the Content-Length declared (longer than the body); the adapter closes the connection after the body. */
  declaredLength?: number;
}

/** One server-sent event (or raw write) at its intended time relative to the stream start (the protocol contract's). */
export type StreamEvent = WireEvent;

export type LegalMode = 'crlf' | 'lone-cr' | 'comments' | 'data-no-space' | 'tiny-writes' | 'split-utf8' | 'multiline-data';

export interface StreamEndResult {
  /** Number of events fully written. */
  sent: number;
  interrupted: boolean;
  /** The events really written, where a rewrite after the route replaced the route's own (a reasoning model's thinking). */
  events?: readonly StreamEvent[];
}

export interface StreamResponse {
  kind: 'stream';
  status: number;
  headers: HeaderMap;
  requestId: string;
  events: readonly StreamEvent[];
  /** Framing-level transforms an adapter applies while writing (legal-but-unusual modes). */
  framing: readonly LegalMode[];
  /** Seed for the sizes of tiny writes. */
  framingSeed: number;
  /** Called exactly once by the adapter when the stream ended or the client disconnected. */
  finish(result: StreamEndResult): void;
  /** Close the connection as soon as the stream has ended, whatever the headers said (a fault: keep-alive-close-after-stream). */
  closeAfter?: true;
  /**
   * The UTF-8 of `data` of events [from, to), concatenated, from bytes cached with the completion
   * plan; built for `events` and usable only while `events` is still that array.
   */
  wire?: { events: readonly StreamEvent[]; bytes(from: number, to: number): Uint8Array };
}

export type MockResponse = FullResponse | StreamResponse;
