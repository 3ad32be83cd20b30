import { startVitest } from 'vitest/node';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CheckRun } from './conformance-results.ts';
import type { ContractProvide } from './contract-runtime.ts';
import { idsInTitle } from './contract-runtime.ts';
import type { CheckOutcome } from './check-types.ts';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_MS } from './rate-limit-retry.ts';
import { CONTRACT_SUITES, packagePath } from '../package-root.ts';

const projectRoot = packagePath('.');

export interface ContractRunOutput {
  runs: CheckRun[];
  /** Errors outside tests (a suite that failed to load, an unhandled rejection), redacted. */
  errors: string[];
}

/** Turns one finished test case into a check run; a test that left no outcomes fails all its IDs. */
export function checkRunOfTestCase(tc: TestCase, redact: (s: string) => string): CheckRun {
  const meta = tc.meta().iari;
  const ids = idsInTitle(tc.name);
  const durationMs = Math.round(tc.diagnostic()?.duration ?? 0);
  if (meta !== undefined) return { title: tc.name, ids, outcomes: meta.outcomes, durationMs: meta.durationMs, ...(meta.discovered === undefined ? {} : { discovered: meta.discovered }) };
  const result = tc.result();
  const message =
    result.state === 'failed'
      ? redact((result.errors ?? []).map((e) => e.message).join('; ') || 'the test failed before its check ran')
      : `the test did not run (${result.state})`;
  const outcomes: CheckOutcome[] = ids.map((id) => ({ id, verdict: 'fail', failures: [{ message }] }));
  return { title: tc.name, ids, outcomes, durationMs };
}

/**
 * Runs the contract suites through vitest's node API: one worker, files one after another and
 * module state shared between them (so the per-run request cache and the throttle are shared),
 * the run settings passed in memory through `provide` (never argv, env files or disk).
 */
export async function runContractSuites(options: {
  provide: ContractProvide;
  files?: string[];
  onResult?: (run: CheckRun, done: number, total: number) => void;
}): Promise<ContractRunOutput> {
  const redact = (s: string): string => {
    const t = options.provide.settings.token;
    return t.length === 0 ? s : s.split(t).join('$IARI_TOKEN');
  };
  const runs: CheckRun[] = [];
  const errors: string[] = [];
  let total = 0;
  const collector: Reporter = {
    onTestModuleCollected(mod: TestModule) {
      for (const _ of mod.children.allTests()) total += 1;
    },
    onTestCaseResult(tc: TestCase) {
      const run = checkRunOfTestCase(tc, redact);
      runs.push(run);
      options.onResult?.(run, runs.length, Math.max(total, runs.length));
    },
    onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled) {
      for (const m of modules) for (const e of m.errors()) errors.push(redact(`${m.moduleId}: ${e.message}`));
      for (const e of unhandled) errors.push(redact(e.message));
    },
  };
  const previousExitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    options.files ?? [],
    {
      config: false,
      root: projectRoot,
      watch: false,
      reporters: [collector],
      include: [CONTRACT_SUITES.include],
      exclude: ['node_modules/**'],
      pool: 'forks',
      maxWorkers: 1,
      isolate: false,
      fileParallelism: false,
      // The runner's own per-check timeout fails a slow check first; this only catches a stuck test.
      // Waiting out a rate limit does not spend a check's budget (check-runner.ts), so it extends this too.
      testTimeout: Math.max(options.provide.settings.checkTimeoutMs ?? 20_000, 150_000) + 30_000 + (options.provide.settings.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS),
      hookTimeout: 30_000,
      passWithNoTests: false,
      provide: { iari: options.provide },
    },
    {},
    { stdout: process.stderr, stderr: process.stderr },
  );
  await vitest.close();
  // vitest sets process.exitCode when a test fails; the verdicts, not vitest, decide iari's exit code.
  process.exitCode = previousExitCode;
  return { runs, errors };
}
