import type { FaultDefinition } from './fault-catalogue.ts';
import type { CoreState, RequestContext } from './context.ts';
import type { FullResponse, MockRequest, MockResponse } from './types.ts';
import { errorResponse, unknownUrl } from './http-errors.ts';
import { json } from './json-response.ts';
import { countsRejected } from './open-shapes.ts';
import { CHAT_COMPLETIONS_PATH } from '../../src/protocols/chat-completions/chat-request.ts';

// Faults applied to a finished response (status, headers, JSON body) of the models, usage, header,
// error and authentication families. Each rewrites exactly one aspect; `breaks` lists what the
// fault matrix (suites/meta/fault-matrix.test.ts) observes.

type Json = Record<string, unknown>;
const EMPTY: ReadonlySet<string> = new Set();

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

export const httpFaults: readonly FaultDefinition[] = [
  // Models
  f('models-not-json', ['MODELS-001', 'MODELS-008', 'MODELS-012'], 'GET /v1/models answers 200 with the model ids as plain text lines, not JSON.'),
  f('models-data-object', ['MODELS-003', 'MODELS-008', 'MODELS-012'], 'GET /v1/models has data as an object keyed by model id instead of an array.'),
  f('models-id-empty-extra', ['MODELS-004'], 'GET /v1/models lists one more model whose id is "".'),
  f('models-object-wrong', ['MODELS-005'], 'Listed models have object "engine" instead of "model".'),
  f('models-list-object-wrong', ['MODELS-013'], 'The model list has object "models" instead of "list" (data is still the array).'),
  f('models-duplicate', ['MODELS-009'], 'The first model is listed twice.'),
  // Usage
  f('usage-days-required', ['USAGE-001'], 'GET /v1/me/usage without days answers 400 (param days) instead of defaulting to 30.'),
  f('usage-object-wrong', ['USAGE-002'], 'GET /v1/me/usage has object "usage" instead of "list".'),
  f('usage-row-prompt-short', ['USAGE-009'], 'Daily rows with prompt tokens report one prompt token less (total_tokens unchanged).'),
  f('rejected-requests-counted', ['USAGE-015'], 'Chat requests answered 4xx after authentication are counted as one request (no tokens, no spend).'),
  // Headers
  f('ratelimit-limit-decimal', ['HDR-004'], 'x-ratelimit-limit-* are written with ".0" ("600000.0").'),
  f('ratelimit-remaining-above-limit', ['HDR-005'], 'x-ratelimit-remaining-* are one above the limit.'),
  f('ratelimit-reset-bare-seconds', ['HDR-006'], 'x-ratelimit-reset-* are bare seconds ("1.5") instead of Go durations.'),
  f('ratelimit-limit-doubled', ['HDR-007'], 'x-ratelimit-limit-* are twice the /v1/me limits.'),
  f('json-content-type-text', ['HDR-008'], 'Non-streaming 200 JSON responses declare Content-Type text/plain.'),
  f('unversioned-models-alias', ['HDR-010'], 'GET {origin}/models (no /v1) answers the model list instead of 404.'),
  f('retry-after-ms-negative', ['HDR-011'], 'Error responses carry retry-after-ms: -1.'),
  f('keep-alive-close-after-stream', ['HDR-017'], 'A streamed answer to a request marked x-iari-probe: keep-alive says Keep-Alive: timeout=5, max=100 and no Connection: close, then the connection is closed as soon as the stream has ended (llama.cpp\'s server does this after every streamed answer).'),
  // Errors
  f('models-public-500-plain', ['ERR-015', 'AUTH-004', 'MODELS-001', 'MODELS-012', 'HDR-009'], 'GET /v1/models without credentials answers 500 with a plain-text body (no ErrorResponse); with a token it answers the list.'),
  f('error-content-type-text', ['ERR-008'], 'Error responses declare Content-Type text/plain.'),
  f('bad-request-type-wrong', ['ERR-009'], '400 errors have type "bad_request" instead of "invalid_request_error".'),
  f('unknown-route-405', ['ERR-012', 'AUTH-013'], 'An unknown route answers 405 method_not_allowed instead of 404.'),
  f('invalid-role-status-flaps', ['ERR-007'], 'An unknown message role answers 400 and 422 in turn.'),
  f('me-not-object', ['ME-001'], 'GET /v1/me answers 200 with a JSON array holding the user object.'),
  f('me-not-under-v1', ['HDR-009', 'HDR-007', 'AUTH-005', 'AUTH-008', 'AUTH-012', 'ME-001'], 'GET /v1/me answers 404; the user is served at {origin}/me only.'),
  f('param-not-named', ['CHAT-024'], 'A 400 about messages has param "body" instead of naming the field.'),
  // Authentication
  f('auth-any-scheme', ['AUTH-007'], 'A valid token is accepted as "Basic <token>" or without a scheme.'),
  f('auth-401-wrong-type', ['AUTH-009'], '401 errors have type authentication_error (llama.cpp does) instead of OpenAI\'s invalid_request_error.'),
  f('auth-token-echoed', ['AUTH-011'], '401 messages repeat the credential that was sent.'),
  f('auth-unknown-route-401', ['AUTH-013'], 'Unknown routes without credentials answer 401 (authentication before route lookup).'),
  f('auth-valid-token-refused-me', ['AUTH-005', 'AUTH-012'], 'GET /v1/me answers 401 even with a valid token.'),
];

const names = new Set(httpFaults.map((x) => x.name));

function parse(res: FullResponse): Json | undefined {
  if (typeof res.body !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(res.body);
    return typeof v === 'object' && v !== null ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

function rewrite(res: FullResponse, mutate: (body: Json) => unknown): void {
  const body = parse(res);
  if (body !== undefined) res.body = JSON.stringify(mutate(body) ?? body);
}

function unauthorized(ctx: RequestContext, message: string): FullResponse {
  return errorResponse({ status: 401, type: 'invalid_request_error', message, param: null, code: 'invalid_api_key' }, ctx.requestId, ctx.faults, { 'www-authenticate': 'Bearer realm="iari"' });
}

function rateHeaders(res: MockResponse, fn: (kind: 'requests' | 'tokens', limit: string) => void): void {
  for (const kind of ['requests', 'tokens'] as const) {
    const limit = res.headers[`x-ratelimit-limit-${kind}`];
    if (limit !== undefined) fn(kind, limit);
  }
}

export function applyHttpFaults(state: CoreState, req: MockRequest, ctx: RequestContext, res: MockResponse): MockResponse {
  const fs = ctx.faults;
  if (fs.size === 0 || (![...fs].some((n) => names.has(n)) && !countsRejected(fs))) return res;
  const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
  const has = (n: string): boolean => fs.has(n);

  // Responses replaced outright.
  if (has('usage-days-required') && path === '/v1/me/usage' && res.status === 200 && !req.query.has('days')) {
    return errorResponse({ status: 400, type: 'invalid_request_error', message: "Missing required parameter: 'days'.", param: 'days', code: null }, ctx.requestId, fs);
  }
  if (has('auth-valid-token-refused-me') && path === '/v1/me' && res.status === 200) return unauthorized(ctx, 'Incorrect API key provided.');
  if (has('auth-unknown-route-401') && res.status === 404 && path.startsWith('/v1/') && req.headers['authorization'] === undefined && parse(res as FullResponse)?.['error'] !== undefined) {
    return unauthorized(ctx, 'You did not provide an API key.');
  }
  if (has('me-not-under-v1') && path === '/v1/me') return errorResponse(unknownUrl('GET', '/v1/me'), ctx.requestId, fs);
  if (has('me-not-under-v1') && path === '/me' && req.method === 'GET') {
    const account = state.accounts.authenticate(/^Bearer\s+(\S+)/i.exec(req.headers['authorization'] ?? '')?.[1] ?? '');
    if (account !== undefined) return json(200, account.me(state.now()), ctx.requestId);
  }
  if (has('models-public-500-plain') && path === '/v1/models' && req.headers['authorization'] === undefined) {
    return { kind: 'full', status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Internal Server Error\n', requestId: ctx.requestId };
  }
  if (has('unversioned-models-alias') && path === '/models' && req.method === 'GET') return json(200, state.models.listBody(EMPTY), ctx.requestId);

  if (res.kind === 'full') {
    if (path === '/v1/models' && res.status === 200) {
      if (has('models-not-json')) {
        const ids = (parse(res)?.['data'] as Json[] | undefined)?.map((m) => String(m['id'])) ?? [];
        res.body = `${ids.join('\n')}\n`;
      }
      if (has('models-data-object')) rewrite(res, (b) => ({ ...b, data: Object.fromEntries((b['data'] as Json[]).map((m) => [String(m['id']), m])) }));
      if (has('models-id-empty-extra')) rewrite(res, (b) => ({ ...b, data: [...(b['data'] as Json[]), { id: '', object: 'model', created: 1_700_000_000, owned_by: 'iari' }] }));
      if (has('models-object-wrong')) rewrite(res, (b) => ({ ...b, data: (b['data'] as Json[]).map((m) => ({ ...m, object: 'engine' })) }));
      if (has('models-list-object-wrong')) rewrite(res, (b) => ({ ...b, object: 'models' }));
      if (has('models-duplicate')) rewrite(res, (b) => ({ ...b, data: [...(b['data'] as Json[]), ...(b['data'] as Json[]).slice(0, 1)] }));
    }
    if (has('me-not-object') && path === '/v1/me' && res.status === 200) rewrite(res, (b) => [b]);
    if (path === '/v1/me/usage' && res.status === 200) {
      if (has('usage-object-wrong')) rewrite(res, (b) => ({ ...b, object: 'usage' }));
      if (has('usage-row-prompt-short')) {
        rewrite(res, (b) => ({ ...b, data: (b['data'] as Json[]).map((r) => (Number(r['prompt_tokens']) > 0 ? { ...r, prompt_tokens: Number(r['prompt_tokens']) - 1 } : r)) }));
      }
    }
    if (res.status >= 400) {
      const err = parse(res)?.['error'] as Json | undefined;
      if ((has('rejected-requests-counted') || countsRejected(fs)) && path === CHAT_COMPLETIONS_PATH && res.status < 500 && ctx.account !== null) ctx.account.record(state.now(), 0, 0, 0);
      if (has('retry-after-ms-negative')) res.headers['retry-after-ms'] = '-1';
      if (has('error-content-type-text')) res.headers['content-type'] = 'text/plain; charset=utf-8';
      if (has('bad-request-type-wrong') && res.status === 400) rewrite(res, (b) => ({ error: { ...(b['error'] as Json), type: 'bad_request' } }));
      if (has('param-not-named') && res.status === 400 && err?.['param'] === 'messages') rewrite(res, (b) => ({ error: { ...(b['error'] as Json), param: 'body' } }));
      if (has('unknown-route-405') && res.status === 404 && err?.['code'] === 'unknown_url') {
        res.status = 405;
        rewrite(res, (b) => ({ error: { ...(b['error'] as Json), code: 'method_not_allowed' } }));
      }
      if (has('invalid-role-status-flaps') && res.status === 400 && typeof err?.['param'] === 'string' && /^messages\[\d+\]\.role$/.test(err['param']) && state.roleFlaps++ % 2 === 1) res.status = 422;
      if (res.status === 401) {
        if (has('auth-401-wrong-type')) rewrite(res, (b) => ({ error: { ...(b['error'] as Json), type: 'authentication_error' } }));
        const sent = req.headers['authorization'];
        if (has('auth-token-echoed') && sent !== undefined) rewrite(res, (b) => ({ error: { ...(b['error'] as Json), message: `Incorrect API key provided: ${sent.replace(/^\S+\s+/, '')}` } }));
      }
    } else if (res.status === 200 && has('json-content-type-text') && /^application\/json/.test(res.headers['content-type'] ?? '')) {
      res.headers['content-type'] = 'text/plain; charset=utf-8';
    }
  }
  // As llama.cpp's server: keep-alive said, the connection closed after the stream (only on the HDR-017 probe, areas/keep-alive.ts).
  if (has('keep-alive-close-after-stream') && res.kind === 'stream' && req.headers['x-iari-probe'] === 'keep-alive') {
    res.headers['keep-alive'] = 'timeout=5, max=100';
    res.closeAfter = true;
  }
  if (res.status === 200) {
    if (has('ratelimit-limit-decimal')) rateHeaders(res, (k, v) => { res.headers[`x-ratelimit-limit-${k}`] = `${v}.0`; });
    if (has('ratelimit-remaining-above-limit')) rateHeaders(res, (k, v) => { res.headers[`x-ratelimit-remaining-${k}`] = String(Number(v) + 1); });
    if (has('ratelimit-reset-bare-seconds')) rateHeaders(res, (k) => { res.headers[`x-ratelimit-reset-${k}`] = '1.5'; });
    if (has('ratelimit-limit-doubled')) rateHeaders(res, (k, v) => { res.headers[`x-ratelimit-limit-${k}`] = String(Number(v) * 2); });
  }
  return res;
}
