import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { bound } from '../requests/capability-probes.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import type { Failure } from '../kernel/verdicts.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorMemberIs, modelUnderTest, getMe, unknownModelId } from '../requests/common-requests.ts';
import { StreamValidator } from '../../protocols/chat-completions/stream-checker.ts';
import { counterKinds, describeShape, readRows, type CounterKind, type UsageRow } from '../wire/usage-shape.ts';
import { dayTotals, discoverUsage, readUsage, tokensOf, usageDefault, utcDate, type UsageDiscovery } from '../requests/usage-discovery.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

// Seed, Daily usage: "Fields of the response: not shown. It holds a day-by-day breakdown of
// activity". The profile's shape (D-HTTP-09..11) is judged by USAGE-002..009 at their grades; the
// seed-grounded cross-checks (USAGE-010..015, ME-024/025) run on whatever shape the server uses, as
// iari discovered it (usage-discovery.ts, D-HTTP-43), and are skipped with the reason when iari
// finds no footing.

/** The profile's `data` array, if the body has one. */
function dataRows(ex: HttpExchange): unknown[] | undefined {
  const data = at(ex.json, 'data');
  return Array.isArray(data) ? data : undefined;
}

/** Rows as iari reads them: the discovered shape when there is one, else the profile's `data`. */
function rowsOf(ex: HttpExchange, d: UsageDiscovery | undefined): UsageRow[] | undefined {
  if (ex.status !== 200) return undefined;
  if (d !== undefined) return readRows(ex.json, d.shape);
  const data = dataRows(ex);
  return data?.map((r) => ({ date: String(at(r, 'date')) }));
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
    // Seed, GET /v1/me/usage: "Response: daily usage breakdown".
    if (!j.expect('USAGE-001', ex.status === 200 && ex.jsonError === undefined, () => evidence(ex, 'GET /v1/me/usage did not answer 200 JSON', { expected: 200, received: describeResponse(ex) }))) {
      j.skipRest('the usage body could not be read');
      return;
    }
    const data = dataRows(ex);
    j.expect('USAGE-002', isRecord(ex.json) && ex.json['object'] === 'list' && isInt(ex.json['days']) && data !== undefined, () =>
      evidence(ex, 'the body is not {"object":"list","days":N,"data":[...]}', { received: { object: at(ex.json, 'object'), days: at(ex.json, 'days'), data: Array.isArray(data) ? '(array)' : at(ex.json, 'data') } }),
    );
    // The profile's row members (USAGE-006) are judged on the profile's `data`, whatever else the server sends.
    if (data === undefined) j.violated('USAGE-006', evidence(ex, 'the rows are not in the profile\'s data array', { expected: 'data: [{date, requests, prompt_tokens, completion_tokens, total_tokens, spend_usd}]', received: at(ex.json, 'data') }));
    data?.forEach((r, i) => {
      const ok =
        isRecord(r) &&
        typeof r['date'] === 'string' &&
        /^\d{4}-\d{2}-\d{2}$/.test(r['date']) &&
        [r['requests'], r['prompt_tokens'], r['completion_tokens'], r['total_tokens']].every((v) => isInt(v) && v >= 0) &&
        typeof r['spend_usd'] === 'number' &&
        r['spend_usd'] >= 0;
      j.expect('USAGE-006', ok, () => evidence(ex, `data[${i}] does not have the profile's members and types`, { received: r, pointer: `/data/${i}` }));
    });
    const footing = await discoverUsage(ctx);
    if (!footing.ok) {
      j.skipRest(`iari found no dated rows to judge: ${footing.reason}`);
      return;
    }
    const d = footing.discovery;
    const rows = readRows(ex.json, d.shape) ?? [];
    j.expect('USAGE-003', at(ex.json, 'days') === 30 && rows.length === 30, () =>
      evidence(ex, 'without days the window is not 30 rows', { expected: { days: 30, rows: 30 }, received: { days: at(ex.json, 'days'), rows: rows.length } }),
    );
    const where = (i: number): string => (d.shape.rows.form === 'array' ? `${d.shape.rows.pointer}/${i}` : d.shape.rows.pointer);
    const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = d.shape.counters;
    rows.forEach((r, i) => {
      // D-HTTP-09: "total_tokens = prompt_tokens + completion_tokens", on the members that count them.
      if (p !== undefined && c !== undefined && t !== undefined && r.prompt_tokens !== undefined && r.completion_tokens !== undefined && r.total_tokens !== undefined) {
        j.expect('USAGE-009', r.total_tokens === r.prompt_tokens + r.completion_tokens, () =>
          evidence(ex, `row ${i} (${r.date}): ${t.member} is not ${p.member} + ${c.member}`, { expected: r.prompt_tokens! + r.completion_tokens!, received: r.total_tokens, pointer: where(i) }),
        );
      }
      if (i > 0) {
        const prev = rows[i - 1] as UsageRow;
        const next = utcDate(new Date(Date.parse(`${prev.date}T00:00:00Z`) + 86_400_000));
        j.expect('USAGE-007', r.date === next, () => evidence(ex, `row ${i} (${r.date}) does not follow row ${i - 1} (${prev.date}) by one day`, { expected: next, received: r.date, pointer: where(i) }));
      }
    });
    if (!j.has('USAGE-009')) j.skip('USAGE-009', `the rows carry no prompt / completion / total split to add up (${describeShape(d.shape)})`);
    if (rows.length <= 1 && !j.has('USAGE-007')) j.pass('USAGE-007');
    const last = rows[rows.length - 1];
    j.expect('USAGE-008', last !== undefined && (last.date === before || last.date === after), () =>
      evidence(ex, 'the last row is not today (UTC)', { expected: after, received: last?.date, pointer: where(rows.length - 1) }),
    );
  },
};

const daysParam: CheckDef = {
  name: 'usage-days',
  area: 'usage',
  ids: ['USAGE-004'],
  title: 'days=1, 7 and 90 answer exactly that many rows',
  async run(ctx, j) {
    const footing = await discoverUsage(ctx);
    const d = footing.ok ? footing.discovery : undefined;
    for (const n of [1, 7, 90]) {
      const ex = await ctx.http.get(`/v1/me/usage?days=${n}`);
      const rows = rowsOf(ex, d);
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

/**
 * The rows that cover the current UTC month: days=31 when the server honours days, else the
 * discovered request; undefined (with the reason) when they visibly stop short of the 1st.
 */
async function monthRows(ctx: CheckContext, d: UsageDiscovery): Promise<{ rows: UsageRow[]; ex: HttpExchange } | { reason: string; ex?: HttpExchange }> {
  const honoured = d.days.param === 'honoured';
  const read = await readUsage(ctx, d, honoured ? '/v1/me/usage?days=31' : d.path);
  if ('reason' in read) return read;
  const today = utcDate(new Date());
  const first = `${today.slice(0, 7)}-01`;
  const dates = read.rows.map((r) => r.date).sort();
  const earliest = dates[0];
  // Asked for 31 days, the rows cover the month (a missing day is an idle one); otherwise they must reach back to the 1st.
  if (!honoured && earliest !== undefined && earliest > first) {
    const consecutive = dates.every((x, i) => i === 0 || Date.parse(`${x}T00:00:00Z`) - Date.parse(`${dates[i - 1]}T00:00:00Z`) <= 86_400_000);
    if (consecutive && dates.length > 1) return { reason: `the rows start on ${earliest}, after the first of the month, and days=31 is not honoured`, ex: read.ex };
    if (!consecutive) return { reason: `the rows start on ${earliest} with gaps, so iari cannot tell whether they reach back to ${first}`, ex: read.ex };
  }
  return { rows: read.rows.filter((r) => r.date.slice(0, 7) === today.slice(0, 7)), ex: read.ex };
}

const monthSums: CheckDef = {
  name: 'usage-month-sums',
  area: 'usage',
  ids: ['USAGE-010', 'USAGE-011', 'USAGE-012'],
  title: 'the current month’s daily rows sum to /v1/me requests_this_month, tokens_this_month and spend_usd',
  async run(ctx, j) {
    const footing = await discoverUsage(ctx);
    if (!footing.ok) {
      j.skipRest(`iari found no dated rows to add up: ${footing.reason}`);
      return;
    }
    const d = footing.discovery;
    const me = await getMe(ctx);
    const month = await monthRows(ctx, d);
    if (me.status !== 200) {
      j.failRest(evidence(me, 'cannot read /v1/me to compare', { received: describeResponse(me) }));
      return;
    }
    if ('reason' in month) {
      j.skipRest(month.reason);
      return;
    }
    // Seed §Current user: usage is "usage in the current month"; §Errors: "cross-check account and usage endpoints".
    const sums: [string, string, (r: UsageRow) => number | undefined, string | undefined][] = [
      ['USAGE-010', 'requests_this_month', (r) => r.requests, d.shape.counters.requests?.member],
      ['USAGE-011', 'tokens_this_month', tokensOf, d.shape.counters.total_tokens?.member ?? (d.shape.counters.prompt_tokens !== undefined && d.shape.counters.completion_tokens !== undefined ? `${d.shape.counters.prompt_tokens.member} + ${d.shape.counters.completion_tokens.member}` : undefined)],
      ['USAGE-012', 'spend_usd', (r) => r.spend_usd, d.shape.counters.spend_usd?.member],
    ];
    for (const [id, meKey, value, member] of sums) {
      if (member === undefined) {
        j.skip(id, `the rows carry no counter for ${meKey} (${describeShape(d.shape)})`);
        continue;
      }
      const got = month.rows.reduce((a, r) => a + (value(r) ?? 0), 0);
      const expected = at(me.json, 'usage', meKey);
      const ok = typeof expected === 'number' && (id === 'USAGE-012' ? Math.abs(expected - got) <= 1e-6 : expected === got);
      j.expect(id, ok, () => evidence(month.ex, `the month's rows sum ${member} to ${got}, /v1/me says ${meKey} ${String(expected)}`, { expected, received: got }));
    }
  },
};

interface Snapshot {
  me: HttpExchange;
  /** Today's totals from the discovered rows, or why there are none. */
  today: UsageRow | { reason: string };
}

async function snapshot(ctx: CheckContext, d: UsageDiscovery | undefined, reason: string): Promise<Snapshot> {
  const me = await getMe(ctx);
  if (d === undefined) return { me, today: { reason } };
  const read = await readUsage(ctx, d);
  return { me, today: 'reason' in read ? { reason: read.reason } : dayTotals(read.rows, utcDate(new Date())) };
}

const n = (v: unknown): number => (typeof v === 'number' ? v : NaN);

function meDelta(before: Snapshot, after: Snapshot): { requests: number; tokens: number; spend: number } {
  const get = (s: Snapshot, k: string): number => n(at(s.me.json, 'usage', k));
  return {
    requests: get(after, 'requests_this_month') - get(before, 'requests_this_month'),
    tokens: get(after, 'tokens_this_month') - get(before, 'tokens_this_month'),
    spend: get(after, 'spend_usd') - get(before, 'spend_usd'),
  };
}

/** How each discovered counter of today's row moved (a day that had no row counts as zeros); undefined when the rows could not be read. */
function rowDelta(before: Snapshot, after: Snapshot, d: UsageDiscovery): Partial<Record<CounterKind, number>> | { reason: string } {
  if ('reason' in before.today) return before.today;
  if ('reason' in after.today) return after.today;
  if (before.today.date !== after.today.date) return { reason: 'the UTC day changed during the check' };
  const out: Partial<Record<CounterKind, number>> = {};
  for (const kind of counterKinds) {
    if (d.shape.counters[kind] === undefined) continue;
    out[kind] = Math.round(((after.today[kind] ?? 0) - (before.today[kind] ?? 0)) * 1e9) / 1e9;
  }
  return out;
}

interface UsageCounts {
  prompt: number;
  completion: number;
  total: number;
}

/** Judges today's row: every discovered counter moved by exactly the request's share (D-HTTP-26). */
function judgeRow(j: Judge, id: string, ex: HttpExchange, before: Snapshot, after: Snapshot, d: UsageDiscovery | undefined, u: UsageCounts, notFound: string): void {
  if (d === undefined) {
    j.skip(id, notFound);
    return;
  }
  const moved = rowDelta(before, after, d);
  if ('reason' in moved) {
    j.skip(id, moved.reason);
    return;
  }
  const want: Partial<Record<CounterKind, number>> = { requests: 1, prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.total };
  const judged = counterKinds.filter((k) => k !== 'spend_usd' && moved[k] !== undefined);
  if (judged.length === 0) {
    j.skip(id, `the rows carry no request or token counter (${describeShape(d.shape)})`);
    return;
  }
  const expected = Object.fromEntries(judged.map((k) => [d.shape.counters[k]?.member, want[k]]));
  const received = Object.fromEntries(judged.map((k) => [d.shape.counters[k]?.member, moved[k]]));
  j.expect(id, judged.every((k) => moved[k] === want[k]), () => evidence(ex, 'today’s row did not grow by exactly the request’s usage', { expected, received }));
}

/** ME-025's failure says what was received: a /v1/me that did not answer 200, a spend_usd that is not a number, or one that went down. */
function spendEvidence(ex: HttpExchange, before: Snapshot, after: Snapshot, spend: number): Failure {
  for (const [when, s] of [['before', before], ['after', after]] as const) {
    if (s.me.status !== 200) return evidence(s.me, `GET /v1/me answered ${s.me.status} ${when} the completion, so spend_usd could not be compared`, { expected: 200, received: describeResponse(s.me) });
    const v = at(s.me.json, 'usage', 'spend_usd');
    if (typeof v !== 'number') return evidence(s.me, `GET /v1/me ${when} the completion has no numeric usage.spend_usd`, { expected: 'a number', received: v, pointer: '/usage/spend_usd' });
  }
  return evidence(ex, `usage.spend_usd decreased by ${-spend} after a completion`, { expected: '>= 0', received: spend });
}

/**
 * Issue 27, one root cause and not its cascade: where /v1/me answered 404 before and after the
 * completion the endpoint is absent (ME-001's finding), so growth is undecided, naming it.
 */
function meAbsent(before: Snapshot, after: Snapshot, j: Parameters<CheckDef['run']>[1]): boolean {
  if (before.me.status !== 404 || after.me.status !== 404) return false;
  j.skipRest('undecided: GET /v1/me answered 404 before and after the completion (the endpoint is absent, ME-001), so growth cannot be compared');
  return true;
}

/** One small completion (`extra` added to its body) between two snapshots of /v1/me and of today's row. */
async function aroundOneCompletion(ctx: CheckContext, extra: Record<string, unknown> = {}): Promise<{ ex: HttpExchange; before: Snapshot; after: Snapshot; d: UsageDiscovery | undefined; notFound: string }> {
  const model = await modelUnderTest(ctx);
  const footing = await discoverUsage(ctx);
  const d = footing.ok ? footing.discovery : undefined;
  const notFound = footing.ok ? '' : `iari found no dated rows: ${footing.reason}`;
  // The length bound is a capability: probed before the window, so the probe is not counted in it.
  const limit = await bound(ctx, 16);
  const before = await snapshot(ctx, d, notFound);
  const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { ...limit, ...extra }));
  const after = await snapshot(ctx, d, notFound);
  return { ex, before, after, d, notFound };
}

const growth: CheckDef = {
  name: 'usage-growth',
  area: 'usage',
  ids: ['ME-024', 'ME-025', 'USAGE-013'],
  title: 'one small completion adds exactly its usage to /v1/me and to today’s row of /v1/me/usage',
  async run(ctx, j) {
    const { ex, before, after, d, notFound } = await aroundOneCompletion(ctx);
    const u = { prompt: at(ex.json, 'usage', 'prompt_tokens'), completion: at(ex.json, 'usage', 'completion_tokens'), total: at(ex.json, 'usage', 'total_tokens') };
    if (ex.status !== 200 || !isInt(u.prompt) || !isInt(u.completion) || !isInt(u.total)) {
      j.skipRest(`the completion carried no integer usage (${ex.status}; CHAT-001/CHAT-015 judge that), so growth cannot be compared`);
      return;
    }
    if (meAbsent(before, after, j)) return;
    const m = meDelta(before, after);
    // Seed §Current user: usage is "usage so far"; §Errors: "cross-check account and usage endpoints after a small request".
    j.expect('ME-024', m.requests === 1 && m.tokens === u.total, () =>
      evidence(ex, '/v1/me did not grow by exactly one request and the response’s total_tokens', { expected: { requests: 1, tokens: u.total }, received: { requests: m.requests, tokens: m.tokens } }),
    );
    j.expect('ME-025', Number.isFinite(m.spend) && m.spend >= 0, () => spendEvidence(ex, before, after, m.spend));
    judgeRow(j, 'USAGE-013', ex, before, after, d, { prompt: u.prompt, completion: u.completion, total: u.total }, notFound);
  },
};

const streamGrowth: CheckDef = {
  name: 'usage-stream-growth',
  area: 'usage',
  ids: ['USAGE-014'],
  title: 'a streamed completion with include_usage is counted exactly like its usage chunk',
  async run(ctx, j) {
    const { ex, before, after, d, notFound } = await aroundOneCompletion(ctx, { stream: true, stream_options: { include_usage: true } });
    const v = new StreamValidator({ includeUsage: true });
    ex.chunks.forEach((c, i) => v.feed(c.bytes, BigInt(i)));
    const usage = v.end().assembled.usage;
    const u = { prompt: usage?.prompt_tokens, completion: usage?.completion_tokens, total: usage?.total_tokens };
    if (ex.status !== 200 || !isInt(u.prompt) || !isInt(u.completion) || !isInt(u.total)) {
      j.skipRest('the stream carried no integer usage chunk (CHAT-STREAM-023/029 judge that), so growth cannot be compared');
      return;
    }
    if (meAbsent(before, after, j)) return;
    const m = meDelta(before, after);
    j.expect('USAGE-014', m.requests === 1 && m.tokens === u.total, () =>
      evidence(ex, '/v1/me did not grow by exactly the usage chunk', { expected: { requests: 1, tokens: u.total }, received: { requests: m.requests, tokens: m.tokens } }),
    );
    if (d !== undefined) judgeRow(j, 'USAGE-014', ex, before, after, d, { prompt: u.prompt, completion: u.completion, total: u.total }, notFound);
  },
};

const rejectedNotCounted: CheckDef = {
  name: 'usage-rejected-not-counted',
  area: 'usage',
  ids: ['USAGE-015'],
  title: 'requests answered 4xx (401, 400, 404) leave requests, tokens and spend unchanged',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const footing = await discoverUsage(ctx);
    const d = footing.ok ? footing.discovery : undefined;
    const before = await snapshot(ctx, d, footing.ok ? '' : footing.reason);
    const wrongToken = `${ctx.http.tokenForProbe()}x`;
    ctx.http.registerSecret(wrongToken, '${IARI_TOKEN}x');
    const probes = [
      await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model), { auth: { authorization: `Bearer ${wrongToken}` } }),
      await ctx.http.post(CHAT_COMPLETIONS_PATH, { model, messages: [] }),
      await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, unknownModelId(ctx))),
    ];
    const after = await snapshot(ctx, d, footing.ok ? '' : footing.reason);
    const refused = probes.filter((p) => p.status >= 400 && p.status < 500);
    if (refused.length < probes.length) {
      j.skip('USAGE-015', `not every probe was refused (${probes.map((p) => p.status).join(', ')}); the AUTH and CHAT checks judge that`);
      return;
    }
    const m = meDelta(before, after);
    const moved = d === undefined ? {} : rowDelta(before, after, d);
    const rowMoved = 'reason' in moved ? [] : Object.entries(moved).filter(([, v]) => v !== 0);
    // D-HTTP-26: "Requests answered 4xx (including 401, 404, 413, 415, 429) add nothing."
    j.expect('USAGE-015', m.requests === 0 && m.tokens === 0 && m.spend === 0 && rowMoved.length === 0, () =>
      evidence(refused[0], `requests answered ${refused.map((p) => p.status).join(', ')} changed the account usage`, {
        expected: 'no change',
        received: { requests: m.requests, tokens: m.tokens, spend: m.spend, today: Object.fromEntries(rowMoved.map(([k, v]) => [d?.shape.counters[k as CounterKind]?.member ?? k, v])) },
      }),
    );
  },
};

export const usageChecks: CheckDef[] = [shape, daysParam, daysInvalid, monthSums, growth, streamGrowth, rejectedNotCounted];
