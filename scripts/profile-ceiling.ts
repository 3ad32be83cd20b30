/**
 * One iari run at the load ceiling (the bench's set-up: 32 streams against pre-rendered 2000-token
 * streams from the child mock), for a CPU profile of both threads (issue 41):
 *   node --cpu-prof --cpu-prof-dir=reports/prof --import tsx scripts/profile-ceiling.ts [undici|autocannon] [seconds]
 * Prints the events, the rate over the run window and the CPU per event: this thread's (the engine's)
 * and the rest of the process's (the check worker's, with GC helpers).
 */
import { runLoadConfig } from '../src/load/run-load.ts';
import { startChildMock, stopChild } from './fidelity-child-mock.ts';
import { benchConfig } from './bench-load-config.ts';
import { loadavg } from 'node:os';

const engine = process.argv[2] === 'autocannon' ? 'autocannon' : 'undici';
const durationS = Number(process.argv[3] ?? 5);
const m = await startChildMock({ ttftMs: 0, itlMs: 0, jitterMs: 0, tokensPerChunk: 1, completionTokens: 2000, seed: 3 });
try {
  let startNs = 0n;
  // CPU from the run's t = 0 (the set-up before it apart, as the bench does).
  let c0 = process.cpuUsage();
  let m0 = process.threadCpuUsage();
  const { result } = await runLoadConfig(benchConfig(m, { kind: 'closed', concurrency: 32, engine }, { durationS, prompts: [[{ role: 'user', content: 'go' }]], onStart: (ns) => {
    startNs = ns;
    c0 = process.cpuUsage();
    m0 = process.threadCpuUsage();
  } }));
  const windowS = Number(process.hrtime.bigint() - startNs) / 1e9;
  const c = process.cpuUsage(c0);
  const mt = process.threadCpuUsage(m0);
  const events = result.counts.events;
  const us = (x: { user: number; system: number }): number => Math.round(((x.user + x.system) / events) * 100) / 100;
  const out = { engine, events, eventsPerS: Math.round(events / windowS), cpuUsPerEvent: us(c), mainThreadUsPerEvent: us(mt), restUsPerEvent: Math.round((us(c) - us(mt)) * 100) / 100, failed: result.counts.failed, loadavg: loadavg().map((x) => Math.round(x * 10) / 10) };
  process.stdout.write(JSON.stringify(out) + '\n');
} finally {
  await stopChild(m);
}
