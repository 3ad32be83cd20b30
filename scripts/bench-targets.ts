// One run of each real-deployment mode of `iari load`, on loopback stand-ins: plain http (the
// baseline), TLS with a private CA (--ca-file), TLS through a CONNECT proxy (HTTPS_PROXY), a
// gateway header from the environment, a synthetic token-length workload and a ShareGPT-format
// dataset, each against the bundled mock's latency model. Prints the figures and writes
// reports/bench/targets.json. Everything listens on 127.0.0.1 (IARI_LOOPBACK_ONLY=1 is set).
//
//   npx tsx scripts/bench-targets.ts [--duration=5] [--concurrency=16]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer } from '../mock-server/index.ts';
import { MOCK_LOAD_OPTIONS } from '../src/load/executors/mock-pacing.ts';
import type { LoadResult } from '../src/load/results/load-result.ts';
import { syntheticPrompt } from '../src/load/workloads/workload.ts';
import { seededRandom } from '../src/seeded-random.ts';
import { iari, makeCertificates, repoRoot, startConnectProxy, startHeaderGateway, startTlsFront } from '../suites/load/target-fixtures.ts';

process.env['IARI_LOOPBACK_ONLY'] = '1';
const arg = (name: string, def: number): number => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? def);
const duration = arg('duration', 5);
const concurrency = arg('concurrency', 16);

const dir = mkdtempSync(join(tmpdir(), 'iari-bench-targets-'));
const certs = makeCertificates(dir, []);
const mock = await startMockServer({ ...MOCK_LOAD_OPTIONS, seed: 1 });
const port = Number(new URL(mock.origin).port);
const tls = await startTlsFront(port, certs);
const proxy = await startConnectProxy();
const gateway = await startHeaderGateway(port, 'X-Org');
const env = { IARI_TOKEN: mock.tokens.default, IARI_LOOPBACK_ONLY: '1' };

// A ShareGPT-format file (no real ShareGPT here): 400 conversations of varied lengths.
const rng = seededRandom(2024);
const sharegpt = join(dir, 'sharegpt.json');
writeFileSync(
  sharegpt,
  JSON.stringify(
    Array.from({ length: 400 }, (_, i) => ({
      id: `conv-${i}`,
      conversations: [
        { from: 'human', value: syntheticPrompt(8 + Math.floor(rng() ** 2 * 900), rng) },
        { from: 'gpt', value: syntheticPrompt(8 + Math.floor(rng() * 300), rng) },
      ],
    })),
  ),
);

const common = ['--duration', `${duration}s`, '--concurrency', String(concurrency), '--model', 'iari-mini', '--quiet'];
const modes: { name: string; args: string[]; env?: Record<string, string> }[] = [
  { name: 'http (baseline, autocannon)', args: ['--base-url', `${mock.url}`] },
  { name: 'http (baseline, undici)', args: ['--base-url', `${mock.url}`, '--engine', 'undici'] },
  { name: 'https --ca-file', args: ['--base-url', `https://127.0.0.1:${tls.port}/v1`, '--ca-file', certs.caFile] },
  { name: 'https via HTTPS_PROXY', args: ['--base-url', `https://127.0.0.1:${tls.port}/v1`, '--ca-file', certs.caFile], env: { HTTPS_PROXY: proxy.url } },
  { name: 'gateway --header env:', args: ['--base-url', `http://127.0.0.1:${gateway.port}/v1`, '--header', 'X-Org: env:BENCH_ORG'], env: { BENCH_ORG: 'org-bench-000042' } },
  { name: 'synthetic 512,64 -> 128,16 + ignore_eos', args: ['--base-url', mock.url, '--input-tokens', '512,64', '--output-tokens', '128,16', '--extra-body', '{"ignore_eos":true}'] },
  { name: 'synthetic 512 -> 128, no ignore_eos', args: ['--base-url', mock.url, '--input-tokens', '512', '--output-tokens', '128'] },
  { name: 'ShareGPT dataset + ignore_eos', args: ['--base-url', mock.url, '--dataset', sharegpt, '--dataset-size', '300', '--extra-body', '{"ignore_eos":true}'] },
];

const rows: Record<string, unknown>[] = [];
try {
  for (const m of modes) {
    const report = join(dir, m.name.replace(/\W+/g, '-'));
    const t0 = Date.now();
    const out = await iari(['load', ...m.args, ...common, '--report', report], { ...env, ...(m.env ?? {}) }, 180_000);
    if (out.code !== 0) {
      rows.push({ mode: m.name, exit: out.code, stderr: out.stderr.slice(0, 400) });
      console.log(`${m.name}: exit ${out.code} ${out.stderr.slice(0, 300)}`);
      continue;
    }
    const r = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult;
    const t = r.tokens;
    const row = {
      mode: m.name,
      command: `iari load ${[...m.args, ...common].join(' ')}`,
      engine: r.meta.mode.kind === 'closed' ? r.meta.mode.engine : 'undici',
      connection: r.meta.connection,
      ok: r.counts.ok,
      errors: r.errors.total,
      rps: r.throughput.rps,
      outputTokensPerS: r.throughput.outputTokensPerS,
      ttftP50Ms: (r.metrics.ttft?.percentiles.p50 ?? 0) / 1000,
      ttftP99Ms: (r.metrics.ttft?.percentiles.p99 ?? 0) / 1000,
      itlP50Ms: (r.metrics.itl?.percentiles.p50 ?? 0) / 1000,
      promptTokensMean: t?.prompt?.mean ?? null,
      outputTokensMean: t?.output?.mean ?? null,
      promptAsked: t?.promptComparison?.askedMean ?? null,
      promptReceived: t?.promptComparison?.receivedMean ?? null,
      outputAsked: t?.outputComparison?.askedMean ?? null,
      outputReceived: t?.outputComparison?.receivedMean ?? null,
      differences: t?.differences ?? [],
      wallS: (Date.now() - t0) / 1000,
    };
    rows.push(row);
    const lengths = row.promptAsked === null && row.outputAsked === null ? '' : `  prompt asked ${row.promptAsked ?? '-'} got ${row.promptReceived ?? row.promptTokensMean}  output asked ${row.outputAsked ?? '-'} got ${row.outputReceived ?? row.outputTokensMean}`;
    console.log(`${m.name.padEnd(42)} ${row.engine.padEnd(10)} ok ${String(row.ok).padStart(5)}  err ${row.errors}  ${row.rps} rps  ttft p50 ${row.ttftP50Ms.toFixed(1)} ms p99 ${row.ttftP99Ms.toFixed(1)} ms${lengths}`);
    for (const d of row.differences) console.log(`    DIFFERS: ${d}`);
  }
  console.log(`proxy tunnels: ${proxy.tunnels.length}; gateway saw X-Org on ${gateway.seen.filter((v) => v === 'org-bench-000042').length} of ${gateway.seen.length} requests; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  mkdirSync(join(repoRoot, 'reports/bench'), { recursive: true });
  writeFileSync(join(repoRoot, 'reports/bench/targets.json'), JSON.stringify({ at: new Date().toISOString(), loadavg: loadavg(), duration, concurrency, proxyTunnels: proxy.tunnels.length, rows }, null, 2));
  console.log('wrote reports/bench/targets.json');
} finally {
  await Promise.all([tls.close(), proxy.close(), gateway.close()]);
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
}
