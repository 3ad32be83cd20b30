// POST /tokenize: llama.cpp server's tokenizer route (tools/server/README.md, "POST /tokenize":
// `{"content": "..."}` → `{"tokens": [ids]}`, no BOS unless `add_special`), at the server's root
// beside /metrics, guarded by the API key like llama.cpp's. The mock answers with its own
// tokenizer (o200k, the one its usage.prompt_tokens counts with), so `iari load --tokenizer
// server` can be run and checked against it.
import { tokenizer } from '../../src/tokenizer.ts';
import type { RequestContext } from './context.ts';
import { badRequest, errorResponse } from './http-errors.ts';
import { json } from './json-response.ts';
import type { MockRequest, MockResponse } from './types.ts';

export const TOKENIZE_ROUTE = '/tokenize';

/** The ids of `content`; a body that is not `{"content": string}` is an OpenAI-style 400 naming the field. */
export function tokenizeResponse(req: MockRequest, ctx: RequestContext): MockResponse {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(req.body).toString('utf8'));
  } catch {
    return errorResponse(badRequest(null, 'The request body is not valid JSON.'), ctx.requestId, ctx.faults);
  }
  const content = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { content?: unknown }).content : undefined;
  if (typeof content !== 'string') return errorResponse(badRequest('content', "'content' is required and must be a string."), ctx.requestId, ctx.faults);
  return json(200, { tokens: tokenizer().encode(content) }, ctx.requestId);
}
