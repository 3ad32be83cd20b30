import { startMockServer, type MockServer, type MockServerOptions } from '../../mock-server/index.ts';
import { builtinPrompts } from '../../src/load/workloads/prompts.ts';
import type { LoadConfig, ModeConfig } from '../../src/load/run-load.ts';
import type { SentEvent } from '../../test-support/load-fidelity.ts';
import { parseCancelAfter, type CancelPlan } from '../../src/load/executors/cancellation.ts';
import type { ServerMetricsOptions } from '../../src/server-metrics/session.ts';

/** The bundled mock with rate limits off and a fixed, jitter-free schedule. */
export function startLoadMock(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer({ limits: false, receipts: false, ttftMs: 50, itlMs: 10, jitterMs: 0, tokensPerChunk: [1, 2], completionTokens: 12, seed: 7, ...options });
}

export function loadConfig(mock: MockServer, mode: ModeConfig, over: Partial<LoadConfig> = {}): LoadConfig {
  return serverLoadConfig({ baseUrl: mock.url, token: mock.tokens.default, model: mock.admin.models().available[0] ?? 'unknown', target: 'bundled-mock' }, mode, over);
}

/** A short, seeded run against any server (a test's own, or the mock). */
export function serverLoadConfig(server: Pick<LoadConfig, 'baseUrl' | 'token' | 'model' | 'target'>, mode: ModeConfig, over: Partial<LoadConfig> = {}): LoadConfig {
  return {
    runId: 'test',
    ...server,
    mode,
    durationS: 1,
    requests: null,
    warmupS: 0,
    maxTokens: 64,
    stream: true,
    prompts: builtinPrompts.map((p) => [...p]),
    promptsSource: 'builtin',
    seed: 1,
    timeoutMs: 10_000,
    slos: [],
    sloExprs: [],
    shard: null,
    ...over,
  };
}

export function sendLogLookup(mock: MockServer): (id: string) => SentEvent[] | undefined {
  return (id) => mock.sendLog.get(id)?.events;
}

/** --cancel-rate RATE --cancel-after TEXT as a run's plan (a text that does not parse cuts at decode). */
export function cancelPlan(rate: number, text: string): CancelPlan {
  return { rate, after: parseCancelAfter(text) ?? { kind: 'decode' }, text };
}

/** --server-metrics at its default: the target's /metrics every 500 ms. */
export const serverMetricsDefault: ServerMetricsOptions = { url: null, headers: [], intervalMs: 500 };
