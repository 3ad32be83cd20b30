/**
 * One iari run at the load ceiling (the bench's set-up: 32 streams against pre-rendered 2000-token
 * streams from the child mock), for a CPU profile of both threads (issue 41):
 *   node --cpu-prof --cpu-prof-dir=reports/prof --import tsx scripts/profile-ceiling.ts [undici|autocannon|minimal] [seconds] [check workers]
 * Prints the events, the rate over the run window and the CPU per event: this thread's (the engine's),
 * the rest of the process's (the check workers', with GC helpers), each check worker's and the other
 * threads' (from /proc, on Linux), and the bench server's (the child mock, which shares the cores).
 */
import { runLoadConfig } from '../src/load/run-load.ts';
import { startChildMock, stopChild } from './fidelity-child-mock.ts';
import { benchConfig } from './bench-load-config.ts';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';
import { loadavg } from 'node:os';
import { minimalRead } from './minimal-reader.ts';

const which = process.argv[2] ?? 'undici';
const engine = which === 'autocannon' ? 'autocannon' : 'undici';
const durationS = Number(process.argv[3] ?? 5);
// The check workers (default: the run's own choice, checkWorkerCount).
const workers = process.argv[4] === undefined ? {} : { checkWorkers: Number(process.argv[4]) };
const m = await startChildMock({ ttftMs: 0, itlMs: 0, jitterMs: 0, tokensPerChunk: 1, completionTokens: 2000, seed: 3 });
const serverPid = m.proc.pid ?? 0;
try {
  let startNs = 0n;
  // CPU from the run's t = 0 (the set-up before it apart, as the bench does).
  let c0 = process.cpuUsage();
  let m0 = process.threadCpuUsage();
  let t0 = threadCpu();
  let s0 = threadCpu(serverPid);
  // The check workers end with the run: the last reading taken while they ran is theirs.
  let last = threadCpu();
  const sampler = setInterval(() => {
    for (const [tid, v] of threadCpu()) last.set(tid, v);
  }, 100);
  const onStart = (ns: bigint): void => {
    startNs = ns;
    c0 = process.cpuUsage();
    m0 = process.threadCpuUsage();
    t0 = threadCpu();
    s0 = threadCpu(serverPid);
    last = threadCpu();
  };
  let events: number;
  if (which === 'minimal') {
    onStart(process.hrtime.bigint());
    events = await minimalRead(m, 32, durationS);
  } else events = (await runLoadConfig(benchConfig(m, { kind: 'closed', concurrency: 32, engine }, { durationS, prompts: [[{ role: 'user', content: 'go' }]], onStart, ...workers }))).result.counts.events;
  clearInterval(sampler);
  const windowS = Number(process.hrtime.bigint() - startNs) / 1e9;
  const c = process.cpuUsage(c0);
  const mt = process.threadCpuUsage(m0);
  for (const [tid, v] of threadCpu()) last.set(tid, v);
  const threads = threadCpuSince(t0, last);
  const server = threadCpuSince(s0, threadCpu(serverPid)).reduce((a, t) => a + t.s, 0);
  const us = (x: { user: number; system: number }): number => Math.round(((x.user + x.system) / events) * 100) / 100;
  const perEvent = (s: number): number => Math.round((s * 1e6 / events) * 100) / 100;
  const byName = new Map<string, number>();
  for (const t of threads) if (t.name !== 'WorkerThread') byName.set(t.name, (byName.get(t.name) ?? 0) + t.s);
  const out = {
    reader: which === 'minimal' ? 'minimal' : engine,
    events,
    eventsPerS: Math.round(events / windowS),
    cpuUsPerEvent: us(c),
    mainThreadUsPerEvent: us(mt),
    restUsPerEvent: Math.round((us(c) - us(mt)) * 100) / 100,
    checkWorkersUsPerEvent: threads.filter((t) => t.name === 'WorkerThread' && t.s > 0).map((t) => perEvent(t.s)),
    otherThreadsUsPerEvent: Object.fromEntries([...byName].filter(([n]) => n !== 'MainThread').map(([n, s]) => [n, perEvent(s)])),
    serverUsPerEvent: perEvent(server),
    loadavg: loadavg().map((x) => Math.round(x * 10) / 10),
  };
  process.stdout.write(JSON.stringify(out) + '\n');
} finally {
  await stopChild(m);
}
