import type { CoreState, LatencySettings, ModelScheduleEntry, RequestContext } from './context.ts';
import type { FullResponse, HeaderMap, MockRequest, MockResponse } from './types.ts';
import type { ReceiptIssuer } from '../receipt-hooks.ts';
import { AccountRegistry, loadAccountsFile, type AccountsFile, type AccountState } from './accounts.ts';
import { ModelCatalogue, defaultModels, type ModelInfo, type ModelInput } from './models.ts';
import { badRequest, errorResponse, unknownUrl, type ApiError } from './http-errors.ts';
import { applyHttpFaults } from './http-faults.ts';
import { applyBoundsFaults } from './bounds-faults.ts';
import { rewriteChatRequest, rewriteChatResponse } from './chat-faults.ts';
import { applyReasoning, reasoningRefusal } from './reasoning.ts';
import { parseTokensPerChunk } from './pacing.ts';
import { serveItem, serveProtocol } from './protocol-route.ts';
import { newRequestId } from './ids.ts';
import { json } from './json-response.ts';
import { freeze } from './freeze.ts';
import { PrefixCache, type PrefixCacheOptions } from './prefix-cache.ts';
import { ServiceSlots } from './service-slots.ts';
import { meBody, usage } from './account-routes.ts';
import { admin } from './admin-routes.ts';
import { MODEL_ROUTE_PREFIX, modelRoute } from './model-route.ts';
import type { Protocol } from '../../src/protocols/protocol.ts';
import { defaultProtocols, rootPath, type ProtocolList } from '../../src/protocols/registry.ts';
import { MockMetrics, metricsResponse, type MetricsFault } from './metrics-route.ts';
import { TOKENIZE_ROUTE, tokenizeResponse } from './tokenize-route.ts';

export interface CoreOptions {
  /** Fault and legal-mode names applied to every request. */
  faults?: readonly string[];
  ttftMs?: number;
  itlMs?: number;
  jitterMs?: number;
  /** Tokens per content chunk: a number, or a pattern cycled through (e.g. [1, 3, 2]). */
  tokensPerChunk?: number | readonly number[];
  /** Completion length in tokens: exact, or an inclusive [min, max] range (default [16, 48]). */
  completionTokens?: number | readonly [number, number];
  /**
   * A model that talks until the server's default cap (issue 37: a random-weights model served with
   * a 1,024-token default): it never ends on its own, so an answer runs to the request's
   * max_tokens / max_completion_tokens when given (as a real server stops there) and to this cap
   * otherwise, finish_reason "length" either way. A tool call or a JSON object still closes (an
   * engine that constrains decoding ends them). Default off.
   */
  modelCap?: number;
  seed?: number;
  /** Accounts fixture: a file path or the parsed object (default fixtures/accounts.json). */
  accounts?: string | AccountsFile;
  /** Bearer token of the default account (default: IARI_TOKEN, else generated). */
  defaultToken?: string;
  models?: readonly ModelInput[];
  /** Model availability changes over time (relative to start). */
  modelSchedule?: readonly ModelScheduleEntry[];
  receipts?: ReceiptIssuer | null;
  /** A prefix cache in the latency model: cached_tokens in usage, prefill time for uncached tokens. */
  prefixCache?: PrefixCacheOptions;
  /** At most this many requests in service at once; the rest queue and their TTFT grows (default unbounded). */
  capacity?: number;
  /** Enforce RPM/TPM limits (default true). */
  limits?: boolean;
  now?: () => number;
  /** Mock-only faults of GET /metrics (metrics-route.ts): load-side, caught by iari load --server-metrics. */
  metricsFaults?: readonly MetricsFault[];
  /** The APIs served, each at its routes (default: every API iari ships; src/protocols/registry.ts). */
  protocols?: ProtocolList;
}

export interface MockCore {
  handle(req: MockRequest): MockResponse;
  tokens(): { default: string; byAccount: Record<string, string> };
  admin: {
    retireModel(id: string): boolean;
    addModel(model: ModelInput): ModelInfo;
    models(): { available: string[]; retired: string[] };
    /** Stall every response for `ms` from now: nothing is written until it ends. */
    freeze(ms: number): void;
    /** Milliseconds left of the current freeze (0 when not frozen). */
    frozenFor(): number;
  };
  state: CoreState;
}

const EMPTY: ReadonlySet<string> = new Set();

export function createCore(options: CoreOptions, knownFaults: ReadonlySet<string>): MockCore {
  const now = options.now ?? Date.now;
  const unknown = (options.faults ?? []).filter((name) => !knownFaults.has(name));
  if (unknown.length > 0) throw new UnknownFaultError(unknown);
  const tokensPerChunk = parseTokensPerChunk(options.tokensPerChunk ?? 1);
  if (tokensPerChunk === null) throw new RangeError('tokensPerChunk must be a positive integer or a list of them');
  const latency: LatencySettings = {
    ttftMs: options.ttftMs ?? 0,
    itlMs: options.itlMs ?? 0,
    jitterMs: options.jitterMs ?? 0,
    tokensPerChunk,
    completionTokens: options.completionTokens ?? [16, 48],
    modelCap: options.modelCap ?? null,
  };
  if (latency.modelCap !== null && !(Number.isInteger(latency.modelCap) && latency.modelCap >= 1)) throw new RangeError('modelCap must be a positive integer');
  for (const [k, v] of Object.entries({ ttftMs: latency.ttftMs, itlMs: latency.itlMs, jitterMs: latency.jitterMs })) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`${k} must be a non-negative number`);
  }
  const models = new ModelCatalogue(options.models ?? defaultModels);
  const startedAt = now();
  const envToken = process.env['IARI_TOKEN'];
  const state: CoreState = {
    accounts: new AccountRegistry(loadAccountsFile(options.accounts), models, startedAt, options.defaultToken ?? (envToken !== undefined && envToken.length > 0 ? envToken : undefined)),
    models,
    receipts: options.receipts ?? null,
    serverFaults: new Set(options.faults ?? []),
    latency,
    seed: options.seed ?? 0,
    limits: options.limits ?? true,
    now,
    startedAt,
    schedule: [...(options.modelSchedule ?? [])].sort((a, b) => a.atMs - b.atMs),
    requestCounter: 0,
    prefixCache: options.prefixCache === undefined ? null : new PrefixCache(options.prefixCache),
    serviceSlots: options.capacity === undefined ? null : new ServiceSlots(options.capacity),
    frozenUntil: 0,
    roleFlaps: 0,
    abandoned: 0,
    metrics: new MockMetrics(options.metricsFaults ?? []),
    stores: new Map(),
    routes: protocolRoutes(options.protocols ?? defaultProtocols),
    items: (options.protocols ?? defaultProtocols).filter((p) => p.mock?.items !== undefined),
  };
  return {
    handle: (req) => handle(state, req, knownFaults),
    tokens: () => state.accounts.tokens(),
    admin: {
      retireModel: (id) => models.retire(id),
      addModel: (m) => models.add(m),
      models: () => ({ available: models.ids(), retired: models.retiredIds() }),
      freeze: (ms) => freeze(state, ms),
      frozenFor: () => Math.max(0, state.frozenUntil - performance.now()),
    },
    state,
  };
}

export class UnknownFaultError extends Error {
  constructor(readonly names: string[]) {
    super(`unknown fault name(s): ${names.join(', ')}`);
  }
}

function applySchedule(state: CoreState): void {
  if (state.schedule.length === 0) return;
  const elapsed = state.now() - state.startedAt;
  while (state.schedule.length > 0 && (state.schedule[0]?.atMs ?? Infinity) <= elapsed) {
    const entry = state.schedule.shift() as ModelScheduleEntry;
    if (entry.retire !== undefined) state.models.retire(entry.retire);
    if (entry.add !== undefined) state.models.add(entry.add);
  }
}

function activeFaults(state: CoreState, header: string | undefined, known: ReadonlySet<string>): ReadonlySet<string> | string[] {
  if (header === undefined || header.trim() === '') return state.serverFaults.size === 0 ? EMPTY : state.serverFaults;
  const names = header.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) return unknown;
  return new Set([...state.serverFaults, ...names]);
}

/** HTTP profile: "Every response carries `x-request-id: req_<24+ hex>`". */
function withRequestId(res: MockResponse, faults: ReadonlySet<string>): MockResponse {
  if (faults.has('no-request-id')) return res;
  res.headers['x-request-id'] = faults.has('request-id-malformed') ? String(res.requestId.length * 1000 + 7) : res.requestId;
  return res;
}

function bearer(req: MockRequest, f: ReadonlySet<string>): string | null {
  const h = req.headers['authorization'];
  if (h === undefined) return null;
  // Fault auth-any-scheme: "Basic <token>" and a bare token are read like "Bearer <token>".
  const m = (f.has('auth-any-scheme') ? /^(?:\S+[ ]+)?(\S+)\s*$/ : /^Bearer[ ]+(\S+)\s*$/i).exec(h);
  return m?.[1] ?? '';
}

type AuthResult = { ok: true; account: AccountState } | { ok: false; response: FullResponse };

const authResponse = (auth: AuthResult): FullResponse | null => (auth.ok ? null : auth.response);

function authenticate(state: CoreState, req: MockRequest, ctx: RequestContext, publicByFault: boolean): AuthResult {
  const f = ctx.faults;
  const token = bearer(req, f);
  if (token === null && publicByFault) return { ok: true, account: state.accounts.default };
  if (token !== null && token.length > 0) {
    const account = state.accounts.authenticate(token);
    if (account !== undefined) return { ok: true, account };
    if (f.has('auth-any-token')) return { ok: true, account: state.accounts.default };
  }
  if (f.has('auth-401-as-403')) {
    return { ok: false, response: errorResponse({ status: 403, type: 'invalid_request_error', message: 'Forbidden.', param: null, code: 'forbidden' }, ctx.requestId, f) };
  }
  // HTTP profile D-HTTP-04, as OpenAI answers: 401, type invalid_request_error, code invalid_api_key for a
  // token the server did not issue (null when none was sent), header WWW-Authenticate: Bearer.
  const error: ApiError = {
    status: 401,
    type: 'invalid_request_error',
    message: token === null ? "You didn't provide an API key. Send it in the Authorization header as \"Bearer <token>\"." : 'Incorrect API key provided.',
    param: null,
    code: token === null ? null : 'invalid_api_key',
  };
  const headers: HeaderMap = f.has('auth-no-www-authenticate') ? {} : { 'www-authenticate': 'Bearer realm="iari"' };
  return { ok: false, response: errorResponse(error, ctx.requestId, f, headers) };
}

/** The interface's own routes; the APIs' come from their protocols. */
const ROUTES: Record<string, string> = {
  '/v1/models': 'GET',
  '/v1/me': 'GET',
  '/v1/me/usage': 'GET',
  '/v1/receipts': 'GET',
  '/v1/receipts/keys': 'GET',
  [TOKENIZE_ROUTE]: 'POST',
};

/** Every API route (its whole path) with its method and the protocol that serves it. */
function protocolRoutes(list: ProtocolList): ReadonlyMap<string, { method: string; protocol: Protocol }> {
  return new Map(list.flatMap((p) => p.routes.map((r) => [rootPath(r), { method: r.method, protocol: p }] as const)));
}

/** The stateful API and record a path names (`/v1/responses/{id}`), if any. */
function itemOf(state: CoreState, path: string): { protocol: Protocol; id: string } | undefined {
  for (const protocol of state.items) {
    const prefix = `${rootPath({ path: protocol.mock?.items?.prefix ?? '' })}/`;
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    if (rest === '' || rest.includes('/')) return undefined;
    try {
      return { protocol, id: decodeURIComponent(rest) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function handle(state: CoreState, req: MockRequest, known: ReadonlySet<string>): MockResponse {
  const requestId = newRequestId();
  const faults = activeFaults(state, req.headers['x-iari-fault'], known);
  if (Array.isArray(faults)) {
    return withRequestId(errorResponse(badRequest('x-iari-fault', `Unknown fault name(s): ${faults.join(', ')}. See GET /_iari/faults.`, 'fault_unknown'), requestId, EMPTY), EMPTY);
  }
  applySchedule(state);
  if (req.path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) return metricsResponse(state.metrics, state.models.ids()[0] ?? 'mock', requestId, faults);
  const ctx: RequestContext = { requestId, faults, account: null };
  const refusedReasoning = reasoningRefusal(req, faults);
  const asUnderstood = refusedReasoning ?? rewriteChatRequest(req, faults);
  const refusal = (r: { status: 400 | 500; param: string | null; message: string }): ApiError =>
    r.status === 500 ? { status: 500, type: 'server_error', message: r.message, param: null, code: null } : badRequest(r.param, r.message);
  // The chat wire's faults rewrite chat's answers only: another API's stream has its own (its protocol's mock side).
  const chatWire = (state.routes.get(req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path)?.protocol.name ?? 'chat-completions') === 'chat-completions';
  const rewrite = (res: MockResponse): MockResponse => (chatWire ? rewriteChatResponse(res, faults) : res);
  const routed = 'status' in asUnderstood ? errorResponse(refusal(asUnderstood), requestId, faults) : applyReasoning(asUnderstood, rewrite(route(state, asUnderstood, ctx)), faults);
  return withRequestId(applyBoundsFaults(req, faults, applyHttpFaults(state, req, ctx, routed)), faults);
}

function route(state: CoreState, req: MockRequest, ctx: RequestContext): MockResponse {
  const f = ctx.faults;
  const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
  if (path.startsWith('/_iari/')) return admin(state, req, ctx, path);
  // Compat (OpenAI RetrieveModel): GET /v1/models/{model}; public like the list (profile D-HTTP-44).
  if (path.startsWith(MODEL_ROUTE_PREFIX)) return modelRoute(state, req, ctx, path, () => authResponse(authenticate(state, req, ctx, false)));
  // A stateful API's records (GET and DELETE /v1/responses/{id}), authenticated like its route.
  const item = itemOf(state, path);
  if (item !== undefined) {
    const auth = authenticate(state, req, ctx, false);
    if (!auth.ok) return auth.response;
    ctx.account = auth.account;
    return serveItem(state, item.protocol, req, ctx, auth.account, item.id);
  }
  const api = state.routes.get(path);
  const method = api?.method ?? ROUTES[path];
  if (method === undefined) {
    return errorResponse(unknownUrl(req.method, path), ctx.requestId, f);
  }
  if (req.method !== method && !(req.method === 'HEAD' && method === 'GET')) {
    return errorResponse({ status: 405, type: 'invalid_request_error', message: `Method ${req.method} is not allowed on ${path}; use ${method}.`, param: null, code: 'method_not_allowed' }, ctx.requestId, f, { allow: method });
  }
  switch (path) {
    case '/v1/models': {
      // Spec, Authentication: "Public route: /v1/models."
      if (f.has('auth-models-private')) {
        const auth = authenticate(state, req, ctx, false);
        if (!auth.ok) return auth.response;
      }
      return json(200, state.models.listBody(f), ctx.requestId);
    }
    case '/v1/receipts/keys':
      if (state.receipts === null) return notAdvertised(ctx);
      // HTTP profile: "a 404 there means 'not advertised'"; advertised keys answer 200 (fault: 203).
      return json(f.has('receipt-keys-status-203') ? 203 : 200, state.receipts.keys(f), ctx.requestId);
    default:
      break;
  }
  // Spec, Authentication: "Authenticated routes: /v1/me, /v1/me/usage, /v1/chat/completions." (and every API route).
  const publicByFault = (path.startsWith('/v1/me') && f.has('auth-me-public')) || (api !== undefined && f.has('auth-chat-public')) || (path === '/v1/receipts' && f.has('receipt-list-public'));
  const auth = authenticate(state, req, ctx, publicByFault);
  if (!auth.ok) return auth.response;
  const account = auth.account;
  ctx.account = account;
  if (api !== undefined) return serveProtocol(state, api.protocol, req, ctx, account);
  switch (path) {
    case '/v1/me':
      return json(200, meBody(state, account, f), ctx.requestId);
    case '/v1/me/usage':
      return usage(state, req, ctx, account);
    case TOKENIZE_ROUTE:
      return tokenizeResponse(req, ctx);
    case '/v1/receipts':
      if (state.receipts === null) return notAdvertised(ctx);
      // Served from the issuer's stored JSON text when it keeps one: no parse and re-serialisation per Receipt.
      return json(200, state.receipts.chainJson?.(account.fixture.id) ?? { object: 'list', ...state.receipts.chain(account.fixture.id) }, ctx.requestId);
    default:
      return errorResponse(unknownUrl(req.method, path), ctx.requestId, f);
  }
}

function notAdvertised(ctx: RequestContext): FullResponse {
  // D-HTTP-28: a server without the extension answers its routes as unknown URLs.
  return errorResponse({ status: 404, type: 'invalid_request_error', message: 'Receipts are not enabled on this server.', param: null, code: 'unknown_url' }, ctx.requestId, ctx.faults);
}
