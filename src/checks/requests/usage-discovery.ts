import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { at, isInt } from '../kernel/evidence.ts';
import { chatBody, modelUnderTest } from '../requests/common-requests.ts';
import { counterKinds, discoverShape, describeShape, membersOfDay, readRows, type DaysContract, type DeltaProbe, type UsageDiscovery, type UsageRow, type UsageShape } from '../wire/usage-shape.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

export type { UsageDiscovery } from '../wire/usage-shape.ts';

/**
 * Finds its footing on a server's `GET /v1/me/usage` once per run: the request that answers rows,
 * their shape (usage-shape.ts) confirmed by the delta of one small completion, and what `days`
 * does. Seed §GET /v1/me/usage: "Query parameter: days. Type, default, bounds and allowed values:
 * not shown"; §Errors: "cross-check account and usage endpoints after a small request".
 */

export type UsageFooting = { ok: true; discovery: UsageDiscovery } | { ok: false; reason: string; exchange?: HttpExchange };

export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function spanDays(rows: readonly UsageRow[]): number {
  if (rows.length === 0) return 0;
  const ts = rows.map((r) => Date.parse(`${r.date}T00:00:00Z`));
  return Math.round((Math.max(...ts) - Math.min(...ts)) / 86_400_000) + 1;
}

/** GET /v1/me/usage without `days`, once per run (USAGE-002..009 judge the same answer). */
export const usageDefault = sharedRequest('usage:default', (ctx: CheckContext): Promise<HttpExchange> => ctx.http.get('/v1/me/usage'));

/** The first request among no `days`, days=30, 7, 1 that answers 200 JSON with dated rows. */
async function rowsRequest(ctx: CheckContext): Promise<{ path: string; ex: HttpExchange; required: boolean } | { reason: string; ex: HttpExchange }> {
  const plain = await usageDefault(ctx);
  if (plain.status === 200 && discoverShape(plain.json) !== undefined) return { path: '/v1/me/usage', ex: plain, required: false };
  if (plain.status >= 400 && plain.status < 500 && plain.status !== 401 && plain.status !== 403 && plain.status !== 404) {
    for (const n of [30, 7, 1]) {
      const ex = await ctx.http.get(`/v1/me/usage?days=${n}`);
      if (ex.status === 200 && discoverShape(ex.json) !== undefined) return { path: `/v1/me/usage?days=${n}`, ex, required: true };
    }
  }
  const what = plain.status !== 200 ? `answered ${plain.status}` : plain.jsonError !== undefined ? 'did not answer JSON' : 'holds no rows with a recognisable day (a date, a date-time or a Unix time in every row)';
  return { reason: `GET /v1/me/usage ${what}`, ex: plain };
}

async function deltaProbe(ctx: CheckContext, path: string): Promise<{ probe: DeltaProbe; afterBody: unknown } | { skipped: string }> {
  const model = await modelUnderTest(ctx);
  const day = utcDate(new Date());
  const before = await ctx.http.get(path);
  const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { max_completion_tokens: 16 }));
  const after = await ctx.http.get(path);
  if (utcDate(new Date()) !== day) return { skipped: 'the UTC day changed during the probe' };
  const usage = { prompt_tokens: at(ex.json, 'usage', 'prompt_tokens'), completion_tokens: at(ex.json, 'usage', 'completion_tokens'), total_tokens: at(ex.json, 'usage', 'total_tokens') };
  if (ex.status !== 200 || !isInt(usage.prompt_tokens) || !isInt(usage.completion_tokens) || !isInt(usage.total_tokens)) {
    return { skipped: `the probe completion answered ${ex.status} without integer usage` };
  }
  const b = before.status === 200 ? membersOfDay(before.json, day) : undefined;
  const a = after.status === 200 ? membersOfDay(after.json, day) : undefined;
  if (b === undefined || a === undefined) return { skipped: 'the usage rows could not be read around the probe completion' };
  const moved: Record<string, number> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) moved[k] = Math.round(((a[k] ?? 0) - (b[k] ?? 0)) * 1e9) / 1e9;
  return { probe: { usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens }, moved }, afterBody: after.json };
}

async function daysContract(ctx: CheckContext, shape: UsageShape, base: HttpExchange, required: boolean): Promise<DaysContract> {
  const rows = readRows(base.json, shape) ?? [];
  const contract: DaysContract = { defaultRows: rows.length, defaultSpanDays: spanDays(rows), param: required ? 'required' : 'other' };
  if (required) return contract;
  const seven = await ctx.http.get('/v1/me/usage?days=7');
  if (seven.status >= 400 && seven.status < 500) return { ...contract, param: 'rejected' };
  const r7 = seven.status === 200 ? readRows(seven.json, shape) : undefined;
  if (r7 === undefined) return contract;
  if (JSON.stringify(r7) === JSON.stringify(rows) && spanDays(rows) > 7) return { ...contract, param: 'ignored' };
  return { ...contract, param: spanDays(r7) <= 7 ? 'honoured' : 'other' };
}

/** The run's footing on /v1/me/usage, worked out once and shared by every check that needs it. */
export const discoverUsage = sharedRequest('usage:discovery', async (ctx: CheckContext): Promise<UsageFooting> => {
  const found = await rowsRequest(ctx);
  if ('reason' in found) return { ok: false, reason: found.reason, exchange: found.ex };
  const p = await deltaProbe(ctx, found.path);
  const probe = 'probe' in p ? p.probe : undefined;
  // Rows may first appear with the probe's activity (a server that leaves idle days out).
  const shape = ('probe' in p ? discoverShape(p.afterBody, probe) : undefined) ?? discoverShape(found.ex.json, probe);
  if (shape === undefined) return { ok: false, reason: 'GET /v1/me/usage holds no rows with a recognisable day', exchange: found.ex };
  const discovery: UsageDiscovery = { path: found.path, shape, probe: probe ?? { skipped: 'skipped' in p ? p.skipped : '' }, days: await daysContract(ctx, shape, found.ex, found.required) };
  ctx.discovered.usage = discovery;
  return { ok: true, discovery };
});

/** The rows of a fresh read of the discovered request, or why they cannot be read. */
export async function readUsage(ctx: CheckContext, d: UsageDiscovery, path = d.path): Promise<{ rows: UsageRow[]; ex: HttpExchange } | { reason: string; ex: HttpExchange }> {
  const ex = await ctx.http.get(path);
  const rows = ex.status === 200 ? readRows(ex.json, d.shape) : undefined;
  if (rows === undefined) return { reason: `GET ${path} answered ${ex.status} without rows of the discovered shape (${describeShape(d.shape)})`, ex };
  return { rows, ex };
}

/** The sum of a day's rows for each counter found (rows of one day may repeat, e.g. one per model). */
export function dayTotals(rows: readonly UsageRow[], day: string): UsageRow {
  const out: UsageRow = { date: day };
  for (const r of rows) {
    if (r.date !== day) continue;
    for (const kind of counterKinds) {
      const v = r[kind];
      if (v !== undefined) out[kind] = (out[kind] ?? 0) + v;
    }
  }
  return out;
}

/** Tokens of a row: its total, else prompt + completion when it carries both. */
export function tokensOf(r: UsageRow): number | undefined {
  if (r.total_tokens !== undefined) return r.total_tokens;
  return r.prompt_tokens !== undefined && r.completion_tokens !== undefined ? r.prompt_tokens + r.completion_tokens : undefined;
}
