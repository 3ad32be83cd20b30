// The library form of `iari load`: the same engines, metrics and SLO verdicts, options named as the
// CLI's flags (camelCase) and validated by the same code, without terminal output or report files.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { normalizeBaseUrl } from '../client/base-url.ts';
import { isLoopbackHost, planFromFlags } from '../load/load-options.ts';
import type { LoadResult, RequestRecord } from '../load/load-result.ts';
import { runLoad as runEngine } from '../load/run-load.ts';
import { newRunId } from '../report/run-dir.ts';
// The bundled mock's pacing for load runs is the CLI's, so both measure the same server.
import { MOCK_LOAD_OPTIONS } from '../cli/load-command.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

export interface LoadOptions {
  /** Server to load (loopback only, as `iari load`), with or without `/v1`. Absent: the bundled mock with realistic pacing. */
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
  /** Per-request timeout, e.g. `'30s'`. */
  timeout?: string;
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

async function firstModel(v1: string): Promise<string> {
  const res = await fetch(`${v1}/models`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { data?: { id?: unknown }[] };
  const id = body.data?.[0]?.id;
  if (res.status !== 200 || typeof id !== 'string') {
    throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `runLoad: cannot pick a model: GET /v1/models answered ${res.status} without a model id`, { hint: 'pass model' });
  }
  return id;
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
    'max-tokens': str(options.maxTokens),
    'no-stream': options.stream === false ? true : undefined,
    prompts: options.prompts,
    slo: options.slo === undefined ? undefined : [...options.slo],
    seed: str(options.seed),
  };
  const plan = planFromFlags(Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)));
  let target: { v1: string; token: string } | undefined;
  if (options.baseUrl !== undefined) {
    const n = normalizeBaseUrl(options.baseUrl);
    const host = new URL(n.origin).hostname;
    if (!isLoopbackHost(host)) {
      throw new HarnessError(HarnessErrorCode.TARGET_NOT_LOOPBACK, `runLoad: refusing to send load to ${host}: only loopback targets (127.0.0.0/8, ::1, localhost) are allowed`);
    }
    if (options.token === undefined || options.token.trim() === '') throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, 'runLoad: a baseUrl needs a token');
    target = { v1: n.v1, token: options.token.trim() };
  }
  let mock: MockServer | undefined;
  try {
    if (target === undefined) mock = await startMockServer({ ...MOCK_LOAD_OPTIONS, seed: plan.seed });
    const baseUrl = target?.v1 ?? mock!.url;
    return await runEngine({
      ...plan,
      runId: newRunId(),
      baseUrl,
      token: target?.token ?? mock!.tokens.default,
      model: plan.model ?? (await firstModel(baseUrl)),
      target: mock === undefined ? 'external' : 'bundled-mock',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } finally {
    await mock?.close();
  }
}
