// GET /v1/models/{model}: one model of the public list, as OpenAI's `client.models.retrieve(id)`
// asks for it (compat: OpenAI `RetrieveModel`; profile D-HTTP-44: public like the list it belongs to).
import type { CoreState, RequestContext } from './context.ts';
import type { FaultDefinition } from './fault-catalogue.ts';
import type { FullResponse, MockRequest } from './types.ts';
import { errorResponse } from './http-errors.ts';
import { json } from './json-response.ts';
import { retrieveHidden } from './extension-modes.ts';

export const MODEL_ROUTE_PREFIX = '/v1/models/';

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

export const modelRouteFaults: readonly FaultDefinition[] = [
  { ...f('model-retrieve-missing', ['MODELS-014', 'MODELS-015', 'MODELS-016', 'MODELS-017', 'MODELS-018'], 'GET /v1/models/{id} is not served: every id answers 404 unknown_url, as on a server without the route (legal by default; fails under --expect model-retrieve).'), expect: ['model-retrieve'] },
  f('model-retrieve-wrong-model', ['MODELS-015'], 'GET /v1/models/{id} of a listed id answers another listed model.'),
  f('model-retrieve-bare-id', ['MODELS-015'], 'GET /v1/models/{id} answers {"id": ...} without object, created and owned_by.'),
  f('model-retrieve-private', ['MODELS-016'], 'GET /v1/models/{id} asks for a bearer token although the list it belongs to is public.'),
  f('model-retrieve-unknown-200', ['MODELS-017', 'MODELS-018'], 'GET /v1/models/{id} of an id never listed answers 200 with a made-up model.'),
  f('model-retrieve-unknown-400', ['MODELS-018'], 'GET /v1/models/{id} of an id never listed answers 400 instead of 404 model_not_found.'),
];

/**
 * Answers GET /v1/models/{model}; `authenticate` is the core's bearer check (used only under the
 * model-retrieve-private fault). The id is the rest of the path, percent-decoded, so ids holding
 * a slash (`org/model`) are found whether the client encoded the slash or not.
 */
export function modelRoute(state: CoreState, req: MockRequest, ctx: RequestContext, path: string, authenticate: () => FullResponse | null): FullResponse {
  const f = ctx.faults;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return errorResponse({ status: 405, type: 'invalid_request_error', message: `Method ${req.method} is not allowed on ${path}; use GET.`, param: null, code: 'method_not_allowed' }, ctx.requestId, f, { allow: 'GET' });
  }
  if (f.has('model-retrieve-missing') || retrieveHidden(f)) {
    return errorResponse({ status: 404, type: 'invalid_request_error', message: `Unknown request URL: GET ${path}. Please check the URL for typos.`, param: null, code: 'unknown_url' }, ctx.requestId, f);
  }
  if (f.has('model-retrieve-private')) {
    const denied = authenticate();
    if (denied !== null) return denied;
  }
  let id: string;
  try {
    id = decodeURIComponent(path.slice(MODEL_ROUTE_PREFIX.length));
  } catch {
    id = path.slice(MODEL_ROUTE_PREFIX.length);
  }
  const asked = state.models.get(id);
  const model = f.has('model-retrieve-wrong-model') && asked !== undefined ? (state.models.all().find((m) => m.id !== id) ?? asked) : asked;
  if (model === undefined) {
    if (f.has('model-retrieve-unknown-200')) return json(200, { id, object: 'model', created: Math.floor(state.now() / 1000), owned_by: 'iari' }, ctx.requestId);
    // Compat (OpenAI): an unknown or retired model answers 404, code model_not_found, as a chat request naming it.
    return errorResponse({ status: f.has('model-retrieve-unknown-400') ? 400 : 404, type: 'invalid_request_error', message: `The model '${id}' does not exist or you do not have access to it.`, param: 'model', code: 'model_not_found' }, ctx.requestId, f);
  }
  if (f.has('model-retrieve-bare-id')) return json(200, { id: model.id }, ctx.requestId);
  // Compat (OpenAI `Model`): {id, object: "model", created, owned_by}, the same object the list carries.
  return json(200, { id: model.id, object: 'model', created: model.created, owned_by: model.owned_by }, ctx.requestId);
}
