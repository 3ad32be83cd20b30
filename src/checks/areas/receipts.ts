import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { bound, receiptKeys } from '../requests/capability-probes.ts';
import { requirementIdRange } from '../context/check-types.ts';
import type { HttpExchange, Auth } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import { evidence, at, isRecord, describeResponse } from '../kernel/evidence.ts';
import { basicCompletion, chatBody, modelUnderTest, getMe, unknownModelId } from '../requests/common-requests.ts';
import { decodeKeyref, digestOf, verifyChain, validateReceiptSchema, type ChainVerifyResult, type Finding } from '../../receipts/index.ts';
import { requirementIdsOfFinding } from '../registry/receipt-finding-ids.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

const NOT_ADVERTISED = 'the server does not advertise the receipts extension (GET /v1/receipts/keys answered 404)';

// HTTP profile: "GET /v1/receipts/keys (public) ... a 404 there means 'not advertised'" (the same exchange as the receipts capability probe).
const keysExchange = receiptKeys;

/**
 * Only a positive answer advertises the extension: a 200 from the public keys endpoint. A 404 says
 * "not offered"; any other status (a 401 from a server whose every route wants a token, a 5xx)
 * says nothing either way, and the receipts capability row calls it undecided: the checks skip,
 * saying the same, rather than read a refusal as a chain (issue 43: a 401 here once passed 62
 * receipt requirements on a server without receipts).
 */
async function notAdvertised(ctx: CheckContext): Promise<string | undefined> {
  const status = (await keysExchange(ctx)).status;
  if (status === 200) return undefined;
  if (status === 404) return NOT_ADVERTISED;
  return `the receipts extension is not advertised: GET /v1/receipts/keys answered ${status}, and only a 200 keys document advertises it (the receipts capability is undecided)`;
}

async function trustedKeys(ctx: CheckContext): Promise<string[]> {
  const keys = at((await keysExchange(ctx)).json, 'keys');
  // D-RCPT-21: the verifier refuses a key that is not a valid key; a published one is then simply not trusted (ISSUER_UNTRUSTED).
  return Array.isArray(keys) ? keys.map((k) => at(k, 'kid')).filter((k): k is string => typeof k === 'string' && decodeKeyref(k).ok) : [];
}

function fetchChain(ctx: CheckContext, auth: Auth = 'token'): Promise<HttpExchange> {
  return ctx.http.get('/v1/receipts', { auth });
}

function chainData(ex: HttpExchange): unknown[] {
  const data = at(ex.json, 'data');
  return Array.isArray(data) ? data : [];
}

interface Served {
  /** Whose chain: the run's account, or the capped account's (denials). */
  label: string;
  ex: HttpExchange;
  data: unknown[];
  level: 1 | 2 | 3;
  result: ChainVerifyResult;
}

function levelOf(data: readonly unknown[]): 1 | 2 | 3 {
  if (data.some((r) => at(r, 'context') !== undefined)) return 3;
  if (data.some((r) => at(r, 'act', 'actor_sig') !== undefined)) return 2;
  return 1;
}

/**
 * D-RCPT-08: IAT_FUTURE compares iat with the verifier's clock. The harness's clock is the run's:
 * the one its waits advance (a fake one in the meta-suite, whose mock stamps iat by it too).
 */
function clockSeconds(ctx: CheckContext): number {
  return Math.floor(ctx.now() / 1000);
}

async function verifyServed(ctx: CheckContext, label: string, auth: Auth): Promise<Served> {
  const ex = await fetchChain(ctx, auth);
  const data = chainData(ex);
  const level = levelOf(data);
  const head = at(ex.json, 'head');
  const grantId = at(ex.json, 'mandate', 'grant_id');
  const result = verifyChain(data, {
    level,
    now: clockSeconds(ctx),
    trustedIssuers: await trustedKeys(ctx),
    ...(typeof head === 'string' ? { expectedHead: head } : {}),
    ...(typeof grantId === 'string' ? { grantId } : {}),
  });
  return { label, ex, data, level, result };
}

/**
 * Every chain the harness can see, verified once against the published keys and heads: the
 * run account's after two completions (so later Receipts link to earlier ones) and, with
 * `--include limits`, the capped account's after one refused request (a denial Receipt).
 */
const servedChains = sharedRequest('receipts:served', async (ctx: CheckContext): Promise<Served[]> => {
  await basicCompletion(ctx);
  await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { ...(await bound(ctx, 4)), seed: ctx.seed + 1 }));
  const out = [await verifyServed(ctx, 'account chain', 'token')];
  const capped = ctx.limitTokens.capped;
  if (ctx.includeLimits && capped !== undefined) {
    const auth: Auth = { authorization: `Bearer ${capped}` };
    await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { ...(await bound(ctx, 1)) }), { auth });
    out.push(await verifyServed(ctx, 'capped account chain', auth));
  }
  return out;
});

async function servedChain(ctx: CheckContext): Promise<Served> {
  return (await servedChains(ctx))[0] as Served;
}

function findingFailure(s: Served, f: Finding): Parameters<Judge['violated']>[1] {
  return evidence(s.ex, `${s.label}: ${f.code} in data[${f.index ?? '-'}]: ${f.detail}`, { ...(f.pointer === undefined ? {} : { pointer: `/data/${f.index ?? 0}${f.pointer}` }) });
}

/** Judges the verifier's findings on the IDs a check owns; owned IDs without findings pass. */
function judgeFindings(j: Judge, chains: readonly Served[], owned: readonly string[]): void {
  for (const s of chains) {
    for (const f of s.result.errors) for (const id of requirementIdsOfFinding(f)) if (owned.includes(id)) j.violated(id, findingFailure(s, f));
    for (const f of s.result.warnings) for (const id of requirementIdsOfFinding(f)) if (owned.includes(id)) j.informational(id, `${s.label}: ${f.code} in data[${f.index ?? '-'}]: ${f.detail}`);
  }
  for (const id of owned) if (!j.has(id)) j.pass(id);
}

/**
 * Skips every ID when the served list leaves out older Receipts ("omitted": the server keeps only its
 * most recent ones, docs/mock-receipts.md, Memory): such a list cannot be verified from its first
 * Receipt, and the chain is then verified from the server's ledger instead. Returns whether to go on.
 */
async function requireWholeChain(ctx: CheckContext, j: Judge): Promise<boolean> {
  // An empty chain decides nothing: verifying no Receipt finds no fault, so a list that was refused,
  // or that holds no Receipt after the run's completions, leaves the chain's requirements to its root cause.
  const unserved = (await servedChains(ctx)).find((s) => s.ex.status !== 200 || !Array.isArray(at(s.ex.json, 'data')));
  if (unserved !== undefined) {
    j.blockRest(evidence(unserved.ex, `${unserved.label}: GET /v1/receipts answered ${unserved.ex.status} without a list of Receipts, so there is no chain to verify (RCPT-HTTP-004)`));
    return false;
  }
  const empty = (await servedChains(ctx)).find((s) => s.data.length === 0);
  if (empty !== undefined) {
    j.blockRest(evidence(empty.ex, `${empty.label}: GET /v1/receipts lists no Receipt after the run's completions, so there is no chain to verify (RCPT-HTTP-005, RCPT-HTTP-008)`));
    return false;
  }
  const cut = (await servedChains(ctx)).find((s) => typeof at(s.ex.json, 'omitted') === 'number' && (at(s.ex.json, 'omitted') as number) > 0);
  if (cut === undefined) return true;
  j.skipRest(`${cut.label}: GET /v1/receipts omits ${String(at(cut.ex.json, 'omitted'))} older Receipts (beyond the server's retention window), so the listed ones cannot be verified from the chain's first Receipt`);
  return false;
}

/** Skips every ID when the extension is not advertised; returns whether the check should go on. */
async function requireExtension(ctx: CheckContext, j: Judge): Promise<boolean> {
  const why = await notAdvertised(ctx);
  if (why === undefined) return true;
  j.skipRest(why);
  return false;
}

const discovery: CheckDef = {
  name: 'receipts-discovery',
  area: 'receipts',
  ids: ['RCPT-HTTP-001', 'RCPT-HTTP-002'],
  title: 'GET /v1/receipts/keys answers 200 with the issuer keys document or 404 when receipts are not offered',
  async run(ctx, j) {
    const ex = await keysExchange(ctx);
    if (ex.status === 404) {
      j.pass('RCPT-HTTP-001');
      j.skip('RCPT-HTTP-002', NOT_ADVERTISED);
      return;
    }
    if (ex.status === 200) j.pass('RCPT-HTTP-001');
    else j.informational('RCPT-HTTP-001', `GET /v1/receipts/keys answered ${ex.status} (neither 200 nor 404)`);
    const keys = at(ex.json, 'keys');
    const ok =
      at(ex.json, 'object') === 'receipt_keys' &&
      typeof at(ex.json, 'service_id') === 'string' &&
      Array.isArray(keys) &&
      keys.length > 0 &&
      keys.every((k) => typeof at(k, 'kid') === 'string' && /^did:key:z6Mk/.test(at(k, 'kid') as string) && at(k, 'alg') === 'Ed25519' && at(k, 'use') === 'issuer');
    j.expect('RCPT-HTTP-002', ok, () => evidence(ex, 'the keys document does not have the profile’s shape', { expected: '{"object":"receipt_keys","service_id","keys":[{kid,alg:"Ed25519",use:"issuer"}]}', received: describeResponse(ex) }));
  },
};

const listAuth: CheckDef = {
  name: 'receipts-list-auth',
  area: 'receipts',
  ids: ['RCPT-HTTP-003'],
  title: 'GET /v1/receipts without a token answers 401',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const ex = await fetchChain(ctx, 'none');
    j.expect('RCPT-HTTP-003', ex.status === 401, () => evidence(ex, 'the receipt list answered without credentials', { expected: 401, received: ex.status }));
  },
};

const listShape: CheckDef = {
  name: 'receipts-list-shape',
  area: 'receipts',
  ids: ['RCPT-HTTP-004'],
  title: 'GET /v1/receipts answers {"object":"list","mandate":{id,grant_id,actor},"head","data":[...]}',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const { ex } = await servedChain(ctx);
    const m = at(ex.json, 'mandate');
    const head = at(ex.json, 'head');
    const ok =
      ex.status === 200 &&
      at(ex.json, 'object') === 'list' &&
      isRecord(m) &&
      ['id', 'grant_id', 'actor'].every((k) => typeof m[k] === 'string') &&
      (head === null || (typeof head === 'string' && /^sha256:[0-9a-f]{64}$/.test(head))) &&
      Array.isArray(at(ex.json, 'data'));
    j.expect('RCPT-HTTP-004', ok, () => evidence(ex, 'the receipt list does not have the profile’s shape', { received: describeResponse(ex) }));
  },
};

const schema: CheckDef = {
  name: 'receipts-schema',
  area: 'receipts',
  ids: ['RCPT-HTTP-005', ...requirementIdRange('RCPT-SCHEMA', 1, 41)],
  title: 'every served Receipt passes the Receipt schema and its rules',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const first = await servedChain(ctx);
    if (first.ex.status === 200 && first.data.length === 0) j.violated('RCPT-HTTP-005', evidence(first.ex, 'the chain is empty after a completion', { expected: 'at least a gate and an outcome' }));
    if (!(await requireWholeChain(ctx, j))) return;
    const chains = await servedChains(ctx);
    for (const s of chains) {
      s.data.forEach((r, i) => {
        const v = validateReceiptSchema(r);
        if (!v.ok) j.violated('RCPT-HTTP-005', evidence(s.ex, `${s.label}: data[${i}] fails receipt.schema.json: ${v.errors[0]?.message ?? ''}`, { pointer: `/data/${i}${v.errors[0]?.pointer ?? ''}` }));
      });
    }
    const level = Math.max(...chains.map((c) => c.level));
    if (level < 3) j.skip('RCPT-SCHEMA-038', `the served chains are at conformance level ${level} (no context members)`);
    if (level < 2) j.skip('RCPT-SCHEMA-039', 'the served chains are at conformance level 1 (no actor_sig)');
    judgeFindings(j, chains, j.ids.filter((id) => id !== 'RCPT-HTTP-005'));
    if (!j.has('RCPT-HTTP-005')) j.pass('RCPT-HTTP-005');
  },
};

/** A copy with every object's members in reverse order: same JSON value, other bytes. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (!isRecord(v)) return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reordered(x)]));
}

const signatures: CheckDef = {
  name: 'receipts-signatures',
  area: 'receipts',
  ids: requirementIdRange('RCPT-SIG', 1, 9),
  title: 'served Receipts are signed by a published issuer key over JCS bytes with canonical encodings',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    if (!(await requireWholeChain(ctx, j))) return;
    const s = await servedChain(ctx);
    const hasActorSig = s.data.some((r) => at(r, 'act', 'actor_sig') !== undefined);
    if (!hasActorSig) {
      j.skip('RCPT-SIG-006', 'no served Receipt carries actor_sig');
      j.skip('RCPT-SIG-009', 'no served Receipt carries actor_sig');
    } else {
      const withoutGrant = verifyChain(s.data, { level: s.level, now: clockSeconds(ctx), trustedIssuers: await trustedKeys(ctx) });
      const reported = [...withoutGrant.errors, ...withoutGrant.warnings].some((f) => f.code === 'GRANT_ID_UNAVAILABLE');
      j.expect('RCPT-SIG-009', reported, () => evidence(s.ex, 'verifying actor_sig without the grant id did not report GRANT_ID_UNAVAILABLE'));
    }
    if (!s.data.some((r) => at(r, 'approval') !== undefined)) j.skip('RCPT-SIG-007', 'no served Receipt carries an approval');
    // D-RCPT: digests and signatures are over JCS bytes, so member order and whitespace must not matter.
    const again = verifyChain(s.data.map(reordered), { level: s.level, now: clockSeconds(ctx), trustedIssuers: await trustedKeys(ctx) });
    const first = verifyChain(s.data, { level: s.level, now: clockSeconds(ctx), trustedIssuers: await trustedKeys(ctx) });
    j.expect('RCPT-SIG-008', again.valid === first.valid && again.head === first.head, () =>
      evidence(s.ex, 'reordering members changed the verification result', { expected: { valid: first.valid, head: first.head }, received: { valid: again.valid, head: again.head } }),
    );
    judgeFindings(j, await servedChains(ctx), j.ids);
  },
};

const chain: CheckDef = {
  name: 'receipts-chain',
  area: 'receipts',
  ids: ['RCPT-HTTP-006', ...requirementIdRange('RCPT-CHAIN', 1, 9)],
  title: 'the served chain verifies as one hash-linked chain under the published keys and its head is the last Receipt',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    if (!(await requireWholeChain(ctx, j))) return;
    const chains = await servedChains(ctx);
    for (const s of chains) {
      const head = at(s.ex.json, 'head');
      const headOk = s.data.length === 0 ? head === null : head === s.result.head;
      j.expect('RCPT-HTTP-006', s.result.valid && headOk, () =>
        evidence(s.ex, `${s.label}: ${s.result.valid ? 'head is not the digest of the last Receipt' : `the chain does not verify: ${s.result.errors.slice(0, 3).map((f) => `${f.code}@${f.index ?? '-'}`).join(', ')}`}`, {
          expected: { valid: true, head: s.result.head },
          received: { valid: s.result.valid, head },
        }),
      );
    }
    judgeFindings(j, chains, j.ids.filter((id) => id !== 'RCPT-HTTP-006'));
  },
};

const pairing: CheckDef = {
  name: 'receipts-pairing',
  area: 'receipts',
  ids: requirementIdRange('RCPT-PAIR', 1, 9),
  title: 'every served outcome points at an earlier allowed gate of the same chain that agrees with it',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    if (!(await requireWholeChain(ctx, j))) return;
    const chains = await servedChains(ctx);
    if (!chains.some((s) => s.data.some((r) => at(r, 'act', 'verb') === 'stop.approve'))) j.skip('RCPT-PAIR-008', 'no served stop.approve Receipt');
    judgeFindings(j, chains, j.ids);
  },
};

function usd(amount: unknown): number | undefined {
  return typeof amount === 'string' && /^\d+(\.\d+)?$/.test(amount) ? Number(amount) : undefined;
}

const completion: CheckDef = {
  name: 'receipts-completion',
  area: 'receipts',
  ids: ['RCPT-HTTP-007', 'RCPT-HTTP-008', 'RCPT-HTTP-009', 'RCPT-HTTP-010'],
  title: 'each completion appends one allowed gate named by x-receipt-gate and one outcome with the answering model and the spend it cost',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const model = await modelUnderTest(ctx);
    const limit = await bound(ctx, 8);
    for (const stream of [false, true]) {
      const before = chainData(await fetchChain(ctx));
      const meBefore = at((await getMe(ctx)).json, 'usage', 'spend_usd');
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { ...limit, ...(stream ? { stream: true } : {}) }));
      const meAfter = at((await getMe(ctx)).json, 'usage', 'spend_usd');
      const afterEx = await fetchChain(ctx);
      const added = chainData(afterEx).slice(before.length);
      const label = stream ? 'streamed completion' : 'completion';
      const gate = added[0];
      const outcome = added[1];
      const gateDigest = gate === undefined ? undefined : digestOf(gate);
      const twoOk =
        ex.status === 200 &&
        added.length === 2 &&
        at(gate, 'decision', 'result') === 'allowed' &&
        at(gate, 'outcome') === undefined &&
        at(outcome, 'outcome') !== undefined &&
        at(outcome, 'gate') === gateDigest;
      j.expect('RCPT-HTTP-008', twoOk, () =>
        evidence(afterEx, `the ${label} did not append exactly an allowed gate and its outcome`, { expected: 2, received: added.map((r) => ({ decision: at(r, 'decision', 'result'), outcome: at(r, 'outcome', 'status'), gate: at(r, 'gate') })) }),
      );
      const header = ex.headers['x-receipt-gate'];
      j.expect('RCPT-HTTP-007', header !== undefined && header === gateDigest, () => evidence(ex, `x-receipt-gate of the ${label} does not name its gate Receipt`, { expected: gateDigest, received: header }));
      if (!twoOk) continue;
      if (stream) continue;
      const resolvedModel = at(outcome, 'outcome', 'resolved', 'model');
      if (typeof resolvedModel !== 'string') j.skip('RCPT-HTTP-009', 'the outcome records no resolved model (RCPT-SCHEMA-034)');
      else j.expect('RCPT-HTTP-009', resolvedModel === at(ex.json, 'model'), () => evidence(afterEx, 'outcome resolved.model differs from the response model', { expected: at(ex.json, 'model'), received: resolvedModel }));
      const cost = usd(at(outcome, 'cost', 'amount'));
      const unit = at(outcome, 'cost', 'unit');
      if (typeof meBefore === 'number' && typeof meAfter === 'number' && cost !== undefined && unit === 'USD') {
        const spent = meAfter - meBefore;
        j.expect('RCPT-HTTP-010', Math.abs(cost - spent) <= 1e-6, () => evidence(afterEx, 'the outcome cost differs from the spend the request added', { expected: spent, received: at(outcome, 'cost') }));
      } else j.skip('RCPT-HTTP-010', 'cost is not a USD amount or /v1/me spend is unreadable');
    }
    j.skipRest('no gate and outcome pair to inspect (RCPT-HTTP-008)');
  },
};

const isolation: CheckDef = {
  name: 'receipts-isolation',
  area: 'receipts',
  ids: ['RCPT-HTTP-012'],
  title: 'two accounts see two different mandates and none of each other’s Receipts',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const other = ctx.http.secondToken;
    if (other === undefined) {
      j.skip('RCPT-HTTP-012', 'needs a second account token (available against the bundled mock)');
      return;
    }
    await basicCompletion(ctx);
    const a = await fetchChain(ctx);
    const b = await fetchChain(ctx, { authorization: `Bearer ${other}` });
    const mine = new Set(chainData(a).map((r) => digestOf(r)));
    const shared = chainData(b).filter((r) => mine.has(digestOf(r))).length;
    const ma = at(a.json, 'mandate', 'id');
    j.expect('RCPT-HTTP-012', b.status === 200 && ma !== at(b.json, 'mandate', 'id') && shared === 0, () =>
      evidence(b, 'another account’s receipt list shares the mandate or Receipts', { expected: 'a different mandate, no shared Receipts', received: { mandate: at(b.json, 'mandate', 'id'), shared } }),
    );
  },
};

const rejected: CheckDef = {
  name: 'receipts-rejected',
  area: 'receipts',
  ids: ['RCPT-HTTP-013'],
  title: 'requests answered 4xx append no allowed gate and no outcome',
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const model = await modelUnderTest(ctx);
    const before = chainData(await fetchChain(ctx));
    const bad = await ctx.http.post(CHAT_COMPLETIONS_PATH, { model, messages: [] });
    const unknown = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, unknownModelId(ctx)));
    const afterEx = await fetchChain(ctx);
    const added = chainData(afterEx).slice(before.length);
    if (bad.status < 400 || unknown.status < 400) {
      j.skip('RCPT-HTTP-013', 'the probes were not rejected (judged by the CHAT and MODELS checks)');
      return;
    }
    const allowed = added.filter((r) => at(r, 'decision', 'result') === 'allowed' || at(r, 'outcome') !== undefined);
    j.expect('RCPT-HTTP-013', allowed.length === 0, () => evidence(afterEx, 'rejected requests appended allowed gates or outcomes', { expected: 0, received: allowed.length }));
  },
};

const denial: CheckDef = {
  name: 'receipts-denial',
  area: 'receipts',
  ids: ['RCPT-HTTP-011'],
  title: 'a request refused for the monthly spend cap appends a PROTO_DENY_POLICY X_BUDGET_MONTHLY_CAP gate with prose and no outcome',
  needsLimits: true,
  async run(ctx, j) {
    if (!(await requireExtension(ctx, j))) return;
    const token = ctx.limitTokens.capped;
    if (token === undefined) {
      j.skip('RCPT-HTTP-011', 'needs an account at its monthly spend cap (bundled mock only)');
      return;
    }
    const auth: Auth = { authorization: `Bearer ${token}` };
    const limit = await bound(ctx, 1);
    const before = chainData(await fetchChain(ctx, auth));
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { ...limit }), { auth });
    if (ex.status !== 429) {
      j.skip('RCPT-HTTP-011', `the capped request was not refused (${ex.status}; LIMIT-006 judges that)`);
      return;
    }
    const afterEx = await fetchChain(ctx, auth);
    const all = chainData(afterEx);
    const added = all.slice(before.length);
    const gate = added.find((r) => at(r, 'decision', 'result') === 'denied');
    const d = at(gate, 'decision');
    const gateDigest = gate === undefined ? undefined : digestOf(gate);
    const ok =
      gate !== undefined &&
      at(d, 'reason') === 'PROTO_DENY_POLICY' &&
      at(d, 'subcode') === 'X_BUDGET_MONTHLY_CAP' &&
      typeof at(d, 'prose') === 'string' &&
      !all.some((r) => at(r, 'gate') === gateDigest);
    j.expect('RCPT-HTTP-011', ok, () => evidence(afterEx, 'no well-formed denial gate for the capped request', { expected: { reason: 'PROTO_DENY_POLICY', subcode: 'X_BUDGET_MONTHLY_CAP', prose: 'a string' }, received: d ?? '(no denied gate)' }));
  },
};

export const receiptsChecks: CheckDef[] = [discovery, listAuth, listShape, schema, signatures, chain, pairing, completion, isolation, rejected, denial];
