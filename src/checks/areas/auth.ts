import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { bound } from '../requests/capability-probes.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Auth } from '../http/check-http.ts';
import { evidence, at, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorOf, errorMemberIs, modelUnderTest, modelList, sharedMe } from '../requests/common-requests.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

// Spec, Authentication 2: the authenticated routes are /v1/me, /v1/me/usage and chat completions.
const privateRoutes = [
  { id: 'AUTH-001', method: 'GET', path: '/v1/me' },
  { id: 'AUTH-002', method: 'GET', path: '/v1/me/usage' },
  { id: 'AUTH-003', method: 'POST', path: CHAT_COMPLETIONS_PATH },
] as const;

type Variant = 'missing' | 'unknown' | 'truncated' | 'empty' | 'basic' | 'no-scheme';

interface Rejection {
  route: (typeof privateRoutes)[number];
  variant: Variant;
  /** The credential that was sent, when one was (to check it is not echoed). */
  sentSecret: string | undefined;
  ex: HttpExchange;
}

function fakeToken(ctx: CheckContext): string {
  return `iari-not-a-token-${ctx.seed.toString(16)}-5f0c1e7d9a2b`;
}

/** Every private route with every bad credential: missing, unknown, truncated, empty, wrong scheme. */
const rejections = sharedRequest('auth:rejections', async (ctx: CheckContext): Promise<Rejection[]> => {
  const model = await modelUnderTest(ctx);
  const token = ctx.http.tokenForProbe();
  const half = token.slice(0, Math.max(1, Math.floor(token.length / 2)));
  ctx.http.registerSecret(half, `\${IARI_TOKEN:0:${half.length}}`);
  const variants: { variant: Variant; auth: Auth; secret: string | undefined }[] = [
    { variant: 'missing', auth: 'none', secret: undefined },
    { variant: 'unknown', auth: { authorization: `Bearer ${fakeToken(ctx)}` }, secret: fakeToken(ctx) },
    { variant: 'truncated', auth: { authorization: `Bearer ${half}` }, secret: undefined },
    { variant: 'empty', auth: { authorization: 'Bearer ' }, secret: undefined },
    { variant: 'basic', auth: { authorization: `Basic ${token}` }, secret: token },
    { variant: 'no-scheme', auth: { authorization: token }, secret: token },
  ];
  const out: Rejection[] = [];
  for (const route of privateRoutes) {
    for (const v of variants) {
      const ex =
        route.method === 'GET'
          ? await ctx.http.get(route.path, { auth: v.auth })
          : await ctx.http.post(route.path, chatBody(ctx, model, { ...(await bound(ctx, 4)) }), { auth: v.auth });
      out.push({ route, variant: v.variant, sentSecret: v.secret, ex });
    }
  }
  return out;
});

const rejects: CheckDef = {
  name: 'auth-rejects',
  area: 'auth',
  ids: ['AUTH-001', 'AUTH-002', 'AUTH-003', 'AUTH-006', 'AUTH-007'],
  title: 'private routes refuse missing, unknown, malformed and non-Bearer credentials',
  async run(ctx, j) {
    for (const r of await rejections(ctx)) {
      // Spec, Authentication 1: "Authorization: Bearer <ACCESS_TOKEN>".
      const id = r.variant === 'missing' ? r.route.id : r.variant === 'basic' || r.variant === 'no-scheme' ? 'AUTH-007' : 'AUTH-006';
      const ok = r.ex.status >= 400 && r.ex.status < 500;
      j.expect(id, ok, () =>
        evidence(r.ex, `${r.route.method} ${r.route.path} with ${r.variant} credentials answered ${r.ex.status}`, {
          expected: '4xx',
          received: r.ex.status,
        }),
      );
      if (id === 'AUTH-003' && ok && at(r.ex.json, 'choices') !== undefined) {
        j.violated('AUTH-003', evidence(r.ex, 'a rejected request still carried a completion', { received: describeResponse(r.ex) }));
      }
    }
  },
};

const unauthorizedShape: CheckDef = {
  name: 'auth-401-shape',
  area: 'auth',
  ids: ['AUTH-008', 'AUTH-009', 'AUTH-010', 'AUTH-011'],
  title: 'authentication failures answer 401 as OpenAI does (invalid_request_error, invalid_api_key for an unknown token) with WWW-Authenticate Bearer and never echo the token',
  async run(ctx, j) {
    const list = await rejections(ctx);
    for (const r of list) {
      // A request that was let through is AUTH-001..007's failure; AUTH-008 judges how refusals are sent.
      if (r.ex.status < 400) continue;
      j.expect('AUTH-008', r.ex.status === 401, () =>
        evidence(r.ex, `${r.route.path} with ${r.variant} credentials answered ${r.ex.status}, not 401`, { expected: 401, received: r.ex.status }),
      );
      if (r.ex.status !== 401) continue;
      const e = errorOf(r.ex);
      // DECISIONS.md D-HTTP-04, as OpenAI answers: every 401 has type invalid_request_error; a token the
      // server did not issue gets code invalid_api_key (the code of a missing or malformed one is not graded).
      const wantsCode = r.variant === 'unknown' || r.variant === 'truncated';
      const typeOk = errorMemberIs(r.ex, 'type', ['invalid_request_error']);
      const codeOk = !wantsCode || errorMemberIs(r.ex, 'code', ['invalid_api_key']);
      j.expect('AUTH-009', typeOk && codeOk, () =>
        evidence(r.ex, `401 for ${r.variant} credentials does not read as OpenAI's (type invalid_request_error${wantsCode ? ', code invalid_api_key' : ''})`, {
          expected: wantsCode ? { type: 'invalid_request_error', code: 'invalid_api_key' } : { type: 'invalid_request_error' },
          received: { type: e?.['type'], code: e?.['code'] },
          pointer: '/error',
        }),
      );
      const www = r.ex.headers['www-authenticate'];
      j.expect('AUTH-010', www !== undefined && /^bearer\b/i.test(www.trim()), () =>
        evidence(r.ex, '401 without a WWW-Authenticate: Bearer header', { expected: 'Bearer ...', received: www }),
      );
    }
    // Spec, Authentication 4: "The token is a secret. It is not to be placed in ... logs".
    const me = await sharedMe(ctx);
    const exchanges: { ex: HttpExchange; secret: string | undefined }[] = [
      ...list.map((r) => ({ ex: r.ex, secret: r.sentSecret })),
      { ex: me, secret: ctx.http.tokenForProbe() },
    ];
    for (const { ex, secret } of exchanges) {
      if (secret === undefined) continue;
      const haystack = `${ex.text}\n${Object.entries(ex.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}`;
      j.expect('AUTH-011', !haystack.includes(secret), () => evidence(ex, 'the response echoes the bearer token it was sent', { received: '(token found in the response; not shown)' }));
    }
    j.skipRest('no 401 response to inspect (AUTH-008 judges the status)');
  },
};

const publicModels: CheckDef = {
  name: 'auth-models-public',
  area: 'auth',
  ids: ['AUTH-004'],
  title: 'GET /v1/models answers the model list without credentials',
  async run(ctx, j) {
    // Spec, Authentication 3: "Public route: /v1/models."
    const ex = await modelList(ctx);
    j.expect('AUTH-004', ex.status === 200 && Array.isArray(at(ex.json, 'data')), () =>
      evidence(ex, 'GET /v1/models without credentials did not answer 200 with a list', { expected: 200, received: describeResponse(ex) }),
    );
  },
};

const validToken: CheckDef = {
  name: 'auth-valid-token',
  area: 'auth',
  ids: ['AUTH-005'],
  title: 'a valid bearer token is accepted on /v1/me',
  async run(ctx, j) {
    const ex = await sharedMe(ctx);
    j.expect('AUTH-005', ex.status === 200, () => evidence(ex, 'GET /v1/me with the account token was refused', { expected: 200, received: describeResponse(ex) }));
  },
};

const ownAccount: CheckDef = {
  name: 'auth-own-account',
  area: 'auth',
  ids: ['AUTH-012'],
  title: 'tokens of two accounts see two different users',
  async run(ctx, j) {
    const other = ctx.http.secondToken;
    if (other === undefined) {
      j.skip('AUTH-012', 'needs a second account token (available against the bundled mock)');
      return;
    }
    const a = await sharedMe(ctx);
    const b = await ctx.http.get('/v1/me', { auth: { authorization: `Bearer ${other}` } });
    const ida = at(a.json, 'id');
    const idb = at(b.json, 'id');
    j.expect('AUTH-012', a.status === 200 && b.status === 200 && typeof ida === 'string' && ida !== idb, () =>
      evidence(b, 'two accounts got the same /v1/me id (or one was refused)', { expected: 'different ids', received: [ida, idb] }),
    );
  },
};

const unknownRoute: CheckDef = {
  name: 'auth-unknown-route',
  area: 'auth',
  ids: ['AUTH-013'],
  title: 'an unknown route answers 404 with and without credentials',
  async run(ctx, j) {
    const withToken = await ctx.http.get('/v1/does-not-exist');
    const without = await ctx.http.get('/v1/does-not-exist', { auth: 'none' });
    if (withToken.status === 404 && without.status === 404) j.pass('AUTH-013');
    else j.informational('AUTH-013', `GET /v1/does-not-exist answered ${withToken.status} with a token and ${without.status} without`);
  },
};

export const authChecks: CheckDef[] = [rejects, unauthorizedShape, publicModels, validToken, ownAccount, unknownRoute];
