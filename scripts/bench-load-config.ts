// The run config of the load benches (scripts/bench-load.ts, scripts/bench-server-metrics.ts)
// against the child-process mock: no warmup, streamed, seeded, no SLOs.
import { builtinPrompts } from '../src/load/workloads/prompts.ts';
import type { LoadConfig, ModeConfig } from '../src/load/run-load.ts';
import type { MockHandle } from './fidelity-child-mock.ts';

export function benchConfig(m: MockHandle, mode: ModeConfig, over: Partial<LoadConfig>): LoadConfig {
  return {
    runId: 'bench',
    baseUrl: m.url,
    token: m.token,
    model: m.model,
    target: 'bundled-mock',
    mode,
    durationS: 5,
    requests: null,
    warmupS: 0,
    maxTokens: 4096,
    stream: true,
    prompts: builtinPrompts.map((p) => [...p]),
    promptsSource: 'builtin',
    seed: 1,
    timeoutMs: 30_000,
    slos: [],
    sloExprs: [],
    shard: null,
    ...over,
  };
}
