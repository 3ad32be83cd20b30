import { startVitest } from 'vitest/node';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { basename } from 'node:path';
import { areas } from './check-types.ts';
import type { CheckRun } from './conformance-results.ts';
import type { ContractProvide } from './contract-runtime.ts';
import { idsInTitle } from './contract-runtime.ts';
import type { CheckOutcome } from './check-types.ts';
import { CONTRACT_SUITES, FROM_SOURCE, packagePath, packageUrl } from '../package-root.ts';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_MS } from './rate-limit-retry.ts';

const projectRoot = packagePath('.');
// From source, the worker strips types from iari's own modules with these hooks (scripts/ts-hooks.mjs); from dist/ they are JS already.
const workerExecArgv = FROM_SOURCE ? ['--import', packageUrl('scripts/register-ts.mjs').href] : [];

/** Orders the contract suite files by their area's place in `areas` (check-types.ts). */
class AreaOrder {
  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }
  sort(files: TestSpecification[]): TestSpecification[] {
    const rank = (f: TestSpecification): number => {
      const name = basename(f.moduleId).split('.')[0] ?? '';
      const i = (areas as readonly string[]).indexOf(name);
      return i < 0 ? areas.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

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
  if (meta !== undefined) return { title: tc.name, ids, outcomes: meta.outcomes, durationMs: meta.durationMs, ...(meta.discovered === undefined ? {} : { discovered: meta.discovered }), ...(meta.capabilities === undefined ? {} : { capabilities: meta.capabilities }) };
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
  // Backstop behind the per-check deadlines (check-runner.ts): a run still going 30 s after the
  // run's deadline (stuck outside any check) is cancelled; its unreported tests count as not run.
  let backstop: NodeJS.Timeout | undefined;
  const runDeadline = options.provide.settings.runDeadline;
  const collector: Reporter = {
    onInit(vitest) {
      if (runDeadline === undefined) return;
      backstop = setTimeout(() => {
        errors.push(`the run was cancelled 30 s after its deadline (--run-timeout)`);
        void vitest.cancelCurrentRun('keyboard-input');
      }, Math.max(0, runDeadline.at - Date.now()) + 30_000);
      backstop.unref();
    },
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
      // The worker loads iari's own modules with Node and the project's type-stripping hooks, not
      // through vite's transform in this process: that transform (oxc, native) held about 100 MiB
      // here for the rest of the run. Only the generated suite files themselves go through vite.
      execArgv: workerExecArgv,
      server: { deps: { external: [/\/src\//, /\/mock-server\//] } },
      maxWorkers: 1,
      isolate: false,
      fileParallelism: false,
      // The runner's own per-check timeout fails a slow check first; this only catches a stuck test.
      // Waiting out a rate limit does not spend a check's budget (check-runner.ts), so it extends this too.
      testTimeout: Math.max(options.provide.settings.checkTimeoutMs ?? 20_000, 150_000) + 30_000 + (options.provide.settings.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS),
      hookTimeout: 30_000,
      passWithNoTests: false,
      // Area by area in the catalog's order (vitest's own puts the largest file first): the bounds first.
      sequence: { sequencer: AreaOrder },
      provide: { iari: options.provide },
    },
    {},
    { stdout: process.stderr, stderr: process.stderr },
  );
  await vitest.close();
  clearTimeout(backstop);
  // vitest sets process.exitCode when a test fails; the verdicts, not vitest, decide iari's exit code.
  process.exitCode = previousExitCode;
  return { runs, errors };
}
