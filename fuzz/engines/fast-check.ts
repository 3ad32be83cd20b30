import fc from 'fast-check';
import { execute } from '../execute.ts';
import { inputMix } from '../inputs.ts';
import { reduce } from '../reduce.ts';
import { describeError, type FuzzTarget } from '../target.ts';

export interface FastCheckRun {
  target: string;
  engine: 'fast-check';
  seconds: number;
  /** Wall time of the run (short of `seconds` when it stopped at a finding; shrinking included). */
  ranSeconds: number;
  executions: number;
  seed: number;
  /** The first input that broke an invariant, shrunk and reduced (fuzz/reduce.ts), and the seed and path that replay it (unreduced). */
  finding: { input: Uint8Array; error: string; seed: number; path: string } | null;
}

/**
 * A time-boxed fast-check run, as undici fuzzes in CI (test/fuzzing: `interruptAfterTimeLimit`,
 * `numRuns: Number.MAX_SAFE_INTEGER`): generated inputs until the time is up, the first one that
 * breaks an invariant shrunk and reported with its seed and path. No coverage feedback.
 */
export async function runFastCheck(target: FuzzTarget, seeds: readonly Uint8Array[], o: { seconds: number; seed?: number; path?: string }): Promise<FastCheckRun> {
  const seed = o.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const t0 = Date.now();
  const arbitrary = inputMix(target.valid, seeds, target.maxLen);
  const params: fc.Parameters<[Uint8Array]> = {
    seed,
    numRuns: o.path === undefined ? Number.MAX_SAFE_INTEGER : 1,
    interruptAfterTimeLimit: o.seconds * 1000,
    markInterruptAsFailure: false,
    ...(o.path === undefined ? {} : { path: o.path }),
  };
  const details =
    target.async === true
      ? await fc.check(
          fc.asyncProperty(arbitrary, async (input) => {
            await execute(target, input);
          }),
          params,
        )
      : fc.check(
          fc.property(arbitrary, (input) => {
            void execute(target, input);
          }),
          params,
        );
  const counter = details.counterexample?.[0];
  const input = details.failed && counter !== undefined ? await reduce(target, counter, { ms: 10_000 }) : undefined;
  return {
    target: target.name,
    engine: 'fast-check',
    seconds: o.seconds,
    ranSeconds: Math.round((Date.now() - t0) / 1000),
    executions: details.numRuns,
    seed,
    finding:
      input !== undefined
        ? { input, error: describeError(details.errorInstance), seed: details.seed, path: details.counterexamplePath ?? '' }
        : null,
  };
}
