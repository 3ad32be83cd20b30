// How close `iari load --find-capacity` comes to the mock's known capacity, and how long it takes.
// The bundled mock runs in this process with --capacity 4 (four requests in service, the rest queue),
// fixed answers (24 tokens, 8 ms apart, TTFT 40 ms, no jitter); the search runs closed loop (truth:
// 4 streams) and open loop (truth: 4 / mean service time req/s) against ttft.p95<100ms. Loopback
// only; bounded by the search's own budget. Prints the figures and writes
// reports/bench/capacity-search.json.
//
//   npx tsx scripts/bench-capacity.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../mock-server/index.ts';
import { runCapacitySearch } from '../src/load/search/capacity-search.ts';
import type { LoadConfig, ModeConfig } from '../src/load/run-load.ts';
import { parseSlos } from '../src/load/results/slo.ts';
import { loadConfig } from '../suites/load/load-fixtures.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const slos = ['ttft.p95<100ms'];
const mock = await startMockServer({ limits: false, receipts: false, ttftMs: 40, itlMs: 8, jitterMs: 0, tokensPerChunk: 1, completionTokens: 24, capacity: 4 });
const cfg = (mode: ModeConfig, durationS: number): LoadConfig => loadConfig(mock, mode, { runId: 'bench-capacity', durationS, slos: parseSlos(slos), sloExprs: slos });
try {
  const out = [];
  for (const [name, mode, durationS] of [
    ['closed loop', { kind: 'closed', concurrency: 1, engine: 'autocannon' }, 2],
    ['open loop', { kind: 'open', rate: 4, arrival: 'constant' }, 3],
  ] as const) {
    const { result } = await runCapacitySearch(cfg(mode, durationS), { levelBoundS: 2 * durationS + 5 });
    const c = result.sweep?.capacity;
    const serviceMs = mock.core.state.serviceSlots?.meanServiceMs() ?? NaN;
    const truth = mode.kind === 'closed' ? 4 : (4 * 1000) / serviceMs;
    const found = c?.capacity ?? null;
    const error = found === null ? null : (found - truth) / truth;
    out.push({ search: name, truth: Number(truth.toFixed(3)), found, breaking: c?.breaking ?? null, relativeError: error, relativeWidth: c?.relativeWidth ?? null, tolerance: c?.tolerance, runs: result.sweep?.steps.length, levels: c?.levels.length, wallS: c?.wallS, stop: result.sweep?.stopReason });
    process.stdout.write(`${name}: truth ${truth.toFixed(2)}, found ${found} (error ${error === null ? '-' : `${(error * 100).toFixed(1)}%`}), first breaking ${c?.breaking}, ${result.sweep?.steps.length} runs, ${c?.wallS} s\n`);
  }
  mkdirSync(join(root, 'reports/bench'), { recursive: true });
  writeFileSync(join(root, 'reports/bench/capacity-search.json'), `${JSON.stringify({ slos, mock: { capacity: 4, ttftMs: 40, itlMs: 8, completionTokens: 24 }, searches: out, loadavg: loadavg() }, null, 2)}\n`);
  process.stdout.write('reports/bench/capacity-search.json\n');
} finally {
  await mock.close();
}
