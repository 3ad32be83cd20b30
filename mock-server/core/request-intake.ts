// The body of a request to an API route, read as every route reads it: bounded, JSON, UTF-8.
import type { MockRequest } from './types.ts';
import { badRequest, type ApiError } from './http-errors.ts';

export const BODY_LIMIT = 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

export type Intake = { ok: true; parsed: unknown; text: string } | { ok: false; error: ApiError };

/** The request's JSON body, or the error OpenAI answers (faults body-limit-not-enforced and content-type-not-enforced lift the first two). */
export function readJsonBody(req: MockRequest, f: ReadonlySet<string>): Intake {
  // HTTP profile: 413 code `request_too_large` (body limit 1 MiB).
  if (req.body.length > BODY_LIMIT && !f.has('body-limit-not-enforced')) {
    return { ok: false, error: { status: 413, type: 'invalid_request_error', message: `Request body too large: ${req.body.length} bytes; the limit is ${BODY_LIMIT} bytes.`, param: null, code: 'request_too_large' } };
  }
  // Spec, Endpoints: "Requests with a body use JSON with header Content-Type: application/json."
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json' && !f.has('content-type-not-enforced')) {
    return { ok: false, error: { status: 415, type: 'invalid_request_error', message: `Unsupported Content-Type '${contentType ?? ''}': send application/json.`, param: null, code: 'unsupported_media_type' } };
  }
  try {
    const text = decoder.decode(req.body);
    return { ok: true, parsed: JSON.parse(text), text };
  } catch {
    return { ok: false, error: badRequest(null, 'We could not parse the JSON body of your request. The body must be valid UTF-8 JSON.', 'invalid_json') };
  }
}

/** The body asked for a stream (`stream: true`). */
export function streamRequested(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && (parsed as Record<string, unknown>)['stream'] === true;
}
