// The library form of `iari load` with flat options: the same engines, metrics and SLO verdicts,
// options named as the CLI's flags (camelCase) and validated by the same code, without terminal
// output or report files; a thin wrapper over the one entry, runPlan (run-scenario.ts).
import type { LoadResult, RequestRecord } from '../load/results/load-result.ts';
import { validateLoadOptions, type LoadOptions } from '../load/plan/load-options.ts';
import { LOAD_OPTION_KEYS, RUN_LOAD_NAMES } from '../load/plan/load-option-names.ts';
import { effectiveScenario } from '../load/plan/effective-scenario.ts';
import { refuseUnknownKeys } from '../option-keys.ts';
import { runPlan } from './run-scenario.ts';

export type { LoadOptions } from '../load/plan/load-options.ts';

export interface LoadOutcome {
  /** The same object `iari load --json` prints (load.json). */
  result: LoadResult;
  /** One record per measured request. */
  records: RequestRecord[];
}

/**
 * Runs a load test (default: 10 s at concurrency 8 against the bundled mock) and returns its metrics and SLO verdicts.
 *
 * @example
 * const { result } = await runLoad({ rate: 20, arrival: 'poisson', duration: '30s', slo: ['ttft.p95<800ms'] });
 * console.log(result.slosPassed);
 */
export async function runLoad(options: LoadOptions = {}): Promise<LoadOutcome> {
  // The one validator `iari load` calls too, on the typed options as given: every rule, default and
  // deadline of the CLI, messages naming the option (`runLoad: rate must be ...`), the token never
  // through the environment. Then the one entry every shell runs through (run-scenario.ts).
  refuseUnknownKeys('runLoad', options, LOAD_OPTION_KEYS);
  const plan = validateLoadOptions(options, RUN_LOAD_NAMES);
  const { token: _token, signal, ...given } = options;
  const { result, records } = await runPlan(plan, RUN_LOAD_NAMES, effectiveScenario(given, {}, plan), signal === undefined ? {} : { signal });
  return { result, records };
}
