// The library form of `iari load`: the same engines, metrics and SLO verdicts, options named as the
// CLI's flags (camelCase) and validated by the same code, without terminal output or report files.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { planFromFlags } from '../load/load-options.ts';
import type { LoadResult, RequestRecord } from '../load/load-result.ts';
import { runLoad as runEngine } from '../load/run-load.ts';
import { newRunId } from '../report/run-dir.ts';
// The bundled mock's pacing for load runs is the CLI's, so both measure the same server.
import { MOCK_LOAD_OPTIONS } from '../load/mock-pacing.ts';
import { firstModel } from '../load/first-model.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

export interface LoadOptions {
  /** Server to load, with or without `/v1`, accepted or refused as `iari load --base-url` does. Absent: the bundled mock with realistic pacing. */
  baseUrl?: string;
  /** Bearer token for `baseUrl` (required with it). */
  token?: string;
  /** Model to request (default: the first one GET /v1/models lists). */
  model?: string;
  /** Closed loop: this many requests in flight (default 8). */
  concurrency?: number;
  /** Open loop: arrivals per second (exclusive with `concurrency`). */
  rate?: number;
  arrival?: 'constant' | 'poisson';
  engine?: 'autocannon' | 'undici';
  /** Measured time, e.g. `'10s'` (default 10 s unless `requests` is given). */
  duration?: string;
  /** Stop after this many requests instead of a duration. */
  requests?: number;
  /** Unmeasured warmup before the window, e.g. `'2s'`. */
  warmup?: string;
  /** Idle timeout of one request, reset on every byte, e.g. `'30s'` (default 30 s). */
  timeout?: string;
  /** Total deadline of one request, body included, e.g. `'2m'` (default 120 s), as `--request-timeout`. */
  requestTimeout?: string;
  maxTokens?: number;
  /** Streamed requests (default true). */
  stream?: boolean;
  /** JSONL or ShareGPT prompts file (default: built-in prompts). */
  prompts?: string;
  /** Thresholds such as `'ttft.p95<800ms'`; a breach sets `slosPassed` false. */
  slo?: readonly string[];
  seed?: number;
  /** Stops the run early; the result covers what was measured. */
  signal?: AbortSignal;
}

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
  const str = (n: number | undefined): string | undefined => (n === undefined ? undefined : String(n));
  const flags = {
    model: options.model,
    concurrency: str(options.concurrency),
    rate: str(options.rate),
    arrival: options.arrival,
    engine: options.engine,
    duration: options.duration,
    requests: str(options.requests),
    warmup: options.warmup,
    timeout: options.timeout,
    'request-timeout': options.requestTimeout,
    'max-tokens': str(options.maxTokens),
    'no-stream': options.stream === false ? true : undefined,
    prompts: options.prompts,
    slo: options.slo === undefined ? undefined : [...options.slo],
    seed: str(options.seed),
  };
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  // The CLI's own validation of every option, the base URL and the token included; the token is
  // handed over as it is, never through flag strings or the environment.
  const plan = planFromFlags(options.baseUrl === undefined ? given : { ...given, 'base-url': options.baseUrl }, options.baseUrl === undefined ? { who: 'runLoad' } : { token: options.token ?? '', who: 'runLoad' });
  const target = plan.baseUrl === null || plan.token === null ? undefined : { v1: plan.baseUrl, token: plan.token };
  let mock: MockServer | undefined;
  try {
    if (target === undefined) mock = await startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed });
    const baseUrl = target?.v1 ?? mock!.url;
    return await runEngine({
      ...plan,
      runId: newRunId(),
      baseUrl,
      token: target?.token ?? mock!.tokens.default,
      model: plan.model ?? (await firstModel('runLoad', baseUrl, target?.token ?? mock!.tokens.default)),
      target: mock === undefined ? 'external' : 'bundled-mock',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } finally {
    await mock?.close();
  }
}
