import type { FullResponse, HeaderMap } from './types.ts';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  // OpenAI's rate-limit 429 names the limit in type: "requests" or "tokens".
  | 'requests'
  | 'tokens'
  | 'insufficient_quota'
  | 'server_error';

export interface ApiError {
  status: number;
  type: ErrorType;
  message: string;
  param: string | null;
  code: string | null;
  headers?: HeaderMap;
}

/**
 * HTTP profile D-HTTP-06, as OpenAI answers an unknown URL: 404, type invalid_request_error, code
 * "unknown_url" (earlier OpenAI sent code null; the code is not graded).
 */
export function unknownUrl(method: string, path: string): ApiError {
  return { status: 404, type: 'invalid_request_error', message: `Unknown request URL: ${method} ${path}. Please check the URL for typos.`, param: null, code: 'unknown_url' };
}

export function badRequest(param: string | null, message: string, code: string | null = null): ApiError {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

/**
 * HTTP profile: `{"error":{"message","type","param","code"}}`, all four present, param/code
 * string|null. Error-shape faults each change exactly one aspect of it.
 */
export function errorBody(error: ApiError, faults: ReadonlySet<string>): string {
  if (faults.size === 0) {
    return JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } });
  }
  if (faults.has('error-body-detail')) return JSON.stringify({ detail: error.message });
  if (faults.has('error-body-string')) return JSON.stringify({ error: error.message });
  const body: Record<string, unknown> = { message: error.message, type: error.type, param: error.param, code: error.code };
  if (faults.has('error-code-integer')) body['code'] = error.status;
  if (faults.has('error-param-missing')) delete body['param'];
  if (faults.has('error-type-missing')) delete body['type'];
  if (faults.has('error-message-missing')) delete body['message'];
  return JSON.stringify({ error: body });
}

export function errorResponse(error: ApiError, requestId: string, faults: ReadonlySet<string>, extra: HeaderMap = {}): FullResponse {
  let status = error.status;
  if (faults.has('client-error-as-500') && status >= 400 && status < 500 && status !== 401 && status !== 404 && status !== 429) status = 500;
  const headers: HeaderMap = { 'content-type': 'application/json', ...extra, ...error.headers };
  return { kind: 'full', status, headers, body: errorBody(error, faults), requestId };
}
