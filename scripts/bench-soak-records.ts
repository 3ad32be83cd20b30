/**
 * The load side's soak (issue 43): N synthetic finished requests (no network) go through the
 * collector and the run's record path at 100 req/s of simulated time, and the heap after a full
 * GC and the RSS are printed at each checkpoint. `memory` keeps every record in a list (what a run
 * did before requests.ndjson was streamed); `file` appends them to requests.ndjson through the
 * bounded writer (src/load/results/record-log.ts). `--src DIR` runs another tree's src/ (main's,
 * unpacked with `git archive main src`) for the before figure.
 *
 *   node --expose-gc --import ./scripts/register-ts.mjs scripts/bench-soak-records.ts \
 *     [--records 100000,1000000,8640000] [--log memory|file] [--src DIR] [--out FILE]
 *
 * Prints one line per checkpoint and writes the curve to reports/bench/soak-records-<log>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { records: { type: 'string', default: '100000,1000000,8640000' }, log: { type: 'string', default: 'file' }, src: { type: 'string' }, out: { type: 'string' } } });
const checkpoints = values.records.split(',').map(Number).sort((a, b) => a - b);
const src = resolve(values.src ?? join(root, 'src'));
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

type Rec = Record<string, unknown>;
const { Collector } = (await import(pathToFileURL(join(src, 'load/results/collector.ts')).href)) as typeof import('../src/load/results/collector.ts');
const records: Rec[] = [];
let sink: (r: Rec) => void = (r) => void records.push(r);
let finish: () => Promise<void> = async () => undefined;
const dir = mkdtempSync(join(tmpdir(), 'iari-soak-'));
if (values.log === 'file') {
  const { openRecordFile } = (await import(pathToFileURL(join(src, 'load/results/record-log.ts')).href)) as typeof import('../src/load/results/record-log.ts');
  const log = openRecordFile(join(dir, 'requests.ndjson'), (r) => JSON.stringify(r));
  sink = (r) => log.add(r as never);
  finish = () => log.close();
}

const PER_S = 100;
const stepNs = BigInt(1e9 / PER_S);
const c = new Collector({ measureStartNs: 0n, measureStartEpochMs: Date.UTC(2026, 10, 29), openLoop: true, slos: [], shard: null, onRecord: (r) => sink(r as unknown as Rec) });
const mib = (b: number): number => Math.round((b / 1048576) * 10) / 10;
const rows: { records: number; simulatedS: number; heapAfterGcMiB: number; rssMiB: number; arrayBuffersMiB: number; cpuS: number }[] = [];
const t0 = process.cpuUsage();
let n = 0;
for (const target of checkpoints) {
  for (; n < target; n++) {
    const at = BigInt(n) * stepNs;
    const ttft = 80_000_000n + BigInt((n * 7919) % 40_000_000);
    const events = Array.from({ length: 8 }, (_, k) => ({ atNs: at + ttft + BigInt(k) * 12_000_000n, tokens: k === 0 ? 1 : 2 }));
    c.onStart(at);
    c.onFinish({ seq: n, intendedNs: at, sentNs: at + 50_000n, headersNs: at + 60_000_000n, endNs: at + ttft + 100_000_000n, status: 200, requestId: `req_${n}`, tokenEvents: events, outputTokens: 15, promptTokens: 42, tokenSource: 'usage', events: 10, error: null, abortedAtEnd: false });
    // Let the writer's callbacks run, as the event loop does in a run.
    if (n % 10_000 === 9_999) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 50));
  gc();
  gc();
  const cpu = process.cpuUsage(t0);
  const row = { records: n, simulatedS: n / PER_S, heapAfterGcMiB: mib(process.memoryUsage().heapUsed), rssMiB: mib(process.memoryUsage().rss), arrayBuffersMiB: mib(process.memoryUsage().arrayBuffers), cpuS: Math.round((cpu.user + cpu.system) / 1e4) / 100 };
  rows.push(row);
  process.stdout.write(`${values.log.padEnd(6)} ${String(n).padStart(9)} records (${(row.simulatedS / 3600).toFixed(2)} h at ${PER_S}/s): heap after gc ${row.heapAfterGcMiB} MiB, array buffers ${row.arrayBuffersMiB} MiB, RSS ${row.rssMiB} MiB, CPU ${row.cpuS} s\n`);
}
await finish();
// The run's end reads the slices once (load.json's timeslices): still bounded.
const slices = c.timeslices().length;
rmSync(dir, { recursive: true, force: true });
const out = values.out ?? join(root, `reports/bench/soak-records-${values.log}.json`);
mkdirSync(join(out, '..'), { recursive: true });
const figures = { log: values.log, src, perS: PER_S, tokenEventsPerRecord: 8, slices, node: process.version, loadAverage: loadavg().map((x) => Number(x.toFixed(2))), rows };
writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(`${slices} one-second slices; load average ${figures.loadAverage.join(' ')}; ${out}\n`);
