import type { CoreState, RequestContext } from './context.ts';
import type { FullResponse, MockRequest } from './types.ts';
import type { ModelInput } from './models.ts';
import { badRequest, errorResponse } from './http-errors.ts';
import { json } from './json-response.ts';
import { freeze } from './freeze.ts';

// Debug and admin routes under /_iari/ (loopback only): model availability and the freeze control.

export function admin(state: CoreState, req: MockRequest, ctx: RequestContext, path: string): FullResponse {
  if (path === '/_iari/models' && req.method === 'GET') {
    return json(200, { available: state.models.ids(), retired: state.models.retiredIds() }, ctx.requestId);
  }
  if (path === '/_iari/freeze' && req.method === 'POST') {
    let ms: unknown;
    try {
      ms = (JSON.parse(new TextDecoder().decode(req.body)) as Record<string, unknown>)['ms'];
    } catch {
      ms = undefined;
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > 600_000) {
      return errorResponse(badRequest('ms', "Expected {\"ms\": number from 0 to 600000}."), ctx.requestId, ctx.faults);
    }
    freeze(state, ms);
    return json(200, { frozen_ms: ms }, ctx.requestId);
  }
  if ((path === '/_iari/models/retire' || path === '/_iari/models/add') && req.method === 'POST') {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(new TextDecoder().decode(req.body)) as Record<string, unknown>;
    } catch {
      return errorResponse(badRequest(null, 'Body must be JSON.', 'invalid_json'), ctx.requestId, ctx.faults);
    }
    const id = body['id'];
    if (typeof id !== 'string' || id.length === 0) return errorResponse(badRequest('id', "Missing required parameter: 'id'."), ctx.requestId, ctx.faults);
    if (path.endsWith('/retire')) {
      const retired = state.models.retire(id);
      if (!retired) return errorResponse({ status: 404, type: 'invalid_request_error', message: `No available model '${id}'.`, param: 'id', code: 'model_not_found' }, ctx.requestId, ctx.faults);
      return json(200, { retired: id }, ctx.requestId);
    }
    const input: ModelInput = { id };
    if (typeof body['owned_by'] === 'string') input.owned_by = body['owned_by'];
    if (typeof body['created'] === 'number') input.created = body['created'];
    const model = state.models.add(input);
    return json(200, { added: model.id }, ctx.requestId);
  }
  return errorResponse({ status: 404, type: 'invalid_request_error', message: `Unknown debug route: ${req.method} ${path}`, param: null, code: 'not_found' }, ctx.requestId, ctx.faults);
}
