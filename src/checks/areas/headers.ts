import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { requirementIds } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, at } from '../kernel/evidence.ts';
import { basicCompletion, basicStream, modelList, sharedMe, chatBody, modelUnderTest } from '../requests/common-requests.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

const ids = (...n: number[]): string[] => requirementIds('HDR', ...n);

// HTTP profile: "Every response carries x-request-id: req_<24+ hex>".
const REQUEST_ID = /^req_[0-9a-f]{24,}$/;
const GO_DURATION = /^(\d+(\.\d+)?(h|m|s|ms|us|µs|ns))+$/;

/** One response of every route and kind: public, private, usage, completion, stream, 401, 400, 404. */
const routeSamples = sharedRequest('headers:samples', async (ctx: CheckContext): Promise<{ what: string; ex: HttpExchange }[]> => {
  const model = await modelUnderTest(ctx);
  return [
    { what: 'GET /v1/models', ex: await modelList(ctx) },
    { what: 'GET /v1/me', ex: await sharedMe(ctx) },
    { what: 'GET /v1/me/usage', ex: await ctx.http.get('/v1/me/usage?days=2') },
    { what: 'chat completion', ex: await basicCompletion(ctx) },
    { what: 'chat stream', ex: await basicStream(ctx) },
    { what: '401', ex: await ctx.http.get('/v1/me', { auth: 'none' }) },
    { what: '400', ex: await ctx.http.post(CHAT_COMPLETIONS_PATH, { model, messages: [] }) },
    { what: '404', ex: await ctx.http.get('/v1/nope') },
  ];
});

const requestId: CheckDef = {
  name: 'headers-request-id',
  area: 'headers',
  ids: ids(1, 2),
  title: 'every response, errors and streams included, carries an x-request-id of the form req_<24+ hex>',
  async run(ctx, j) {
    for (const { what, ex } of await routeSamples(ctx)) {
      const id = ex.headers['x-request-id'];
      if (!j.expect('HDR-001', id !== undefined && id.length > 0, () => evidence(ex, `${what}: no x-request-id header`, { expected: 'x-request-id' }))) continue;
      j.expect('HDR-002', REQUEST_ID.test(id as string), () => evidence(ex, `${what}: x-request-id is not req_<24+ hex>`, { expected: REQUEST_ID.source, received: id }));
    }
    if (!j.has('HDR-002')) j.skip('HDR-002', 'no x-request-id to inspect');
  },
};

const uniqueIds: CheckDef = {
  name: 'headers-request-id-unique',
  area: 'headers',
  ids: ids(3),
  title: 'ten requests get ten distinct x-request-id values',
  async run(ctx, j) {
    const seen: string[] = [];
    let last: HttpExchange | undefined;
    for (let i = 0; i < 10; i++) {
      last = await ctx.http.get('/v1/models', { auth: 'none' });
      seen.push(last.headers['x-request-id'] ?? '');
    }
    if (seen.includes('')) {
      j.skip('HDR-003', 'responses carry no x-request-id (HDR-001)');
      return;
    }
    j.expect('HDR-003', new Set(seen).size === 10, () => evidence(last, 'x-request-id values repeat', { expected: '10 distinct ids', received: seen }));
  },
};

const rateLimitHeaders: CheckDef = {
  name: 'headers-rate-limit',
  area: 'headers',
  ids: ids(4, 5, 6, 7),
  title: 'x-ratelimit-* headers, where present, are well-formed integers and Go durations that agree with /v1/me limits',
  async run(ctx, j) {
    const me = await sharedMe(ctx);
    const exchanges = [await basicCompletion(ctx), await basicStream(ctx)];
    let seen = false;
    for (const ex of exchanges) {
      const h = ex.headers;
      for (const kind of ['requests', 'tokens'] as const) {
        const limit = h[`x-ratelimit-limit-${kind}`];
        const remaining = h[`x-ratelimit-remaining-${kind}`];
        const reset = h[`x-ratelimit-reset-${kind}`];
        if (limit !== undefined) {
          seen = true;
          j.expect('HDR-004', /^\d+$/.test(limit), () => evidence(ex, `x-ratelimit-limit-${kind} is not a non-negative integer`, { received: limit }));
          const fromMe = at(me.json, 'limits', kind === 'requests' ? 'requests_per_minute' : 'tokens_per_minute');
          if (Number(limit) === fromMe) j.pass('HDR-007');
          else j.informational('HDR-007', `x-ratelimit-limit-${kind} ${limit} differs from /v1/me limits (${String(fromMe)})`);
        }
        if (remaining !== undefined) {
          seen = true;
          j.expect('HDR-005', /^\d+$/.test(remaining) && (limit === undefined || Number(remaining) <= Number(limit)), () =>
            evidence(ex, `x-ratelimit-remaining-${kind} is not an integer within the limit`, { expected: `0..${limit ?? '?'}`, received: remaining }),
          );
        }
        if (reset !== undefined) {
          seen = true;
          j.expect('HDR-006', GO_DURATION.test(reset), () => evidence(ex, `x-ratelimit-reset-${kind} is not a Go-style duration`, { expected: '1s, 250ms, 6m0s', received: reset }));
        }
      }
    }
    if (!seen) j.skipRest('the server sends no x-ratelimit-* headers (they are optional)');
    else for (const id of j.ids) if (!j.has(id)) j.pass(id);
  },
};

const jsonContentType: CheckDef = {
  name: 'headers-json-content-type',
  area: 'headers',
  ids: ids(8),
  title: 'non-streaming 200 responses declare Content-Type application/json',
  async run(ctx, j) {
    for (const { what, ex } of await routeSamples(ctx)) {
      if (ex.status !== 200 || what === 'chat stream') continue;
      const ct = ex.headers['content-type'] ?? '';
      j.expect('HDR-008', /^application\/json\b/i.test(ct), () => evidence(ex, `${what}: Content-Type is not application/json`, { expected: 'application/json', received: ct }));
    }
    if (!j.has('HDR-008')) j.violated('HDR-008', { message: 'no non-streaming 200 response to inspect' });
  },
};

/** Why each endpoint that did not answer 200 under /v1 did not, where that is another requirement's finding; undefined when one is not. */
async function prefixRootCauses(ctx: Parameters<CheckDef['run']>[0], statuses: readonly (readonly [string, number])[]): Promise<string | undefined> {
  const causes: string[] = [];
  for (const [path, status] of statuses) {
    if (status === 200) continue;
    if (status === 401 || status === 403) causes.push(`GET /v1/${path} answered ${status} (the credentials)`);
    else if (status === 404 && (await ctx.http.get(`/${path}`)).status === 404) causes.push(`GET /v1/${path} and GET /${path} answered 404 (the endpoint is absent${path === 'me' ? ', ME-001' : ''})`);
    else return undefined;
  }
  return causes.length > 0 ? causes.join('; ') : undefined;
}

const versionPrefix: CheckDef = {
  name: 'headers-v1-prefix',
  area: 'headers',
  ids: ids(9, 10),
  title: 'endpoints answer under the /v1 prefix and not as unversioned aliases',
  async run(ctx, j) {
    // Spec, Versioning: "The HTTP interface is versioned by the path prefix /v1."
    const models = await modelList(ctx);
    const me = await sharedMe(ctx);
    const answers = `GET /v1/models answered ${models.status}, GET /v1/me answered ${me.status}`;
    const causes = await prefixRootCauses(ctx, [['models', models.status], ['me', me.status]]);
    // Issue 27: an endpoint that is absent (404 with and without /v1) or behind other credentials
    // (401/403) is its own requirement's finding (ME-001, AUTH, MODELS), not evidence that it lives
    // outside /v1: HDR-009 is undecided and names that root cause instead of failing as its cascade.
    if (causes !== undefined) j.skip('HDR-009', `undecided: ${causes}; nothing answers outside /v1 instead`);
    else j.expect('HDR-009', models.status === 200 && me.status === 200, () => evidence(models.status === 200 ? me : models, `${answers}: not every endpoint answers under the /v1 prefix`, { expected: 200, received: [models.status, me.status] }));
    const bare = await ctx.http.get('/models', { auth: 'none' });
    if (bare.status === 404) j.pass('HDR-010');
    else j.informational('HDR-010', `GET {origin}/models (no /v1) answered ${bare.status}`);
  },
};

const retryAfterMs: CheckDef = {
  name: 'headers-retry-after-ms',
  area: 'headers',
  ids: ids(11),
  title: 'retry-after-ms, where present, is a non-negative number',
  async run(ctx, j) {
    const values = ctx.http.sent.map((s) => s.headers['retry-after-ms']).filter((v): v is string => v !== undefined);
    for (const v of values) {
      // HDR-011 is a SHOULD (D-GRADE-02): openai-node ignores a malformed value and backs off on its own.
      if (!/^\d+(\.\d+)?$/.test(v)) j.violated('HDR-011', { message: `retry-after-ms "${v}" is not a non-negative number`, expected: 'a non-negative number of milliseconds', received: v });
    }
    if (!j.has('HDR-011')) j.pass('HDR-011');
  },
};

export const headersChecks: CheckDef[] = [requestId, uniqueIds, rateLimitHeaders, jsonContentType, versionPrefix, retryAfterMs];
