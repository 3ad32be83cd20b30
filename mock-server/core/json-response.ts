import type { FullResponse, HeaderMap } from './types.ts';

export function json(status: number, body: unknown, requestId: string, headers: HeaderMap = {}): FullResponse {
  return { kind: 'full', status, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), requestId };
}
