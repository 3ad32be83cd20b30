import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { CheckHttpError } from '../http/check-http.ts';
import { runCheck } from './check-runner.ts';
import { formatDuration, notRunMessage } from '../kernel/check-deadline.ts';
import type { CheckDef, CheckOutcome } from '../context/check-types.ts';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';

// A server that answers the head at once, then dribbles one byte every 50 ms for ever: an idle
// timeout never fires on it, only a total deadline does.
let server: EndlessServer;
let root: string;
let closedByClient = 0;

beforeAll(async () => {
  server = await startEndlessServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const t = setInterval(() => res.write(' '), 50);
    req.socket.once('close', () => {
      clearInterval(t);
      closedByClient++;
    });
  });
  root = server.root;
});

afterAll(() => server.close());

const gradeMust = (): 'MUST' => 'MUST';
const failures = (o: CheckOutcome): string => (o.verdict === 'fail' || o.verdict === 'non-strict' ? o.failures.map((f) => f.message).join('; ') : o.verdict === 'undecided' ? `${o.cause}: ${o.reason}` : o.verdict);

function ctxWith(over: { requestTimeoutMs?: number; checkTimeoutMs?: number; runDeadline?: { at: number; ms: number } }) {
  return createCheckContext({ root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, ...over });
}

describe('deadlines of iari test', () => {
  it('a request to a server that keeps sending bytes ends at its total deadline with an error naming --request-timeout', async () => {
    const ctx = ctxWith({ requestTimeoutMs: 400 });
    const t0 = performance.now();
    const error = await ctx.http.get('/v1/models').then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = performance.now() - t0;
    expect(error).toBeInstanceOf(CheckHttpError);
    expect((error as Error).message).toMatch(/request deadline of 400 ms \(--request-timeout\)/);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(5_000);
  });

  it('a check past its deadline fails every undecided ID saying so, and the requests it still sends are aborted', async () => {
    const ctx = ctxWith({ requestTimeoutMs: 60_000, checkTimeoutMs: 300 });
    const before = closedByClient;
    let later: Promise<unknown> | undefined;
    const def: CheckDef = {
      name: 'hangs',
      area: 'models',
      ids: ['MODELS-001', 'MODELS-002'],
      title: 'hangs',
      async run(c, j) {
        j.pass('MODELS-002');
        await c.http.get('/v1/models').catch(() => undefined);
        // The abandoned check carries on: what it sends now is aborted at once.
        later = c.http.get('/v1/models').then(
          () => 'answered',
          (e: unknown) => (e as Error).message,
        );
        await later;
      },
    };
    const t0 = performance.now();
    const outcomes = await runCheck(def, ctx, gradeMust);
    expect(performance.now() - t0).toBeLessThan(5_000);
    const [first, second] = outcomes as [CheckOutcome, CheckOutcome];
    expect(first.verdict).toBe('fail');
    expect(failures(first)).toMatch(/did not finish within its deadline of 300 ms \(--check-timeout\); its requests were aborted/);
    expect(second.verdict).toBe('pass');
    await new Promise((r) => setTimeout(r, 100));
    expect(closedByClient - before).toBeGreaterThanOrEqual(1);
    expect(await later).toMatch(/^GET \/v1\/models: aborted: /);
  });

  it('a check that would start after the run deadline is not run: its IDs are undecided (cause deadline), naming --run-timeout, never a FAIL', async () => {
    const ctx = ctxWith({ runDeadline: { at: Date.now() - 1, ms: 300_000 } });
    let ran = false;
    const def: CheckDef = { name: 'late', area: 'models', ids: ['MODELS-001'], title: 'late', run: async () => void (ran = true) };
    const [o] = (await runCheck(def, ctx, gradeMust)) as [CheckOutcome];
    expect(ran).toBe(false);
    expect(o.verdict).toBe('undecided');
    expect(failures(o)).toBe(`deadline: ${notRunMessage({ at: 0, ms: 300_000 })}`);
    expect(failures(o)).toContain('--run-timeout 5 min');
  });

  it('a check that catches the abort of its own request at the run deadline and judges on it decides nothing: undecided, not FAIL', async () => {
    const ctx = ctxWith({ checkTimeoutMs: 60_000, runDeadline: { at: Date.now() + 300, ms: 1_000 } });
    const def: CheckDef = {
      name: 'catches',
      area: 'models',
      ids: ['MODELS-001', 'MODELS-002'],
      title: 'catches',
      async run(c, j) {
        j.pass('MODELS-002');
        await c.http.get('/v1/models').catch((e: unknown) => j.violated('MODELS-001', { message: `request failed: ${(e as Error).message}` }));
        await new Promise((r) => setTimeout(r, 200));
      },
    };
    const outcomes = await runCheck(def, ctx, gradeMust);
    expect(outcomes.map((o) => o.verdict)).toEqual(['undecided', 'pass']);
  });

  it('a check running when the run deadline passes is cut at the run deadline, not its own', async () => {
    const ctx = ctxWith({ checkTimeoutMs: 60_000, runDeadline: { at: Date.now() + 300, ms: 1_000 } });
    const def: CheckDef = { name: 'slow', area: 'models', ids: ['MODELS-001'], title: 'slow', run: (c) => c.http.get('/v1/models').then(() => undefined) };
    const t0 = performance.now();
    const [o] = (await runCheck(def, ctx, gradeMust)) as [CheckOutcome];
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(o.verdict).toBe('undecided');
    expect(failures(o)).toMatch(/^deadline: .*the run's deadline \(--run-timeout 1 s\) passed while this check ran/);
  });

  it('durations are written the way the flags take them', () => {
    expect([formatDuration(250), formatDuration(10_000), formatDuration(1_500), formatDuration(300_000), formatDuration(90_000), formatDuration(7_200_000)]).toEqual([
      '250 ms',
      '10 s',
      '1.5 s',
      '5 min',
      '90 s',
      '2 h',
    ]);
  });
});
