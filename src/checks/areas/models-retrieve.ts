import type { CheckDef } from '../context/check-types.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../kernel/evidence.ts';
import { errorMemberIs, modelUnderTest, unknownModelId } from '../requests/common-requests.ts';
import { gate } from '../requests/capability-probes.ts';

/** The path of one model: ids may hold `/` (`org/model`), so the id is one encoded segment, as openai-node sends it. */
const modelPath = (id: string): string => `/v1/models/${encodeURIComponent(id)}`;

export const retrieveModel: CheckDef = {
  name: 'models-retrieve',
  area: 'models',
  ids: ['MODELS-014', 'MODELS-015', 'MODELS-016', 'MODELS-017', 'MODELS-018'],
  title: 'GET /v1/models/{id} answers the listed model as {id,object:"model",created,owned_by}, without credentials, and an unknown id 404 model_not_found',
  async run(ctx, j) {
    let id: string;
    try {
      id = await modelUnderTest(ctx);
    } catch {
      // The list itself is broken: MODELS-001 fails the run; there is no id to retrieve.
      j.skipRest('GET /v1/models lists no model id to retrieve (MODELS-001)');
      return;
    }
    // The seed shows GET /v1/models only: retrieving one model is a capability (capabilities.ts).
    if (!(await gate(ctx, j, 'model-retrieve'))) return;
    // Compat (OpenAI RetrieveModel, called by openai-node `client.models.retrieve(id)`): 200 and the Model object.
    const ex = await ctx.http.get(modelPath(id));
    if (!j.expect('MODELS-014', ex.status === 200 && ex.jsonError === undefined, () => evidence(ex, `GET /v1/models/${id} did not answer 200 JSON`, { expected: '200 JSON', received: describeResponse(ex) }))) {
      j.skipRest('the server does not serve GET /v1/models/{id}');
      return;
    }
    const m = ex.json;
    const problems: [string, unknown, string][] = [];
    if (!isRecord(m)) problems.push(['the body is not an object', m, '']);
    else {
      if (at(m, 'id') !== id) problems.push([`id is not the requested "${id}"`, at(m, 'id'), '/id']);
      if (at(m, 'object') !== 'model') problems.push(['object is not "model"', at(m, 'object'), '/object']);
      const created = at(m, 'created');
      if (!(isInt(created) && created >= 0 && created < 1e10)) problems.push(['created is not Unix seconds', created, '/created']);
      if (typeof at(m, 'owned_by') !== 'string') problems.push(['owned_by is not a string', at(m, 'owned_by'), '/owned_by']);
    }
    for (const [message, received, pointer] of problems) j.violated('MODELS-015', evidence(ex, `GET /v1/models/${id}: ${message}`, { received, ...(pointer === '' ? {} : { pointer }) }));
    if (problems.length === 0) j.pass('MODELS-015');
    // Profile D-HTTP-44 (seed §Authentication 3, "Public route: /v1/models"): one model of the public list is public too.
    const anonymous = await ctx.http.get(modelPath(id), { auth: 'none' });
    j.expect('MODELS-016', anonymous.status === 200, () => evidence(anonymous, `GET /v1/models/${id} without credentials answered ${anonymous.status}`, { expected: 200, received: describeResponse(anonymous) }));
    // Compat (OpenAI): an id the server does not have answers 404, code model_not_found, like a chat request naming it.
    const unknown = await ctx.http.get(modelPath(unknownModelId(ctx)));
    j.expect('MODELS-017', unknown.status >= 400, () => evidence(unknown, 'an id never listed was answered as if the model existed', { expected: 'an error status', received: describeResponse(unknown) }));
    j.expect('MODELS-018', unknown.status === 404 && errorMemberIs(unknown, 'code', ['model_not_found']), () =>
      evidence(unknown, 'an id never listed did not get 404 model_not_found', { expected: { status: 404, code: 'model_not_found' }, received: describeResponse(unknown) }),
    );
  },
};
