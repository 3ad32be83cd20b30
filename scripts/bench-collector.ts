/**
 * The load result's hot path: N measured requests of 32 token events through the Collector (every
 * result section's collect) and buildResult (every section's build), in CPU time per finished
 * request (this process's user + system, which other load on a shared machine moves less than the
 * wall clock). Prints one JSON line, the median and every round, and writes it to
 * reports/bench/collector-<the tree's folder name>.json.
 *
 *   npx tsx scripts/bench-collector.ts                       this tree
 *   npx tsx scripts/bench-collector.ts --root /tmp/main      another checkout's sources (main against a branch:
 *                                                            alternate the two, A B A B A B, and give the load average)
 *   options: --requests N (default 100000), --rounds N (default 5)
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { basename, resolve } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const root = resolve(arg('root', '.'));
const requests = Number(arg('requests', '100000'));
const rounds = Number(arg('rounds', '5'));
const from = (path: string): string => pathToFileURL(resolve(root, path)).href;

const { Collector } = (await import(from('src/load/results/collector.ts'))) as typeof import('../src/load/results/collector.ts');
const { buildResult } = (await import(from('src/load/results/result-builder.ts'))) as typeof import('../src/load/results/result-builder.ts');
const { sampleLoadResult } = (await import(from('test-support/sample-load-result.ts'))) as typeof import('../test-support/sample-load-result.ts');

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));
const events = (seq: number) => Array.from({ length: 32 }, (_, k) => ({ atNs: ms(120 + seq / 1000 + k), tokens: 1 }));

function round(): number {
  const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: [], shard: null });
  const timings = Array.from({ length: 1000 }, (_, i) => events(i));
  const start = process.cpuUsage();
  for (let seq = 0; seq < requests; seq++) {
    const at = 100 + seq / 1000;
    c.onStart(ms(at));
    c.onFinish({ seq, intendedNs: ms(at), sentNs: ms(at), headersNs: ms(at + 5), endNs: ms(at + 60), status: 200, requestId: null, tokenEvents: timings[seq % 1000] ?? [], outputTokens: 32, promptTokens: 24, tokenSource: 'usage', events: 34, error: null, abortedAtEnd: false });
  }
  const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_000_000 + requests };
  buildResult({ meta, collector: c, slos: [], shard: null });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / requests;
}

round();
const perRequestUs = Array.from({ length: rounds }, round);
const sorted = [...perRequestUs].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
const line = JSON.stringify({ root, requests, rounds, cpuUsPerRequestMedian: Math.round(median * 100) / 100, rounds_us: perRequestUs.map((x) => Math.round(x * 100) / 100), loadavg: loadavg().map((x) => Math.round(x * 10) / 10) });
console.log(line);
mkdirSync('reports/bench', { recursive: true });
writeFileSync(`reports/bench/collector-${basename(root)}.json`, line + '\n');
