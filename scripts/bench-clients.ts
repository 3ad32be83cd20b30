// What the client libraries of the CLIENT area cost: install weight (the production packages each
// adds to node_modules, from package-lock.json and the installed tree), cold import time in a fresh
// process, the time each library's checks take inside a full `iari test` against the bundled mock,
// and the whole run with and without the CLIENT requirements (--skip).
//   npx tsx scripts/bench-clients.ts [--runs N]
// Prints the figures with the load average and writes reports/bench/clients.json.
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadRequirements } from '../src/checks/registry/requirements-registry.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

const clients = [
  { name: 'openai-node', packages: ['openai'], imports: ['openai'], requirement: /openai-node/ },
  { name: 'Vercel AI SDK', packages: ['ai', '@ai-sdk/openai-compatible'], imports: ['ai', '@ai-sdk/openai-compatible'], requirement: /Vercel AI SDK/ },
  { name: 'LangChain', packages: ['@langchain/openai', '@langchain/core'], imports: ['@langchain/openai', '@langchain/core/messages'], requirement: /LangChain/ },
];

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
}
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** Where node would find `name` from the package at `from` (a lockfile key): nested, then up the tree. */
function resolve(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** Every installed package `roots` pull in at run time (dependencies and non-optional peers). */
function closure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = roots.map((n) => resolve('', n)).filter((k): k is string => k !== undefined);
  while (queue.length > 0) {
    const key = queue.pop() as string;
    if (seen.has(key)) continue;
    seen.add(key);
    const e = lock.packages[key] ?? {};
    const peers = Object.keys(e.peerDependencies ?? {}).filter((p) => e.peerDependenciesMeta?.[p]?.optional !== true);
    for (const dep of [...Object.keys(e.dependencies ?? {}), ...Object.keys(e.optionalDependencies ?? {}), ...peers]) {
      const found = resolve(key, dep);
      if (found !== undefined) queue.push(found);
    }
  }
  return seen;
}

/** Disk usage of a package directory in bytes (like du), without its nested node_modules. */
function diskUsage(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    const st = lstatSync(p);
    total += st.blocks * 512;
    if (st.isDirectory()) total += diskUsage(p);
  }
  return total;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };
// What `npm install iari` installs by default: dependencies and optional dependencies (LangChain).
const production = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.optionalDependencies ?? {})];
const everything = closure(production);
const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
const weights = clients.map((c) => {
  const without = closure(production.filter((p) => !c.packages.includes(p)));
  const added = [...everything].filter((k) => !without.has(k));
  const own = [...closure(c.packages)];
  // added: what only this client brings (removing it frees that); own: everything it pulls in, shared or not.
  return { client: c.name, packages: added.length, mib: mib(added.reduce((s, k) => s + diskUsage(join(root, k)), 0)), ownPackages: own.length, ownMib: mib(own.reduce((s, k) => s + diskUsage(join(root, k)), 0)) };
});
const totalMib = mib([...everything].reduce((s, k) => s + diskUsage(join(root, k)), 0));

async function importMs(specifiers: string[]): Promise<number> {
  const code = `const t = performance.now(); await Promise.all(${JSON.stringify(specifiers)}.map((s) => import(s))); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: root });
  return Number(stdout);
}

const reportDir = join(root, 'reports', 'bench', 'clients-run');

/** One `iari test` against the bundled mock: wall seconds and the per-requirement durations of its report. */
async function iariTest(skip: string[]): Promise<{ seconds: number; durations: Map<string, number> }> {
  const t = performance.now();
  await run(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', '--json', '--report', reportDir, ...(skip.length > 0 ? ['--skip', skip.join(',')] : [])], {
    cwd: root,
    env: { ...process.env, GITHUB_ACTIONS: '' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((e: { code?: number }) => {
    if (e.code !== 1) throw e;
  });
  const seconds = (performance.now() - t) / 1000;
  const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as { results: { id: string; durationMs: number }[] };
  return { seconds, durations: new Map(report.results.map((r) => [r.id, r.durationMs])) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
const clientIds = (re: RegExp): string[] => loadRequirements().filter((r) => r.area === 'CLIENT' && re.test(r.title)).map((r) => r.id);
const allClientIds = loadRequirements().filter((r) => r.area === 'CLIENT').map((r) => r.id);

const imports: Record<string, number> = {};
for (const c of clients) {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await importMs(c.imports));
  imports[c.name] = round(median(xs), 0);
}
// The time each library's checks take inside a full run (their first check pays the library's
// import), read from the report: steadier on a shared machine than differences of whole runs.
const load: number[] = [];
const full: number[] = [];
const without: number[] = [];
const perClient: Record<string, number[]> = Object.fromEntries(clients.map((c) => [c.name, []]));
for (let i = 0; i < RUNS; i++) {
  load.push(loadavg()[0] ?? NaN);
  const r = await iariTest([]);
  full.push(r.seconds);
  for (const c of clients) perClient[c.name]?.push(clientIds(c.requirement).reduce((sum, id) => sum + (r.durations.get(id) ?? 0), 0) / 1000);
  without.push((await iariTest(allClientIds)).seconds);
}
const seconds = { full: round(median(full)), 'without any client': round(median(without)) };
const added = Object.fromEntries(clients.map((c) => [c.name, round(median(perClient[c.name] ?? []))]));
const out = { runs: RUNS, loadAverage1m: round(median(load)), productionInstallMiB: totalMib, weights, coldImportMs: imports, iariTestSeconds: seconds, addedSeconds: added };
mkdirSync(join(root, 'reports', 'bench'), { recursive: true });
writeFileSync(join(root, 'reports', 'bench', 'clients.json'), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`client libraries (median of ${RUNS}, load average ${out.loadAverage1m})\n`);
process.stdout.write(`production install: ${totalMib} MiB\n`);
for (const w of weights) process.stdout.write(`  ${w.client.padEnd(14)} adds ${String(w.packages).padStart(3)} packages, ${w.mib} MiB (pulls in ${w.ownPackages}, ${w.ownMib} MiB); cold import ${imports[w.client]} ms; its checks in iari test ${added[w.client]} s\n`);
for (const [label, s] of Object.entries(seconds)) process.stdout.write(`  iari test ${label}: ${s} s\n`);
process.stdout.write('wrote reports/bench/clients.json\n');
