import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RateLimitBudgetSpent, RateLimitRetry, retryingFetch, type AnswerView } from './rate-limit-retry.ts';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { gradeOf } from '../registry/registry-view.ts';
import type { CheckDef } from '../context/check-types.ts';

const limited = (headers: Record<string, string> = {}, json: unknown = { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } }): AnswerView => ({ status: 429, headers, json, requestId: 'req_1' });
const ok: AnswerView = { status: 200, headers: {}, json: {}, requestId: 'req_2' };

function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return { now: () => t, sleep: async (ms) => { slept.push(ms); t += ms; }, slept };
}

const what = { method: 'POST', path: '/v1/chat/completions', authorization: 'Bearer secret-token-1', account: 'run' as const };

describe('RateLimitRetry', () => {
  it('LIMIT-010: waits what Retry-After says, sends again, and records that the limit lifted', async () => {
    const clock = fakeClock();
    const lines: string[] = [];
    const retry = new RateLimitRetry({ ...clock, progress: (l) => lines.push(l), random: () => 0.5 });
    const answers = [limited({ 'retry-after': '7' }), limited({ 'retry-after': '3' }), ok];
    let sent = 0;
    const got = await retry.run(what, async () => answers[sent++] as AnswerView, (a) => a);
    expect(got).toBe(ok);
    expect(sent).toBe(3);
    expect(clock.slept).toEqual([7000, 3000]);
    expect(retry.waitedMs).toBe(10_000);
    const events = retry.drain();
    expect(events.map((e) => [e.attempt, e.action, e.wait?.basis, e.lifted])).toEqual([
      [1, 'waited', 'retry-after', undefined],
      [2, 'waited', 'retry-after', true],
    ]);
    expect(retry.drain()).toEqual([]);
    expect(lines[0]).toBe('iari: 429 on POST /v1/chat/completions (Retry-After: 7): waiting 7 s, then sending it again (attempt 2; 7 s of the 10 min wait budget used)');
  });

  it('LIMIT-010: stops when the server asks for more than the budget has left, and says why', async () => {
    const clock = fakeClock();
    const lines: string[] = [];
    const retry = new RateLimitRetry({ ...clock, maxTotalWaitMs: 30_000, progress: (l) => lines.push(l) });
    await expect(retry.run(what, async () => limited({ 'retry-after': '3600' }), (a) => a)).rejects.toBeInstanceOf(RateLimitBudgetSpent);
    expect(clock.slept).toEqual([]);
    const [event] = retry.drain();
    expect(event?.action).toBe('gave-up');
    expect(event?.lifted).toBe(false);
    expect(event?.reason).toBe("the server asks for 60 min and the run's wait budget has 30 s left (--max-rate-limit-wait)");
    expect(lines[0]).toContain('not waiting');
  });

  it('LIMIT-010: a server answering Retry-After: 0 forever is sent the request at most MAX_ATTEMPTS times, never less than 100 ms apart', async () => {
    const clock = fakeClock();
    const retry = new RateLimitRetry({ ...clock, progress: () => {} });
    let sent = 0;
    await expect(retry.run(what, async () => (sent++, limited({ 'retry-after': '0' })), (a) => a)).rejects.toThrow(`${MAX_ATTEMPTS} answers in a row were 429`);
    expect(sent).toBe(MAX_ATTEMPTS);
    expect(clock.slept.every((ms) => ms === 100)).toBe(true);
  });

  it('LIMIT-006: an exhausted quota is handed to the check at once, not waited out', async () => {
    const clock = fakeClock();
    const retry = new RateLimitRetry({ ...clock, progress: () => {} });
    const quota = limited({}, { error: { type: 'insufficient_quota', code: 'insufficient_quota' } });
    expect(await retry.run(what, async () => quota, (a) => a)).toBe(quota);
    expect(clock.slept).toEqual([]);
    expect(retry.drain().map((e) => e.action)).toEqual(['quota']);
  });

  it('LIMIT-009: counts the requests each credential sent in the last minute, keyed by a digest, never the token', async () => {
    const clock = fakeClock();
    const retry = new RateLimitRetry({ ...clock, progress: () => {} });
    for (let i = 0; i < 5; i++) retry.noteSent('Bearer secret-token-1');
    retry.noteSent('Bearer other');
    await clock.sleep(61_000);
    for (let i = 0; i < 2; i++) retry.noteSent('Bearer secret-token-1');
    await retry.run(what, async (n) => (n === 1 ? limited({ 'retry-after': '1' }) : ok), (a) => a);
    expect(retry.drain()[0]?.sentInWindow).toBe(2);
    expect(JSON.stringify(retry)).not.toContain('secret-token-1');
  });
});

describe('retryingFetch (SDK clients)', () => {
  it('LIMIT-010: waits out a 429 for an SDK request and gives the retry its own timeout signal', async () => {
    const clock = fakeClock();
    const retry = new RateLimitRetry({ ...clock, progress: () => {} });
    const signals: (AbortSignal | null | undefined)[] = [];
    const sdkSignal = new AbortController().signal;
    let calls = 0;
    const fetchImpl = (async (_input: string | URL | Request, init?: RequestInit) => {
      signals.push(init?.signal);
      calls++;
      return calls === 1
        ? new Response(JSON.stringify({ error: { type: 'rate_limit_error' } }), { status: 429, headers: { 'retry-after': '2' } })
        : new Response('{"ok":true}', { status: 200 });
    }) as typeof fetch;
    let acquired = 0;
    const f = retryingFetch(retry, { acquire: async () => void acquired++ }, { timeoutMs: 5_000, fetchImpl });
    const res = await f('http://127.0.0.1:1/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer t0ken-abc' }, body: '{}', signal: sdkSignal });
    expect(res.status).toBe(200);
    expect(clock.slept).toEqual([2000]);
    expect(signals[0]).toBe(sdkSignal);
    expect(signals[1]).not.toBe(sdkSignal);
    expect(acquired).toBe(1);
    expect(retry.drain().map((e) => [e.method, e.path, e.lifted])).toEqual([['POST', '/v1/chat/completions', true]]);
  });
});

// The whole path: a check's request meets 429s from a real socket; the check judges the 200 that follows.
describe('a check that meets a rate limit', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    const server = createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    close = () => new Promise((r) => server.close(() => r()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const probe: CheckDef = {
    name: 'probe',
    area: 'chat',
    ids: ['CHAT-001'],
    title: 'probe',
    timeoutMs: 1500,
    async run(ctx, j) {
      const ex = await ctx.http.get('/v1/me');
      j.expect('CHAT-001', ex.status === 200, () => ({ message: `answered ${ex.status}` }));
    },
  };

  it('LIMIT-010, LIMIT-002: is judged on the answer after the limit lifts; the 429 is judged by LIMIT-* only', async () => {
    let n = 0;
    const root = await serve((_req, res) => {
      n++;
      if (n <= 2) {
        res.writeHead(429, { 'content-type': 'application/json', 'x-request-id': `req_${n}`, 'retry-after-ms': '2000' });
        res.end(JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down', param: null } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ limits: { requests_per_minute: 1000, tokens_per_minute: 1000 } }));
    });
    const lines: string[] = [];
    // Real sleeps of 2 x 2 s (retry-after-ms): longer than the check's 1.5 s budget, which waiting does not spend.
    const ctx = createCheckContext({ root, token: 'tok-123456789', seed: 1, target: 'external', includeLimits: false }, { progress: (l) => lines.push(l) });
    const outcomes = await runCheck(probe, ctx, gradeOf);
    const byId = new Map(outcomes.map((o) => [o.id, o]));
    expect(byId.get('CHAT-001')).toEqual({ id: 'CHAT-001', verdict: 'pass' });
    expect(byId.get('LIMIT-010')?.verdict).toBe('pass');
    expect(byId.get('LIMIT-009')?.verdict).toBe('non-strict');
    expect(byId.get('LIMIT-002')?.verdict).toBe('non-strict');
    expect(byId.get('LIMIT-001')?.verdict).toBe('pass');
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain('tok-123456789');
  }, 15_000);

  it('LIMIT-010: a check whose 429 outlasts the wait budget is undecided (cause rate-limit, root cause LIMIT) with the reason, never its own FAIL, and LIMIT-010 fails', async () => {
    const root = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' });
      res.end(JSON.stringify({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down', param: null } }));
    });
    const ctx = createCheckContext({ root, token: 'tok-123456789', seed: 1, target: 'external', includeLimits: false, maxRateLimitWaitMs: 60_000 }, { progress: () => {} });
    const outcomes = await runCheck(probe, ctx, gradeOf);
    const byId = new Map(outcomes.map((o) => [o.id, o]));
    const chat = byId.get('CHAT-001');
    expect(chat?.verdict).toBe('undecided');
    expect(chat?.verdict === 'undecided' ? `${chat.cause}: ${chat.reason}` : '').toMatch(/^rate-limit: not decided: .*asks for 2 min .* 1 min left .*root cause LIMIT \(LIMIT-010 reports the 429s\)/);
    expect(byId.get('LIMIT-010')?.verdict).toBe('fail');
  });
});
