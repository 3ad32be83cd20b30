// The library form of `iari load`: the same engines, metrics and SLO verdicts, options named as the
// CLI's flags (camelCase) and validated by the same code, without terminal output or report files.
import type { LoadResult, RequestRecord } from '../load/results/load-result.ts';
import { runLoad as runEngine } from '../load/run-load.ts';
import { newRunId } from '../report/run-dir.ts';
// The bundled mock's pacing for load runs is the CLI's, so both measure the same server.
import { MOCK_LOAD_OPTIONS } from '../load/executors/mock-pacing.ts';
import { firstModel } from '../load/plan/first-model.ts';
import { resolveWorkload } from '../load/plan/workload-options.ts';
import { validateLoadOptions, type LoadOptions } from '../load/plan/load-options.ts';
import { LOAD_OPTION_KEYS, RUN_LOAD_NAMES } from '../load/plan/load-option-names.ts';
import { refuseUnknownKeys } from '../option-keys.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

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
  // through the environment.
  refuseUnknownKeys('runLoad', options, LOAD_OPTION_KEYS);
  const plan = validateLoadOptions(options, RUN_LOAD_NAMES);
  const target = plan.baseUrl === null || plan.token === null ? undefined : { v1: plan.baseUrl, token: plan.token };
  let mock: MockServer | undefined;
  try {
    if (target === undefined) mock = await startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed });
    const baseUrl = target?.v1 ?? mock!.url;
    // Datasets and traces are read (and refused, exit-2 errors) before any traffic, as the CLI does.
    const workload = await resolveWorkload(plan.workloadPlan, plan.seed, RUN_LOAD_NAMES);
    return await runEngine({
      ...plan,
      ...(workload === undefined ? {} : { workload }),
      runId: newRunId(),
      baseUrl,
      token: target?.token ?? mock!.tokens.default,
      model: plan.model ?? (await firstModel('runLoad', baseUrl, target?.token ?? mock!.tokens.default, plan.connection)),
      target: mock === undefined ? 'external' : 'bundled-mock',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } finally {
    await mock?.close();
  }
}
