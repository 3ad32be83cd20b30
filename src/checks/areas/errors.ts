import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { offers } from '../requests/capability-probes.ts';
import { requirementIds } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import { evidence, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorMember, errorMemberIs, errorOf, modelUnderTest, unknownModelId, PROMPT } from '../requests/common-requests.ts';
import { sampleNegativeInputs } from '../requests/negative-inputs.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

const ids = (...n: number[]): string[] => requirementIds('ERR', ...n);

/** Bounded number of generated negative inputs per run (seeded from the run seed). */
export const NEGATIVE_INPUT_RUNS = 24;

/** A spread of client faults across routes: auth, validation, unknown model and route, bad JSON, bad query. */
interface ErrorSample {
  what: string;
  ex: HttpExchange;
  /** Set where the seed does not define the value as malformed: a 2xx is then a legal answer, only a 5xx breaks ERR-006. */
  undefinedBySeed?: string;
}

const errorSamples = sharedRequest('errors:samples', async (ctx: CheckContext): Promise<ErrorSample[]> => {
  const model = await modelUnderTest(ctx);
  const out: ErrorSample[] = [];
  // Issue 43: in a run that sends no token the server asks for none; a 2xx without credentials is its right.
  const tokenless = ctx.http.sendsToken ? {} : { undefinedBySeed: 'the run sends no token: a server without auth answers without one' };
  out.push({ what: 'missing credentials', ex: await ctx.http.get('/v1/me', { auth: 'none' }), ...tokenless });
  out.push({ what: 'missing model', ex: await ctx.http.post(CHAT_COMPLETIONS_PATH, { messages: [{ role: 'user', content: PROMPT }] }) });
  out.push({ what: 'bad temperature', ex: await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { temperature: 'hot' })) });
  out.push({ what: 'unknown model', ex: await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, unknownModelId(ctx))) });
  out.push({ what: 'unknown route', ex: await ctx.http.get('/v1/nope') });
  out.push({ what: 'invalid JSON', ex: await ctx.http.send('POST', CHAT_COMPLETIONS_PATH, { raw: { body: '{not json', contentType: 'application/json' } }) });
  // Seed, GET /v1/me/usage: "Query parameter: days. Type, default, bounds and allowed values: not shown."
  // days=0 is malformed only by this project's profile (USAGE-005, INFO): a server may clamp it.
  out.push({ what: 'days=0', ex: await ctx.http.get('/v1/me/usage?days=0'), undefinedBySeed: 'the seed shows no bounds for days' });
  return out;
});

/** Judges the ErrorResponse shape of one 4xx/5xx answer on ERR-001..005 (and the given extra IDs). */
function judgeErrorBody(j: Judge, ex: HttpExchange, what: string, only?: readonly string[]): void {
  const want = (id: string): boolean => only === undefined || only.includes(id);
  const e = errorOf(ex);
  if (want('ERR-001')) {
    j.expect('ERR-001', e !== undefined, () => evidence(ex, `${what}: the ${ex.status} body is not {"error":{...}}`, { expected: '{"error":{"message","type","param","code"}}', received: ex.text }));
  }
  if (e === undefined) return;
  if (want('ERR-002')) j.expect('ERR-002', typeof e['message'] === 'string' && e['message'].length > 0, () => evidence(ex, `${what}: error.message is not a non-empty string`, { received: e['message'], pointer: '/error/message' }));
  if (want('ERR-003')) j.expect('ERR-003', typeof e['type'] === 'string', () => evidence(ex, `${what}: error.type is not a string`, { received: e['type'], pointer: '/error/type' }));
  if (want('ERR-004')) {
    j.expect('ERR-004', 'param' in e && (e['param'] === null || typeof e['param'] === 'string'), () => evidence(ex, `${what}: error.param is missing or not string|null`, { received: 'param' in e ? e['param'] : undefined, pointer: '/error/param' }));
  }
  if (want('ERR-005')) {
    j.expect('ERR-005', 'code' in e && (e['code'] === null || typeof e['code'] === 'string'), () => evidence(ex, `${what}: error.code is missing or not string|null`, { received: 'code' in e ? e['code'] : undefined, pointer: '/error/code' }));
  }
}

const bodyShape: CheckDef = {
  name: 'errors-body-shape',
  area: 'errors',
  ids: ids(1, 2, 3, 4, 5, 8, 9),
  title: 'error responses are JSON {"error":{message,type,param,code}} with string-or-null param and code, and 400s are invalid_request_error',
  async run(ctx, j) {
    for (const { what, ex } of await errorSamples(ctx)) {
      if (ex.status < 400) continue;
      judgeErrorBody(j, ex, what);
      const ct = ex.headers['content-type'] ?? '';
      j.expect('ERR-008', /^application\/json\b/i.test(ct), () => evidence(ex, `${what}: the error is not served as application/json`, { expected: 'application/json', received: ct }));
      if (ex.status === 400 && errorMember(ex, 'type') !== undefined) {
        j.expect('ERR-009', errorOf(ex)?.['type'] === 'invalid_request_error', () => evidence(ex, `${what}: a 400 is not typed invalid_request_error`, { expected: 'invalid_request_error', received: errorOf(ex)?.['type'], pointer: '/error/type' }));
      }
    }
    j.skipRest('no error response with an error object to inspect (ERR-001 judges the body)');
  },
};

const negativeInputs: CheckDef = {
  name: 'errors-negative-inputs',
  area: 'errors',
  ids: ids(1, 6),
  title: `generated invalid requests (missing fields, wrong types, out-of-range values) answer 4xx with an error body, never 5xx`,
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    for (const input of sampleNegativeInputs(model, ctx.seed, NEGATIVE_INPUT_RUNS)) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, input.body);
      // Spec, chat completions: "Other fields: not shown". A server that ignores a member beyond
      // the seed's table (CHAT-020) answers 200 to any value of it: judged only where it offers the member.
      if (ex.status >= 200 && ex.status < 300 && !(await offersMember(ctx, input.why))) continue;
      j.expect('ERR-006', ex.status >= 400 && ex.status < 500, () =>
        evidence(ex, `${input.why}: answered ${ex.status} (seed ${ctx.seed})`, { expected: '4xx', received: describeResponse(ex) }),
      );
      if (ex.status >= 400) {
        j.expect('ERR-001', errorOf(ex) !== undefined, () => evidence(ex, `${input.why}: the ${ex.status} body is not {"error":{...}} (seed ${ctx.seed})`, { received: ex.text }));
      }
    }
    const samples = await errorSamples(ctx);
    for (const { what, ex, undefinedBySeed } of samples) {
      // Judge only what the seed defines: a value it leaves open answered 2xx is no client fault answered wrongly.
      if (undefinedBySeed !== undefined) j.expect('ERR-006', ex.status < 500, () => evidence(ex, `${what} (${undefinedBySeed}) answered ${ex.status}: a server error`, { expected: 'not 5xx', received: ex.status }));
      else j.expect('ERR-006', ex.status >= 400 && ex.status < 500, () => evidence(ex, `${what}: a client fault answered ${ex.status}`, { expected: '4xx', received: ex.status }));
    }
  },
};

/** Whether the member a negative input breaks is one the server offers: core members always are. */
async function offersMember(ctx: CheckContext, why: string): Promise<boolean> {
  const field = why.split(' ')[0] ?? '';
  const cap = ({ n: 'n', max_completion_tokens: 'max-completion-tokens', stop: 'stop' } as const)[field as 'n'];
  if (cap !== undefined) return offers(ctx, cap);
  return !['top_p'].includes(field);
}

const sameStatus: CheckDef = {
  name: 'errors-same-status',
  area: 'errors',
  ids: ids(7),
  title: 'the same invalid request gets the same status three times',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const statuses: number[] = [];
    let last: HttpExchange | undefined;
    for (let i = 0; i < 3; i++) {
      last = await ctx.http.post(CHAT_COMPLETIONS_PATH, { model, messages: [{ role: 'wizard', content: 'hi' }] });
      statuses.push(last.status);
    }
    j.expect('ERR-007', new Set(statuses).size === 1, () => evidence(last, 'the same invalid request got different statuses', { expected: 'one status', received: statuses }));
  },
};

const oversizedBody = sharedRequest('errors:oversized', async (ctx: CheckContext): Promise<HttpExchange> => {
  // HTTP profile: "413: code request_too_large (body limit 1 MiB)".
  const body = chatBody(ctx, await modelUnderTest(ctx), { messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024 + 1024) }] });
  return ctx.http.post(CHAT_COMPLETIONS_PATH, body);
});

const textPlainBody = sharedRequest('errors:text-plain', async (ctx: CheckContext): Promise<HttpExchange> =>
  ctx.http.send('POST', CHAT_COMPLETIONS_PATH, { raw: { body: JSON.stringify(chatBody(ctx, await modelUnderTest(ctx))), contentType: 'text/plain' } }),
);

const tooLarge: CheckDef = {
  name: 'errors-body-too-large',
  area: 'errors',
  ids: ids(10),
  title: 'a chat body over 1 MiB is refused with 413 request_too_large (or 400)',
  async run(ctx, j) {
    const ex = await oversizedBody(ctx);
    // DECISIONS.md D-HTTP-15; a server that reads the body and finds the prompt too long answers 400 (OpenAI: context_length_exceeded).
    const ok = (ex.status === 413 && errorMemberIs(ex, 'code', ['request_too_large'])) || ex.status === 400;
    j.expect('ERR-010', ok, () =>
      evidence(ex, 'a body over 1 MiB was not refused with 413 request_too_large or 400', { expected: { status: [413, 400], code: 'request_too_large' }, received: describeResponse(ex) }),
    );
  },
};

const mediaType: CheckDef = {
  name: 'errors-unsupported-media-type',
  area: 'errors',
  ids: ids(11),
  title: 'a chat body sent as text/plain is refused with 415 unsupported_media_type (or 400)',
  async run(ctx, j) {
    const ex = await textPlainBody(ctx);
    // DECISIONS.md D-HTTP-16; what OpenAI answers is not published, so a 400 refusal is accepted too.
    const ok = (ex.status === 415 && errorMemberIs(ex, 'code', ['unsupported_media_type'])) || ex.status === 400;
    j.expect('ERR-011', ok, () =>
      evidence(ex, 'text/plain was not refused with 415 unsupported_media_type or 400', { expected: { status: [415, 400], code: 'unsupported_media_type' }, received: describeResponse(ex) }),
    );
  },
};

const unknownRoute: CheckDef = {
  name: 'errors-unknown-route',
  area: 'errors',
  ids: ids(12),
  title: 'an unknown route answers 404',
  async run(ctx, j) {
    const ex = (await errorSamples(ctx)).find((s) => s.what === 'unknown route')?.ex ?? (await ctx.http.get('/v1/nope'));
    // DECISIONS.md D-HTTP-06: the code is not graded; OpenAI has sent null ("Invalid URL") and "unknown_url".
    j.expect('ERR-012', ex.status === 404, () => evidence(ex, 'GET /v1/nope did not answer 404', { expected: { status: 404 }, received: describeResponse(ex) }));
  },
};

const nonObject: CheckDef = {
  name: 'errors-non-object-body',
  area: 'errors',
  ids: ids(13),
  title: 'a JSON body that is an array, a string or null answers 400',
  async run(ctx, j) {
    for (const raw of ['[]', '"hello"', 'null']) {
      const ex = await ctx.http.send('POST', CHAT_COMPLETIONS_PATH, { raw: { body: raw, contentType: 'application/json' } });
      j.expect('ERR-013', ex.status === 400, () => evidence(ex, `a body of ${raw} was not refused with 400`, { expected: 400, received: describeResponse(ex) }));
    }
  },
};

const wrongType: CheckDef = {
  name: 'errors-wrong-type-field',
  area: 'errors',
  ids: ids(14),
  title: 'messages as a string or stream as "yes" answers 400 naming the field',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const cases = [
      { field: 'messages', body: { model, messages: 'hello' } },
      { field: 'stream', body: chatBody(ctx, model, { stream: 'yes' }) },
    ];
    for (const c of cases) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, c.body);
      j.expect('ERR-014', ex.status === 400 && errorMemberIs(ex, 'param', [c.field]), () =>
        evidence(ex, `${c.field} of the wrong type was not refused naming it`, { expected: { status: 400, param: c.field }, received: describeResponse(ex) }),
      );
    }
  },
};

const serverErrors: CheckDef = {
  name: 'errors-server-error-shape',
  area: 'errors',
  ids: ids(15),
  title: 'every 5xx seen during the run carries the same four-member error body',
  async run(ctx, j) {
    const seen = ctx.http.sent.filter((s) => s.status >= 500);
    for (const s of seen) {
      const e = (s.json as { error?: Record<string, unknown> } | undefined)?.error;
      const ok = e !== undefined && typeof e['message'] === 'string' && typeof e['type'] === 'string' && 'param' in e && 'code' in e;
      j.expect('ERR-015', ok, () => ({ message: `${s.method} ${s.path} answered ${s.status} without an ErrorResponse`, ...(s.requestId === undefined ? {} : { requestId: s.requestId }), received: s.json ?? '(not JSON)' }));
    }
    if (!j.has('ERR-015')) j.pass('ERR-015');
  },
};

export const errorsChecks: CheckDef[] = [bodyShape, negativeInputs, sameStatus, tooLarge, mediaType, unknownRoute, nonObject, wrongType, serverErrors];
