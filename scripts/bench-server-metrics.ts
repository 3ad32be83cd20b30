/**
 * What `--server-metrics` costs the load ceiling (issue 28: under 2%), and writes
 * reports/bench/server-metrics-cost.json.
 *
 *   npx tsx scripts/bench-server-metrics.ts               12 pairs (under 5 minutes: 2.5 on a quiet machine)
 *   npx tsx scripts/bench-server-metrics.ts --pairs 30    more pairs, a narrower interval
 *   options: --pairs N (2..200), --duration S (1..60, seconds per run, default 4),
 *            --streams N (connections, default 32), --tokens N (one-token events per stream, default 2000),
 *            --interval MS (the scrape interval, default 500); `--streams 64 --tokens 20` runs short
 *            streams (request setup dominates), the other end of the ceiling
 *
 * The ceiling bench of scripts/bench-load.ts (closed loop on undici against the child-process mock:
 * 32 connections, streams of 2,000 one-token events, no pacing) run in pairs, once without
 * `--server-metrics` and once with it reading the mock's /metrics every 500 ms, in the same process
 * and against the same mock. The order alternates by pair (A B, B A, A B, ...) so that a drift of the
 * shared machine falls on both arms alike. Each pair gives a ratio with/without of events/s; the
 * figure is the mean of the log ratios with its 95% t interval, as a cost 1 - ratio. Beside it, the
 * same for this process's CPU per event (main thread and check worker), which other load on the
 * machine moves less than events/s. The load average is read before and after every run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { runLoadConfig, type LoadConfig } from '../src/load/run-load.ts';
import { tInterval } from '../src/statistics.ts';
import { startChildMock, stopChild, type MockHandle } from './fidelity-child-mock.ts';
import { benchConfig } from './bench-load-config.ts';

interface Options {
  pairs: number;
  durationS: number;
  streams: number;
  tokens: number;
  intervalMs: number;
}

function intFlag(argv: readonly string[], name: string, fallback: number, min: number, max: number): number {
  const i = argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const raw = argv[i + 1];
  const v = Number(raw);
  if (raw === undefined || !Number.isInteger(v) || v < min || v > max) {
    process.stderr.write(`bench-server-metrics: --${name} must be a whole number from ${min} to ${max}, got ${raw ?? 'nothing'}\n`);
    process.exit(2);
  }
  return v;
}

function options(argv: readonly string[]): Options {
  return {
    pairs: intFlag(argv, 'pairs', 12, 2, 200),
    durationS: intFlag(argv, 'duration', 4, 1, 60),
    streams: intFlag(argv, 'streams', 32, 1, 1024),
    tokens: intFlag(argv, 'tokens', 2000, 1, 100_000),
    intervalMs: intFlag(argv, 'interval', 500, 100, 60_000),
  };
}

function config(m: MockHandle, o: Options, scraped: boolean): LoadConfig {
  return benchConfig(m, { kind: 'closed', concurrency: o.streams, engine: 'undici' }, {
    runId: 'bench-server-metrics',
    durationS: o.durationS,
    maxTokens: o.tokens * 2,
    prompts: [[{ role: 'user', content: 'go' }]],
    ...(scraped ? { serverMetrics: { url: null, headers: [], intervalMs: o.intervalMs } } : {}),
  });
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const load1 = (): number => Math.round((loadavg()[0] ?? 0) * 100) / 100;

interface Run {
  scraped: boolean;
  eventsPerS: number;
  /** CPU of this process (main thread and check worker) per event: less sensitive to other load than events/s. */
  cpuUsPerEvent: number;
  scrapes: number | null;
  loadBefore: number;
  loadAfter: number;
}

async function one(m: MockHandle, o: Options, scraped: boolean): Promise<Run> {
  const loadBefore = load1();
  const c0 = process.cpuUsage();
  const { result } = await runLoadConfig(config(m, o, scraped));
  const c = process.cpuUsage(c0);
  // Events over the measured window (the run's own clock), not over setup and priming.
  const eventsPerS = result.counts.events / Math.max(0.001, result.meta.measureEndEpochMs / 1000 - result.meta.measureStartEpochMs / 1000);
  return { scraped, eventsPerS: Math.round(eventsPerS), cpuUsPerEvent: Math.round(((c.user + c.system) / Math.max(1, result.counts.events)) * 1000) / 1000, scrapes: result.server?.scrapes.ok ?? null, loadBefore, loadAfter: load1() };
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const t0 = Date.now();
  const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
  const m = await startChildMock({ ttftMs: 0, itlMs: 0, jitterMs: 0, tokensPerChunk: 1, completionTokens: o.tokens, seed: 3 });
  const runs: Run[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  try {
    // Two runs of each, unrecorded: the first runs of a process pay for compiling the paths (the
    // first three 1 s runs here gave 175k, 286k and 412k events/s).
    for (const scraped of [false, true, false, true]) await one(m, o, scraped);
    for (let k = 0; k < o.pairs; k++) {
      const order = k % 2 === 0 ? [false, true] : [true, false];
      const pair: Run[] = [];
      for (const scraped of order) pair.push(await one(m, o, scraped));
      runs.push(...pair);
      const without = pair.find((r) => !r.scraped) as Run;
      const withIt = pair.find((r) => r.scraped) as Run;
      ratios.push(withIt.eventsPerS / without.eventsPerS);
      cpuRatios.push(withIt.cpuUsPerEvent / without.cpuUsPerEvent);
      process.stdout.write(`pair ${k + 1}/${o.pairs}: without ${without.eventsPerS} events/s (${without.cpuUsPerEvent} µs CPU/event), with ${withIt.eventsPerS} (${withIt.cpuUsPerEvent}; ${withIt.scrapes ?? 0} reads), ratio ${r3(withIt.eventsPerS / without.eventsPerS)}, load ${without.loadBefore}-${withIt.loadAfter}\n`);
    }
  } finally {
    await stopChild(m);
  }
  const logs = tInterval(ratios.map((r) => Math.log(r)));
  const ratio = { mean: r3(Math.exp(logs.mean)), low: r3(Math.exp(logs.low)), high: r3(Math.exp(logs.high)) };
  const cost = { mean: r3(1 - ratio.mean), low: r3(1 - ratio.high), high: r3(1 - ratio.low) };
  // CPU per event with/without - 1: the scrape's share of the work per event.
  const cpuLogs = tInterval(cpuRatios.map((r) => Math.log(r)));
  const cpuCost = { mean: r3(Math.exp(cpuLogs.mean) - 1), low: r3(Math.exp(cpuLogs.low) - 1), high: r3(Math.exp(cpuLogs.high) - 1) };
  const loads = runs.flatMap((r) => [r.loadBefore, r.loadAfter]);
  const figures = {
    when: new Date().toISOString(),
    host: { node: process.version, cpus: cpus().length },
    options: o,
    order: 'pairs alternate A B / B A (A: without --server-metrics, B: with)',
    runs,
    ratioWithOverWithout: ratio,
    cost,
    cpuPerEventCost: cpuCost,
    target: '< 0.02',
    verdict: cost.high < 0.02 ? 'under 2% (the interval is below it)' : cost.low >= 0.02 ? 'at or over 2% (the interval is above it)' : 'undecided: the interval spans 2% (more pairs, or a quieter machine)',
    loadavg: { atStart: loadAtStart, duringMin: Math.min(...loads), duringMax: Math.max(...loads), atEnd: loadavg().map((x) => Math.round(x * 100) / 100) },
    elapsedS: Math.round((Date.now() - t0) / 100) / 10,
  };
  mkdirSync('reports/bench', { recursive: true });
  writeFileSync('reports/bench/server-metrics-cost.json', JSON.stringify(figures, null, 2) + '\n');
  process.stdout.write(
    `\n--server-metrics cost on the ceiling (${o.pairs} pairs, ${o.streams} streams of ${o.tokens} events, ${o.durationS} s each, reads every ${o.intervalMs} ms):\n` +
      `  events/s ratio with/without ${ratio.mean} (95% ${ratio.low}..${ratio.high}); cost ${(cost.mean * 100).toFixed(1)}% (95% ${(cost.low * 100).toFixed(1)}%..${(cost.high * 100).toFixed(1)}%): ${figures.verdict}\n` +
      `  CPU per event with/without - 1: ${(cpuCost.mean * 100).toFixed(1)}% (95% ${(cpuCost.low * 100).toFixed(1)}%..${(cpuCost.high * 100).toFixed(1)}%)\n` +
      `  load average (1 min) ${figures.loadavg.duringMin}..${figures.loadavg.duringMax} during the runs, ${loadAtStart.join(' / ')} at start; ${figures.elapsedS} s\n` +
      `wrote reports/bench/server-metrics-cost.json\n`,
  );
}

await main();
