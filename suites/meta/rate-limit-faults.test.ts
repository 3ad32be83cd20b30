import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../mock-server/index.ts';
import { faultByName } from '../../mock-server/faults.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import type { CheckOutcome } from '../../src/checks/context/check-types.ts';
import { createCheckContext, type RunSettings } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import { gradeOf } from '../../src/checks/registry/registry-view.ts';
import { OBSERVED_IDS } from '../../src/checks/rate-limits/rate-limit-findings.ts';
import type { RateLimitEvent } from '../../src/checks/rate-limits/rate-limit-retry.ts';

// Issue 10, part 4: a server's rate limit is judged by the LIMIT and HDR requirements only. The
// whole catalog runs with `iari test`'s default settings against a fresh mock per rate-limit fault
// (a limit lower than /v1/me reports, 429s without Retry-After, a server that never limits), on a
// fake clock that iari's waits advance; every requirement outside the fault's `breaks` keeps the
// verdict it has on the faithful mock.

interface Run {
  outcomes: Map<string, CheckOutcome>;
  events: RateLimitEvent[];
  waitedMs: number;
  progress: string[];
}

async function fullRun(fault?: string, maxRateLimitWaitMs?: number): Promise<Run> {
  let clock = Date.now();
  const mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, now: () => clock, ...(fault === undefined ? {} : { faults: [fault] }) });
  try {
    const second = mock.tokens.byAccount['acct_team'];
    const settings: RunSettings = { root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false, ...(second === undefined ? {} : { secondToken: second }), ...(maxRateLimitWaitMs === undefined ? {} : { maxRateLimitWaitMs }) };
    const progress: string[] = [];
    const ctx = createCheckContext(settings, { sleep: async (ms) => { clock += ms; }, now: () => clock, progress: (line) => progress.push(line) });
    const { outcomes } = await runChecksInProcess(ctx, catalog);
    return { outcomes, events: [...(ctx.http.rateLimits?.all ?? [])], waitedMs: ctx.http.rateLimits?.waitedMs ?? 0, progress };
  } finally {
    await mock.close();
  }
}

let baseline: Promise<Run> | undefined;
const faithful = (): Promise<Run> => (baseline ??= fullRun());
afterAll(async () => {
  await baseline;
});

/** Every verdict that differs from the faithful run, except the fault's own and the observed IDs judged for the first time. */
function changedVerdicts(run: Run, base: Run, breaks: readonly string[], notApplicable: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const [id, o] of run.outcomes) {
    const before = base.outcomes.get(id);
    if (breaks.includes(id) || o.verdict === before?.verdict) continue;
    if (notApplicable.includes(id) && o.verdict === 'skipped') continue;
    // A 429 met during the run is judged by these; without --include limits they were skipped before.
    if ((OBSERVED_IDS as readonly string[]).includes(id) && before?.verdict === 'skipped' && o.verdict === 'pass') continue;
    problems.push(`${id}: ${before?.verdict ?? 'absent'} -> ${o.verdict}${o.verdict === 'fail' || o.verdict === 'non-strict' ? ` (${o.failures[0]?.message ?? ''})` : o.verdict === 'skipped' ? ` (${o.reason})` : ''}`);
  }
  return problems;
}

function expectBroken(run: Run, breaks: readonly string[]): void {
  for (const id of breaks) {
    const o = run.outcomes.get(id);
    const grade = gradeOf(id);
    const wanted = grade === 'MUST' ? ['fail'] : grade === 'SHOULD' ? ['non-strict'] : ['informational'];
    expect(`${id} ${o?.verdict ?? 'absent'}`).toBe(`${id} ${wanted.includes(o?.verdict ?? '') ? o?.verdict : wanted.join('/')}`);
  }
}

describe('rate limits stay where they belong', { timeout: 120_000 }, () => {
  it('LIMIT-009, LIMIT-010: on the faithful mock the run meets no 429 and waits for nothing', async () => {
    const base = await faithful();
    expect(base.events).toEqual([]);
    expect(base.waitedMs).toBe(0);
    expect(base.outcomes.get('LIMIT-009')?.verdict).toBe('pass');
    expect(base.outcomes.get('LIMIT-010')?.verdict).toBe('skipped');
  });

  it('LIMIT-009: a limit lower than /v1/me reports is waited out (Retry-After) and found only by LIMIT-009, every other verdict kept', async () => {
    const def = faultByName('rate-limit-below-reported')!;
    // The whole catalog at 20 requests a minute outlasts the default 10-minute wait budget since the
    // Responses checks joined it; the budget is LIMIT-010's test (below), so this run has room for every wait.
    const run = await fullRun(def.name, 60 * 60_000);
    expect(run.events.length).toBeGreaterThan(0);
    expect(run.events.every((e) => e.wait?.basis === 'retry-after' && e.lifted !== false)).toBe(true);
    expect(run.waitedMs).toBeGreaterThan(0);
    expect(run.progress.some((l) => /^iari: 429 on POST \/v1\/chat\/completions \(Retry-After: \d+\): waiting/.test(l))).toBe(true);
    expectBroken(run, def.breaks);
    expect(run.outcomes.get('LIMIT-010')?.verdict).toBe('pass');
    expect(changedVerdicts(run, await faithful(), def.breaks)).toEqual([]);
  });

  it('LIMIT-002, LIMIT-003: 429s without Retry-After or x-ratelimit-* are backed off exponentially and found only by LIMIT-002/003, every other verdict kept', async () => {
    const def = faultByName('rate-limit-no-retry-after')!;
    const run = await fullRun(def.name);
    expect(run.events.length).toBeGreaterThan(1);
    expect(run.events.every((e) => e.wait?.basis === 'backoff')).toBe(true);
    // Consecutive 429s of one request wait longer each time (1 s, 2 s, 4 s ... with jitter).
    const firstRetries = run.events.filter((e) => e.attempt === 1).map((e) => e.wait!.ms);
    const laterRetries = run.events.filter((e) => e.attempt >= 3).map((e) => e.wait!.ms);
    expect(Math.max(...firstRetries)).toBeLessThanOrEqual(1000);
    expect(Math.min(...laterRetries)).toBeGreaterThanOrEqual(2000);
    expect(run.progress.some((l) => l.includes('(no Retry-After; exponential backoff)'))).toBe(true);
    expectBroken(run, def.breaks);
    expect(run.outcomes.get('LIMIT-009')?.verdict).toBe('pass');
    expect(run.outcomes.get('LIMIT-010')?.verdict).toBe('pass');
    expect(changedVerdicts(run, await faithful(), def.breaks)).toEqual([]);
  });

  it('LIMIT-010: a limit that never lifts is waited out until the budget is spent, fails LIMIT-010 (and LIMIT-009), and every check it kept from deciding is skipped saying so, never failed', async () => {
    const def = faultByName('rate-limit-never-lifts')!;
    const run = await fullRun(def.name);
    // LIMIT-004 needs --include limits (the fault matrix proves it); a default run leaves it skipped.
    expect(run.outcomes.get('LIMIT-004')?.verdict).toBe('skipped');
    expect(run.events.some((e) => e.lifted === false)).toBe(true);
    // The whole run's wait budget (10 min by default, on the fake clock) is spent, and no more.
    expect(run.waitedMs).toBeGreaterThan(0);
    expect(run.waitedMs).toBeLessThanOrEqual(10 * 60_000);
    expectBroken(run, ['LIMIT-010', 'LIMIT-009']);
    const lift = run.outcomes.get('LIMIT-010');
    expect(lift?.verdict === 'fail' ? lift.failures[0]?.message : lift?.verdict).toMatch(/the limit did not lift/);
    const base = await faithful();
    const keptFromDeciding = [...run.outcomes.values()].filter((o) => o.verdict === 'skipped' && base.outcomes.get(o.id)?.verdict !== 'skipped');
    expect(keptFromDeciding.length).toBeGreaterThan(0);
    for (const o of keptFromDeciding) expect(`${o.id}: ${o.verdict === 'skipped' ? o.reason : o.verdict}`).toMatch(/LIMIT-010 reports it/);
    const undecided = keptFromDeciding.map((o) => o.id);
    expect(changedVerdicts(run, base, def.breaks, undecided)).toEqual([]);
  });

  it('LIMIT-001: a server that never limits changes no verdict of a default run (its LIMIT findings need --include limits)', async () => {
    const run = await fullRun('limit-never-429');
    expect(run.events).toEqual([]);
    // Such a server sends no x-ratelimit-* headers either: their form checks have nothing to inspect.
    expect(changedVerdicts(run, await faithful(), [], ['HDR-004', 'HDR-005', 'HDR-006', 'HDR-007'])).toEqual([]);
  });
});

describe('the run keeps one clock', { timeout: 60_000 }, () => {
  it('RCPT-CHAIN-006: the served chain is verified by the run\'s clock, so waits that advance it (and the mock\'s iat) report no IAT_FUTURE', async () => {
    let clock = Date.now();
    const mock = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, now: () => clock });
    try {
      const settings: RunSettings = { root: mock.origin, token: mock.tokens.default, seed: 7, target: 'bundled-mock', includeLimits: false };
      const ctx = createCheckContext(settings, { sleep: async (ms) => { clock += ms; }, now: () => clock });
      // Ten minutes of 429 waits on the run's clock, as under rate-limit-no-retry-after, before the receipts are fetched.
      await ctx.sleep(10 * 60_000);
      const { outcomes } = await runChecksInProcess(ctx, catalog.filter((c) => c.area === 'receipts'));
      const o = outcomes.get('RCPT-CHAIN-006');
      expect(o?.verdict === 'informational' ? o.note : o?.verdict).toBe('pass');
      await ctx.close();
    } finally {
      await mock.close();
    }
  });
});
