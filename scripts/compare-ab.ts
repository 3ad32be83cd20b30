// What an A/B run (`iari load --ab`) decides: --regressions runs against two bundled mocks with
// --ttft-a (default 40 ms) and --ttft-b (default 48 ms, +20%), and --identical runs against two
// mocks both at --ttft-a (either may be 0, so the two batches can run apart). Each run is
// `iari load --base-url A --ab B --duration D --concurrency C --max-tokens T` in this process (a
// light load: closed loop, concurrency 4, 16 tokens, so the blocks hold ~40 requests each and the
// client has little to do); then `iari report compare RUN` with a gate on every load row (latencies
// KEY>+10%, rates KEY<-10%, errors.rate>+0.5pp, goodput.fraction<-0.5pp), each outcome counted.
// Prints a line per run (with the load average) and rewrites --out after each. Loopback only,
// bounded (each run is its --duration plus its blocks' setup). --keep DIR keeps the runs, --from
// DIR analyses kept runs again (reg{i}, same{i}).
//
//   npx tsx scripts/compare-ab.ts [--regressions 10] [--identical 20] [--duration 60s] [--ab-block 3s]
//     [--ab-assign blocks|random] [--concurrency 4] [--max-tokens 16] [--ttft-a 40] [--ttft-b 48]
//     [--out reports/bench/compare-ab.json] [--keep DIR | --from DIR]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readAbSides } from '../src/compare/compare-inputs.ts';
import { finish, LoadSampler, quietLoad, root, rowOutcomes, RowTallies, startMock, tally, type RowOutcome } from './compare-bench.ts';

const { values } = parseArgs({
  options: {
    regressions: { type: 'string' },
    identical: { type: 'string' },
    duration: { type: 'string' },
    'ab-block': { type: 'string' },
    'ab-assign': { type: 'string' },
    concurrency: { type: 'string' },
    'max-tokens': { type: 'string' },
    'ttft-a': { type: 'string' },
    'ttft-b': { type: 'string' },
    out: { type: 'string' },
    keep: { type: 'string' },
    from: { type: 'string' },
  },
});
const regressions = Math.min(20, Number(values.regressions ?? 10));
const identical = Math.min(40, Number(values.identical ?? 20));
const duration = values.duration ?? '60s';
const block = values['ab-block'] ?? '3s';
const assign = values['ab-assign'] ?? null;
const concurrency = values.concurrency ?? '4';
const maxTokens = values['max-tokens'] ?? '16';
const ttftA = Number(values['ttft-a'] ?? 40);
const ttftB = Number(values['ttft-b'] ?? 48);
const out = resolve(root, values.out ?? 'reports/bench/compare-ab.json');
const token = 'iari_sk_compare_ab_local_0001';
const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-ab-'));
if (values.keep !== undefined) mkdirSync(values.keep, { recursive: true });
process.env['IARI_TOKEN'] = token;
process.env['GITHUB_ACTIONS'] = '';

async function abRun(portA: number, portB: number, name: string): Promise<string> {
  if (values.from !== undefined) return join(values.from, name);
  const argv = ['--base-url', `http://127.0.0.1:${portA}/v1`, '--ab', `http://127.0.0.1:${portB}/v1`, '--ab-token-env', 'IARI_TOKEN', '--ab-block', block, ...(assign === null ? [] : ['--ab-assign', assign])];
  return quietLoad([...argv, '--duration', duration, '--concurrency', concurrency, '--max-tokens', maxTokens], join(tmp, name));
}

function judge(dir: string): Map<string, RowOutcome> {
  const sides = readAbSides(dir);
  if (sides === null) throw new Error(`${dir} is not an A/B run`);
  return rowOutcomes(sides.base, sides.next);
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
const started = Date.now();
const sampler = new LoadSampler();
const reg = { rows: new RowTallies(), ttftP95: tally(), ttftP50: tally(), runs: [] as object[] };
const same = { rows: new RowTallies(), runs: [] as object[] };
function write(done: boolean): void {
  const figures = { duration, block, assign: assign ?? 'blocks', concurrency: Number(concurrency), maxTokens: Number(maxTokens), ttftA, ttftB, done, regression: { ttftP95: reg.ttftP95, ttftP50: reg.ttftP50, rows: reg.rows, runs: reg.runs }, identical: { noRowTripped: same.rows.comparisons - same.rows.withTrip, rows: same.rows, runs: same.runs }, wallS: Math.round((Date.now() - started) / 1000), loadavg1m: { ...sampler.summary(), all: sampler.samples } };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
}

const mocks = values.from === undefined ? [await startMock(18811, ttftA, token), await startMock(18812, ttftB, token), await startMock(18813, ttftA, token)] : [];
try {
  // Interleaved, so a run cut short still has figures of both kinds.
  for (let i = 0; i < Math.max(regressions, identical); i++) {
    for (const kind of ['reg', 'same'] as const) {
      if (i >= (kind === 'reg' ? regressions : identical)) continue;
      const at = new Date().toISOString().slice(11, 19);
      const d = await abRun(18811, kind === 'reg' ? 18812 : 18813, `${kind}${i}`);
      const o = judge(d);
      const batch = kind === 'reg' ? reg : same;
      const trips = batch.rows.add(o);
      const p95 = o.get('ttft.p95');
      const p50 = o.get('ttft.p50');
      if (kind === 'reg') {
        reg.ttftP95[p95?.outcome ?? 'inconclusive']++;
        reg.ttftP50[p50?.outcome ?? 'inconclusive']++;
      }
      const counts = [...o.values()].reduce((t, v) => ({ ...t, [v.outcome]: t[v.outcome] + 1 }), tally());
      batch.runs.push({ run: `${kind}${i}`, at, loadavg1m: sampler.sample(), ttftP95: p95 ?? null, ttftP50: p50 ?? null, counts, trips });
      const head = kind === 'reg' ? `A/B ${ttftA} vs ${ttftB} ms, run ${i + 1}/${regressions}` : `A/A ${ttftA} vs ${ttftA} ms, run ${i + 1}/${identical}`;
      process.stdout.write(`${at} ${head}: ttft.p95 ${p95?.outcome ?? 'missing'}${p95?.code ? ` (${p95.code})` : ''} ${pct(p95?.relative)}, ttft.p50 ${p50?.outcome ?? 'missing'} ${pct(p50?.relative)}; ${o.size} rows: trip ${counts.trip}, hold ${counts.hold}, inconclusive ${counts.inconclusive}; tripped: ${trips.join(', ') || 'none'}; load average ${(sampler.samples.at(-1) ?? 0).toFixed(1)}\n`);
      write(false);
      finish(d, values);
    }
  }
} finally {
  for (const m of mocks) m.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
  write(true);
  const l = sampler.stop();
  const r = reg.rows.total();
  const s = same.rows.total();
  const how = values.from === undefined ? `${duration}, ${assign ?? 'blocks'} of ${block}, concurrency ${concurrency}, ${maxTokens} tokens` : `the runs kept in ${values.from}, judged again`;
  process.stdout.write(`\nA/B ${ttftA} -> ${ttftB} ms (${how}): ttft.p95>+10% trip ${reg.ttftP95.trip}, hold ${reg.ttftP95.hold}, inconclusive ${reg.ttftP95.inconclusive} of ${reg.rows.comparisons} runs; ttft.p50>+10% trip ${reg.ttftP50.trip} of ${reg.rows.comparisons}\n`);
  process.stdout.write(`  every row of the ${reg.rows.comparisons} runs: trip ${r.trip}, hold ${r.hold}, inconclusive ${r.inconclusive}; inconclusive by reason: ${[...reg.rows.reasons].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
  process.stdout.write(`identical mocks (${ttftA} ms): no row tripped in ${same.rows.comparisons - same.rows.withTrip} of ${same.rows.comparisons} runs\n`);
  process.stdout.write(`  every row of the ${same.rows.comparisons} runs: trip ${s.trip}, hold ${s.hold}, inconclusive ${s.inconclusive}; inconclusive by reason: ${[...same.rows.reasons].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}\n`);
  for (const [k, v] of same.rows.perRow) if (v.trip > 0) process.stdout.write(`  tripped between identical mocks: ${k} ${v.trip}/${same.rows.comparisons}\n`);
  process.stdout.write(`load average (1 min) over the runs: min ${l.min}, mean ${l.mean}, max ${l.max} (${l.samples} samples); wall ${Math.round((Date.now() - started) / 1000)} s; ${out}\n`);
}
