import type { CheckContext, CheckDef } from '../check-types.ts';
import type { HttpExchange } from '../check-http.ts';
import type { Judge } from '../judge.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../evidence.ts';
import { chatBody, errorMemberIs, firstModel, getMe, unknownModelId } from '../common-requests.ts';
import { StreamValidator } from '../../client/stream-checker.ts';
import type { UsageDay } from '../verdicts.ts';

type Row = UsageDay;

function rowsOf(ex: HttpExchange): Row[] | undefined {
  const data = at(ex.json, 'data');
  if (!Array.isArray(data)) return undefined;
  return data as Row[];
}

function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function usageDefault(ctx: CheckContext): Promise<HttpExchange> {
  return ctx.shared.get('usage:default', () => ctx.http.get('/v1/me/usage'));
}

const shape: CheckDef = {
  name: 'usage-shape',
  area: 'usage',
  ids: ['USAGE-001', 'USAGE-002', 'USAGE-003', 'USAGE-006', 'USAGE-007', 'USAGE-008', 'USAGE-009'],
  title: 'GET /v1/me/usage answers 30 consecutive zero-filled UTC day rows ending today, each with consistent counts',
  async run(ctx, j) {
    const before = utcDate(new Date());
    const ex = await usageDefault(ctx);
    const after = utcDate(new Date());
    if (!j.expect('USAGE-001', ex.status === 200 && ex.jsonError === undefined, () => evidence(ex, 'GET /v1/me/usage did not answer 200 JSON', { expected: 200, received: describeResponse(ex) }))) {
      j.skipRest('the usage body could not be read');
      return;
    }
    const rows = rowsOf(ex);
    j.expect('USAGE-002', isRecord(ex.json) && ex.json['object'] === 'list' && isInt(ex.json['days']) && rows !== undefined, () =>
      evidence(ex, 'the body is not {"object":"list","days":N,"data":[...]}', { received: { object: at(ex.json, 'object'), days: at(ex.json, 'days'), data: Array.isArray(rows) ? '(array)' : at(ex.json, 'data') } }),
    );
    if (rows === undefined) {
      j.skipRest('no data array');
      return;
    }
    j.expect('USAGE-003', at(ex.json, 'days') === 30 && rows.length === 30, () =>
      evidence(ex, 'without days the window is not 30 rows', { expected: { days: 30, rows: 30 }, received: { days: at(ex.json, 'days'), rows: rows.length } }),
    );
    rows.forEach((r, i) => {
      const ok =
        isRecord(r) &&
        typeof r.date === 'string' &&
        /^\d{4}-\d{2}-\d{2}$/.test(r.date) &&
        [r.requests, r.prompt_tokens, r.completion_tokens, r.total_tokens].every((v) => isInt(v) && v >= 0) &&
        typeof r.spend_usd === 'number' &&
        r.spend_usd >= 0;
      j.expect('USAGE-006', ok, () => evidence(ex, `data[${i}] does not have the profile's members and types`, { received: r, pointer: `/data/${i}` }));
      if (isRecord(r) && [r.prompt_tokens, r.completion_tokens, r.total_tokens].every(isInt)) {
        j.expect('USAGE-009', r.total_tokens === r.prompt_tokens + r.completion_tokens, () =>
          evidence(ex, `data[${i}].total_tokens is not the sum of its parts`, { expected: r.prompt_tokens + r.completion_tokens, received: r.total_tokens, pointer: `/data/${i}/total_tokens` }),
        );
      }
      if (i > 0) {
        const prev = rows[i - 1] as Row;
        const next = new Date(Date.parse(`${prev.date}T00:00:00Z`) + 86_400_000);
        j.expect('USAGE-007', r.date === utcDate(next), () =>
          evidence(ex, `data[${i}].date does not follow data[${i - 1}].date by one day`, { expected: Number.isNaN(next.getTime()) ? 'a date' : utcDate(next), received: r.date, pointer: `/data/${i}/date` }),
        );
      }
    });
    if (rows.length === 1) j.pass('USAGE-007');
    const last = rows[rows.length - 1];
    j.expect('USAGE-008', last !== undefined && (last.date === before || last.date === after), () =>
      evidence(ex, 'the last row is not today (UTC)', { expected: after, received: last?.date, pointer: `/data/${rows.length - 1}/date` }),
    );
  },
};

const daysParam: CheckDef = {
  name: 'usage-days',
  area: 'usage',
  ids: ['USAGE-004'],
  title: 'days=1, 7 and 90 answer exactly that many rows',
  async run(ctx, j) {
    for (const n of [1, 7, 90]) {
      const ex = await ctx.http.get(`/v1/me/usage?days=${n}`);
      const rows = rowsOf(ex);
      j.expect('USAGE-004', ex.status === 200 && at(ex.json, 'days') === n && rows?.length === n, () =>
        evidence(ex, `days=${n} did not answer ${n} rows`, { expected: { status: 200, days: n, rows: n }, received: { status: ex.status, days: at(ex.json, 'days'), rows: rows?.length } }),
      );
    }
  },
};

const daysInvalid: CheckDef = {
  name: 'usage-days-invalid',
  area: 'usage',
  ids: ['USAGE-005'],
  title: 'days=0, 91, -1, 1.5 and abc answer 400 invalid_request_error naming days',
  async run(ctx, j) {
    for (const v of ['0', '91', '-1', '1.5', 'abc']) {
      const ex = await ctx.http.get(`/v1/me/usage?days=${encodeURIComponent(v)}`);
      j.expect('USAGE-005', ex.status === 400 && errorMemberIs(ex, 'type', ['invalid_request_error']) && errorMemberIs(ex, 'param', ['days']), () =>
        evidence(ex, `days=${v} was not refused with 400 naming days`, { expected: { status: 400, type: 'invalid_request_error', param: 'days' }, received: describeResponse(ex) }),
      );
    }
  },
};

function monthRows(rows: Row[], today: string): Row[] {
  return rows.filter((r) => typeof r.date === 'string' && r.date.slice(0, 7) === today.slice(0, 7));
}

const monthSums: CheckDef = {
  name: 'usage-month-sums',
  area: 'usage',
  ids: ['USAGE-010', 'USAGE-011', 'USAGE-012'],
  title: 'the current month’s daily rows sum to /v1/me requests_this_month, tokens_this_month and spend_usd',
  async run(ctx, j) {
    const me = await getMe(ctx);
    const usage = await ctx.http.get('/v1/me/usage?days=31');
    const rows = rowsOf(usage);
    if (me.status !== 200 || rows === undefined) {
      j.failRest(evidence(rows === undefined ? usage : me, 'cannot read /v1/me and /v1/me/usage to compare', { received: describeResponse(rows === undefined ? usage : me) }));
      return;
    }
    const month = monthRows(rows, utcDate(new Date()));
    if (!month.every((r) => typeof r.spend_usd === 'number')) j.skip('USAGE-012', 'some rows carry spend_usd that is not a number (USAGE-006)');
    const sum = (k: 'requests' | 'total_tokens' | 'spend_usd'): number => month.reduce((a, r) => a + (r[k] ?? 0), 0);
    const pairs = [
      ['USAGE-010', 'requests', 'requests_this_month'],
      ['USAGE-011', 'total_tokens', 'tokens_this_month'],
      ['USAGE-012', 'spend_usd', 'spend_usd'],
    ] as const;
    for (const [id, rowKey, meKey] of pairs) {
      if (j.has(id)) continue;
      const expected = at(me.json, 'usage', meKey);
      const got = sum(rowKey);
      const ok = typeof expected === 'number' && (rowKey === 'spend_usd' ? Math.abs(expected - got) <= 1e-6 : expected === got);
      j.expect(id, ok, () => evidence(usage, `the month's rows sum ${rowKey} to ${got}, /v1/me says ${String(expected)}`, { expected, received: got }));
    }
  },
};

interface Snapshot {
  me: HttpExchange;
  today: Row | undefined;
}

async function snapshot(ctx: CheckContext): Promise<Snapshot> {
  const me = await getMe(ctx);
  const usage = await ctx.http.get('/v1/me/usage?days=1');
  const today = utcDate(new Date());
  const rows = rowsOf(usage) ?? [];
  return { me, today: rows.find((r) => isRecord(r) && r.date === today) ?? rows[rows.length - 1] };
}

function delta(before: Snapshot, after: Snapshot): { requests: number; tokens: number; spend: number; rowRequests: number; rowPrompt: number; rowCompletion: number; rowTotal: number } {
  const n = (v: unknown): number => (typeof v === 'number' ? v : NaN);
  const sameDay = before.today?.date === after.today?.date;
  return {
    requests: n(at(after.me.json, 'usage', 'requests_this_month')) - n(at(before.me.json, 'usage', 'requests_this_month')),
    tokens: n(at(after.me.json, 'usage', 'tokens_this_month')) - n(at(before.me.json, 'usage', 'tokens_this_month')),
    spend: n(at(after.me.json, 'usage', 'spend_usd')) - n(at(before.me.json, 'usage', 'spend_usd')),
    rowRequests: n(after.today?.requests) - (sameDay ? n(before.today?.requests) : 0),
    rowPrompt: n(after.today?.prompt_tokens) - (sameDay ? n(before.today?.prompt_tokens) : 0),
    rowCompletion: n(after.today?.completion_tokens) - (sameDay ? n(before.today?.completion_tokens) : 0),
    rowTotal: n(after.today?.total_tokens) - (sameDay ? n(before.today?.total_tokens) : 0),
  };
}

interface UsageCounts {
  prompt: number;
  completion: number;
  total: number;
}

function judgeGrowth(j: Judge, ex: HttpExchange, d: ReturnType<typeof delta>, u: UsageCounts, ids: { me?: string; spend?: string; row: string }): void {
  if (ids.me !== undefined) {
    j.expect(ids.me, d.requests === 1 && d.tokens === u.total, () =>
      evidence(ex, '/v1/me did not grow by exactly one request and the response’s total_tokens', { expected: { requests: 1, tokens: u.total }, received: { requests: d.requests, tokens: d.tokens } }),
    );
  }
  if (ids.spend !== undefined) {
    j.expect(ids.spend, Number.isFinite(d.spend) && d.spend >= 0, () => evidence(ex, 'usage.spend_usd decreased after a completion', { expected: '>= 0', received: d.spend }));
  }
  const rowOk = d.rowRequests === 1 && d.rowPrompt === u.prompt && d.rowCompletion === u.completion && d.rowTotal === u.total;
  j.expect(ids.row, rowOk, () =>
    evidence(ex, 'today’s row did not grow by exactly the request’s usage', {
      expected: { requests: 1, prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.total },
      received: { requests: d.rowRequests, prompt_tokens: d.rowPrompt, completion_tokens: d.rowCompletion, total_tokens: d.rowTotal },
    }),
  );
}

const growth: CheckDef = {
  name: 'usage-growth',
  area: 'usage',
  ids: ['ME-024', 'ME-025', 'USAGE-013'],
  title: 'one small completion adds exactly its usage to /v1/me and to today’s row of /v1/me/usage',
  async run(ctx, j) {
    const model = await firstModel(ctx);
    const before = await snapshot(ctx);
    const ex = await ctx.http.post('/v1/chat/completions', chatBody(ctx, model, { max_completion_tokens: 16 }));
    const after = await snapshot(ctx);
    const u = { prompt: at(ex.json, 'usage', 'prompt_tokens'), completion: at(ex.json, 'usage', 'completion_tokens'), total: at(ex.json, 'usage', 'total_tokens') };
    if (ex.status !== 200 || !isInt(u.prompt) || !isInt(u.completion) || !isInt(u.total)) {
      j.skipRest(`the completion carried no integer usage (${ex.status}; CHAT-001/CHAT-015 judge that), so growth cannot be compared`);
      return;
    }
    judgeGrowth(j, ex, delta(before, after), { prompt: u.prompt, completion: u.completion, total: u.total }, { me: 'ME-024', spend: 'ME-025', row: 'USAGE-013' });
  },
};

const streamGrowth: CheckDef = {
  name: 'usage-stream-growth',
  area: 'usage',
  ids: ['USAGE-014'],
  title: 'a streamed completion with include_usage is counted exactly like its usage chunk',
  async run(ctx, j) {
    const model = await firstModel(ctx);
    const before = await snapshot(ctx);
    const ex = await ctx.http.post('/v1/chat/completions', chatBody(ctx, model, { max_completion_tokens: 16, stream: true, stream_options: { include_usage: true } }));
    const after = await snapshot(ctx);
    const v = new StreamValidator({ includeUsage: true });
    ex.chunks.forEach((c, i) => v.feed(c.bytes, BigInt(i)));
    const usage = v.end().assembled.usage;
    const u = { prompt: usage?.prompt_tokens, completion: usage?.completion_tokens, total: usage?.total_tokens };
    if (ex.status !== 200 || !isInt(u.prompt) || !isInt(u.completion) || !isInt(u.total)) {
      j.skipRest('the stream carried no integer usage chunk (CHAT-STREAM-023/029 judge that), so growth cannot be compared');
      return;
    }
    const d = delta(before, after);
    const meOk = d.requests === 1 && d.tokens === u.total;
    j.expect('USAGE-014', meOk, () =>
      evidence(ex, '/v1/me did not grow by exactly the usage chunk', { expected: { requests: 1, tokens: u.total }, received: { requests: d.requests, tokens: d.tokens } }),
    );
    judgeGrowth(j, ex, d, { prompt: u.prompt, completion: u.completion, total: u.total }, { row: 'USAGE-014' });
  },
};

const rejectedNotCounted: CheckDef = {
  name: 'usage-rejected-not-counted',
  area: 'usage',
  ids: ['USAGE-015'],
  title: 'requests answered 4xx leave requests, tokens and spend unchanged',
  async run(ctx, j) {
    const model = await firstModel(ctx);
    const before = await snapshot(ctx);
    const bad = await ctx.http.post('/v1/chat/completions', { model, messages: [] });
    const unknown = await ctx.http.post('/v1/chat/completions', chatBody(ctx, unknownModelId(ctx)));
    const after = await snapshot(ctx);
    if (!(bad.status >= 400 && bad.status < 500 && unknown.status >= 400 && unknown.status < 500)) {
      j.skip('USAGE-015', `the probes were not rejected (${bad.status}, ${unknown.status}); other checks judge that`);
      return;
    }
    const d = delta(before, after);
    j.expect('USAGE-015', d.requests === 0 && d.tokens === 0 && d.spend === 0 && d.rowRequests === 0 && d.rowTotal === 0, () =>
      evidence(bad, 'rejected requests changed the account usage', { expected: 'no change', received: { requests: d.requests, tokens: d.tokens, spend: d.spend, todayRequests: d.rowRequests } }),
    );
  },
};

export const usageChecks: CheckDef[] = [shape, daysParam, daysInvalid, monthSums, growth, streamGrowth, rejectedNotCounted];
