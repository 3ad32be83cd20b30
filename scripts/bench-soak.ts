/**
 * Soak benchmark (issue 14): the bundled mock, in its own process with Receipts on, serves at least
 * 1,000,000 requests while its resident memory is sampled from /proc every few seconds. The target
 * is a flat plateau: the peak RSS of the run's last quarter within 10% of the first quarter's
 * (docs/mock-receipts.md, Memory: each chain keeps its last 10,000 Receipts in memory).
 *
 *   npx tsx scripts/bench-soak.ts [--requests 1000000] [--connections 32] [--sample-s 3] [--ledger FILE]
 *
 * Prints the figures and writes reports/bench/soak.json. The load comes from autocannon in this
 * process (non-streaming completions of 4 tokens, rate limits off), so the mock is the bottleneck.
 * The load side's own soak (iari load's records and slices, no network): scripts/bench-soak-records.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHAT_COMPLETIONS_ROUTE } from '../src/protocols/chat-completions/chat-request.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    connections: { type: 'string', default: '32' },
    'sample-s': { type: 'string', default: '3' },
    ledger: { type: 'string' },
    retention: { type: 'string' },
  },
});
const total = Number(values.requests);
const connections = Number(values.connections);
const sampleMs = Number(values['sample-s']) * 1000;
const TOKEN = 'iari_sk_soak_benchmark_token_01';

const require = createRequire(import.meta.url);
type Instance = { on(e: 'response', f: () => void): void; stop(): void };
const autocannon = require('autocannon') as (o: Record<string, unknown>, cb: (err: unknown, r: { requests: { total: number }; errors: number; non2xx: number }) => void) => Instance;

function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]) / 1024;
}

// The mock from source through the type-stripping hooks (no tsx in its memory), limits off, no latency.
const args = ['--import', join(root, 'scripts/register-ts.mjs'), join(root, 'src/cli/entry.ts'), 'mock', '--port', '0', '--no-limits', '--ttft', '0', '--itl', '0', '--jitter', '0', '--seed', '1'];
if (values.ledger !== undefined) args.push('--ledger', values.ledger);
if (values.retention !== undefined) args.push('--receipt-retention', values.retention);
const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, IARI_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error('the mock did not start within 60 s')), 60_000);
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^(http:\/\/\S+\/v1)$/m.exec(out);
    if (m?.[1] !== undefined) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
});
child.stdout.resume();
const pid = child.pid as number;

const samples: { tS: number; requests: number; rssMiB: number }[] = [];
let done = 0;
const t0 = performance.now();
const sample = (): void => {
  samples.push({ tS: (performance.now() - t0) / 1000, requests: done, rssMiB: rssMiB(pid) });
  const s = samples.at(-1)!;
  process.stdout.write(`\r${s.tS.toFixed(0).padStart(5)} s  ${s.requests.toLocaleString('en-US').padStart(10)} requests  ${s.rssMiB.toFixed(1).padStart(7)} MiB   `);
};
sample();
const timer = setInterval(sample, sampleMs);
const body = JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'soak' }], max_tokens: 4 });
const result = await new Promise<{ requests: { total: number }; errors: number; non2xx: number }>((resolve, reject) => {
  const inst = autocannon(
    {
      url: `${url}${CHAT_COMPLETIONS_ROUTE}`,
      method: 'POST',
      connections,
      amount: total,
      timeout: 30,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
    },
    (err, r) => (err === null || err === undefined ? resolve(r) : reject(err as Error)),
  );
  inst.on('response', () => done++);
});
clearInterval(timer);
sample();
process.stdout.write('\n');

const receipts = (await (await fetch(`${url}/receipts`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { omitted?: number; data: unknown[]; head: string };
child.kill('SIGTERM');

const durationS = samples.at(-1)!.tS;
const quarter = (k: number) => samples.filter((s) => s.tS >= (durationS * k) / 4 && s.tS <= (durationS * (k + 1)) / 4);
const peak = (xs: typeof samples) => Math.max(...xs.map((s) => s.rssMiB));
const firstPeak = peak(quarter(0));
const lastPeak = peak(quarter(3));
const ratio = lastPeak / firstPeak;
const figures = {
  requests: done,
  autocannon: { total: result.requests.total, errors: result.errors, non2xx: result.non2xx },
  durationS: Number(durationS.toFixed(1)),
  requestsPerS: Math.round(done / durationS),
  rss: { firstQuarterPeakMiB: Number(firstPeak.toFixed(1)), lastQuarterPeakMiB: Number(lastPeak.toFixed(1)), ratio: Number(ratio.toFixed(3)), maxMiB: Number(peak(samples).toFixed(1)) },
  target: 'last quarter peak within 10% of the first quarter peak',
  met: ratio <= 1.1,
  receiptsListed: receipts.data.length,
  receiptsOmitted: receipts.omitted ?? 0,
  ledger: values.ledger ?? null,
  loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
  samples,
};
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(join(root, 'reports/bench/soak.json'), `${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(
  [
    `soak: ${done.toLocaleString('en-US')} requests in ${durationS.toFixed(0)} s (${figures.requestsPerS}/s), Receipts on${values.ledger === undefined ? '' : `, ledger ${values.ledger}`}`,
    `mock RSS: first quarter peak ${firstPeak.toFixed(1)} MiB, last quarter peak ${lastPeak.toFixed(1)} MiB, ratio ${ratio.toFixed(3)} (target <= 1.10: ${figures.met ? 'met' : 'NOT met'}), max ${figures.rss.maxMiB} MiB`,
    `GET /v1/receipts at the end: ${receipts.data.length} listed, ${receipts.omitted ?? 0} omitted`,
    `load average ${figures.loadAverage.join(' ')}; reports/bench/soak.json`,
  ].join('\n') + '\n',
);
process.exit(0);
