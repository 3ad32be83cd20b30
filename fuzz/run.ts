// `npm run fuzz -- [--target NAME[,NAME]|all] [--duration 10m] [--engine jazzer|fast-check] [--seed N] [--seed-corpus] | --results`
// Long fuzz runs, one target after another (docs/fuzzing.md). Exit 0: no finding; 1: an input broke
// an invariant (kept under .fuzz/<target>/findings); 2: usage, or the engine cannot run here.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg as loadavgOf } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDuration } from '../src/duration.ts';
import { readCorpus, readInputs, regressionsDir, seedCorpus } from './corpus.ts';
import { runFastCheck } from './engines/fast-check.ts';
import { buildForJazzer, jazzerCoverage, runJazzer } from './engines/jazzer.ts';
import { formatTotals, ledgerFile, readLedger, totals } from './ledger.ts';
import { minimise } from './minimise.ts';
import { reduce } from './reduce.ts';
import { targetNamed, targets } from './targets/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const usage = `usage: npm run fuzz -- [--target NAME[,NAME...]|all] [--duration 10m] [--engine jazzer|fast-check] [--seed N] [--seed-corpus]
       npm run fuzz -- --results   (the runs of reports/fuzz/runs.ndjson summed per target, as a Markdown table)
targets: ${targets.map((t) => t.name).join(', ')}`;

function fail(message: string): never {
  process.stderr.write(`fuzz: ${message}\n${usage}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      target: { type: 'string', default: 'all' },
      duration: { type: 'string', default: '10m' },
      engine: { type: 'string', default: 'jazzer' },
      seed: { type: 'string' },
      'seed-corpus': { type: 'boolean', default: false },
      results: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (values.results) {
  process.stdout.write(`${formatTotals(totals(readLedger(root), targets, (name) => readInputs(regressionsDir(root, name)).length))}\n`);
  process.exit(0);
}
const chosen = values.target === 'all' ? targets : values.target.split(',').map((n) => targetNamed(n.trim()) ?? fail(`no target ${JSON.stringify(n)}`));
const ms = parseDuration(values.duration);
if (ms === undefined || ms < 1000) fail(`--duration ${JSON.stringify(values.duration)} is not a duration of at least 1s (e.g. 60s, 10m, 1h)`);
if (values.engine !== 'jazzer' && values.engine !== 'fast-check') fail(`--engine must be jazzer or fast-check, got ${JSON.stringify(values.engine)}`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isSafeInteger(seed)) fail(`--seed must be an integer`);

mkdirSync(dirname(ledgerFile(root)), { recursive: true });
// Beside dist/, at its depth: src/package-root.ts finds the package root two folders up from a compiled module.
const build = join(root, '.fuzz-build');
if (values.engine === 'jazzer') buildForJazzer(root, build);

let found = 0;
for (const target of chosen) {
  if (values['seed-corpus']) {
    const n = await seedCorpus(root, target);
    const kept = await minimise(root, target);
    process.stdout.write(`fuzz: ${target.name}: ${n} seed inputs, ${kept.after} kept in fuzz/corpus/${target.name} (${kept.blocks} blocks of src/ reached)\n`);
  }
  const started = new Date().toISOString();
  const seconds = Math.round(ms / 1000);
  process.stdout.write(`fuzz: ${target.name}: ${values.engine} for ${seconds} s (load average ${loadavg()})\n`);
  let record: Record<string, unknown>;
  if (values.engine === 'jazzer') {
    let r;
    try {
      r = await runJazzer(target, { root, seconds, build });
    } catch (error) {
      fail((error as Error).message);
    }
    const kept = r.finding === null ? await minimise(root, target) : null;
    const coverage = r.finding === null ? await jazzerCoverage(root, build, target) : null;
    record = { ...r, minimised: kept, lines: coverage };
    if (r.note !== null) process.stdout.write(`fuzz: note: ${r.note}\n`);
    process.stdout.write(
      `fuzz: ${target.name}: ${r.executions} executions, libFuzzer cov ${r.coverage?.edges ?? '?'} edges / ${r.coverage?.features ?? '?'} features` +
        `${coverage === null ? '' : `, corpus reaches ${coverage.lines.toFixed(1)}% of lines and ${coverage.branches.toFixed(1)}% of branches`}` +
        `${kept === null ? '' : `, corpus ${kept.before} -> ${kept.after} inputs`}\n`,
    );
    if (r.finding !== null) {
      found++;
      process.stdout.write(`fuzz: ${target.name}: FINDING ${r.finding.file}\n${r.finding.error}\n`);
      if (existsSync(r.finding.file)) {
        const input = new Uint8Array(readFileSync(r.finding.file));
        const reduced = await reduce(target, input, { ms: 60_000 });
        writeFileSync(`${r.finding.file}.reduced`, reduced);
        process.stdout.write(`fuzz: ${target.name}: reduced from ${input.length} to ${reduced.length} bytes: ${r.finding.file}.reduced\n`);
      }
    }
  } else {
    const r = await runFastCheck(target, readCorpus(root, target.name), { seconds, ...(seed === undefined ? {} : { seed }) });
    let file: string | null = null;
    if (r.finding !== null) {
      found++;
      const dir = join(root, '.fuzz', target.name, 'findings');
      mkdirSync(dir, { recursive: true });
      file = join(dir, `fast-check-${createHash('sha1').update(r.finding.input).digest('hex')}`);
      writeFileSync(file, r.finding.input);
      process.stdout.write(`fuzz: ${target.name}: FINDING ${file} (replay: --seed ${r.finding.seed}, path ${r.finding.path})\n${r.finding.error}\n`);
    }
    process.stdout.write(`fuzz: ${target.name}: ${r.executions} executions\n`);
    record = { ...r, finding: r.finding === null ? null : { file, error: r.finding.error, seed: r.finding.seed, path: r.finding.path } };
  }
  appendFileSync(ledgerFile(root), `${JSON.stringify({ started, ended: new Date().toISOString(), loadavg: loadavg(), ...record })}\n`);
}
process.exitCode = found > 0 ? 1 : 0;

function loadavg(): string {
  return loadavgOf()
    .map((l) => l.toFixed(2))
    .join(' ');
}
