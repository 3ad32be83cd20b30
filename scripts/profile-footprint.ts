/**
 * What `iari test`'s own process holds (issue 41): memory when Node starts, when the first request
 * reaches the bundled mock (every start-up import done, nothing answered yet) and at exit; the V8
 * heap spaces (a young generation grown to 64 MiB a semi-space is most of the difference between
 * live heap and RSS); the modules loaded, by package and by source size; optionally the live heap at
 * the first request by kind (a heap snapshot). Runs the compiled CLI (`bin/iari.js` of this checkout
 * or of --root) under scripts/footprint-probe.mjs, --runs times each, prints medians and writes
 * reports/bench/footprint.json.
 *
 *   npm run build && npx tsx scripts/profile-footprint.ts [--runs 3] [--root /work/wt/integ2] [--snapshot] [--node-flag=--max-semi-space-size=16]... [-- test --only CHAT-035]
 *
 * --node-flag adds a flag to node's command line for every run (a heap flag measured beside the
 * default: give --root . to run the same checkout once without it and once with it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(new URL('../', import.meta.url));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '3' }, root: { type: 'string', multiple: true }, snapshot: { type: 'boolean', default: false }, 'node-flag': { type: 'string', multiple: true } } });
const nodeFlags = values['node-flag'] ?? [];
const argv = positionals.length > 0 ? positionals : ['test'];
// With --node-flag and --root, the other roots run without the flags: the same checkout twice measures the flag alone.
const roots = values.root === undefined || values.root.length === 0 ? [here] : [here, ...values.root.map((r) => resolve(r))];

type Memory = Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
interface Probe {
  startedAt: { cpuMs: number; memory: Memory };
  firstRequest?: { ms: number; cpuMs: number; modules: number; memory: Memory; snapshot?: string };
  exit: { ms: number; cpuMs: number; modules: number; memory: Memory; maxRssMiB: number; spaces: Record<string, { usedMiB: number; sizeMiB: number }> };
  modules: { url: string; bytes: number }[];
  gc: Record<'minor' | 'major' | 'other', { count: number; ms: number }>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};
const owner = (url: string): string => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (/\/dist\/((?:src|mock-server)\/[^/]+)/.exec(url)?.[1] ?? (url.startsWith('node:') ? 'node:*' : url));

function probe(root: string, snapshot: string | undefined, flags: readonly string[]): Probe {
  const dir = mkdtempSync(join(tmpdir(), 'iari-footprint-'));
  try {
    const out = join(dir, 'probe.json');
    const run = spawnSync(process.execPath, [...flags, '--import', join(here, 'scripts/footprint-probe.mjs'), join(root, 'bin/iari.js'), ...argv, '--report', join(dir, 'report')], {
      cwd: root,
      env: { ...process.env, FOOTPRINT_OUT: out, ...(snapshot === undefined ? {} : { FOOTPRINT_SNAPSHOT: snapshot }) },
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    if (run.status !== 0) throw new Error(`iari ${argv.join(' ')} in ${root} exited ${String(run.status)}: ${run.stderr.slice(-2000)}`);
    return JSON.parse(readFileSync(out, 'utf8')) as Probe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The live heap at the first request by node kind (strings are mostly module sources V8 keeps; code is bytecode and its metadata). */
function heapByKind(path: string): { kind: string; MiB: number; count: number }[] {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = snap.snapshot.meta.node_fields;
  const [types] = snap.snapshot.meta.node_types;
  const ti = fields.indexOf('type');
  const ni = fields.indexOf('name');
  const si = fields.indexOf('self_size');
  const sums = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + ti]!] ?? '?';
    const kind = ['string', 'concatenated string', 'sliced string', 'code', 'hidden', 'number', 'bigint'].includes(type) ? type : `${type}:${(snap.strings[snap.nodes[i + ni]!] ?? '').slice(0, 40)}`;
    const s = sums.get(kind) ?? { bytes: 0, count: 0 };
    s.bytes += snap.nodes[i + si]!;
    s.count++;
    sums.set(kind, s);
  }
  return [...sums].map(([kind, s]) => ({ kind, MiB: Number((s.bytes / 2 ** 20).toFixed(2)), count: s.count })).sort((a, b) => b.MiB - a.MiB).slice(0, 15);
}

mkdirSync(join(here, 'reports/bench'), { recursive: true });
const results = [];
// The roots in turn (A B A B ...), so a drift in the machine's load falls on both alike.
const flagsOf = (index: number): readonly string[] => (index === 0 ? nodeFlags : []);
const probesOf: Probe[][] = roots.map(() => []);
for (let i = 0; i < Number(values.runs); i++) for (const [index, root] of roots.entries()) probesOf[index]!.push(probe(root, undefined, flagsOf(index)));
for (const [index, root] of roots.entries()) {
  const flags = flagsOf(index);
  const probes = probesOf[index]!;
  const last = probes.at(-1)!;
  const byOwner = new Map<string, { modules: number; bytes: number }>();
  for (const m of last.modules) {
    const o = byOwner.get(owner(m.url)) ?? { modules: 0, bytes: 0 };
    o.modules++;
    o.bytes += m.bytes;
    byOwner.set(owner(m.url), o);
  }
  const snapshotPath = join(here, 'reports/bench/footprint-first-request.heapsnapshot');
  const snapshot = values.snapshot && index === 0 ? probe(root, snapshotPath, flags) : undefined;
  results.push({
    root,
    nodeFlags: flags,
    runs: probes.length,
    cpuMs: median(probes.map((p) => p.exit.cpuMs)),
    maxRssMiB: median(probes.map((p) => p.exit.maxRssMiB)),
    gc: { minor: median(probes.map((p) => p.gc.minor.count)), minorMs: Math.round(median(probes.map((p) => p.gc.minor.ms))), major: median(probes.map((p) => p.gc.major.count)), majorMs: Math.round(median(probes.map((p) => p.gc.major.ms))) },
    startRssMiB: median(probes.map((p) => p.startedAt.memory.rss)),
    firstRequest: last.firstRequest === undefined ? null : { cpuMs: median(probes.map((p) => p.firstRequest?.cpuMs ?? Number.NaN)), rssMiB: median(probes.map((p) => p.firstRequest?.memory.rss ?? Number.NaN)), heapUsedMiB: median(probes.map((p) => p.firstRequest?.memory.heapUsed ?? Number.NaN)), modules: last.firstRequest.modules },
    exit: { memory: last.exit.memory, spaces: Object.fromEntries(Object.entries(last.exit.spaces).filter(([, s]) => s.sizeMiB > 0)), modules: last.exit.modules },
    byOwner: [...byOwner].map(([name, o]) => ({ name, ...o })).sort((a, b) => b.bytes - a.bytes).slice(0, 15),
    ...(snapshot?.firstRequest === undefined ? {} : { heapAtFirstRequest: heapByKind(snapshotPath) }),
  });
}

const out = { date: new Date().toISOString(), node: process.version, loadAverage: loadavg().map((x) => Number(x.toFixed(2))), argv, results };
writeFileSync(join(here, 'reports/bench/footprint.json'), `${JSON.stringify(out, null, 2)}\n`);
for (const r of results) {
  process.stdout.write(`\n${r.root}: ${['node', ...r.nodeFlags].join(' ')} bin/iari.js ${argv.join(' ')}, median of ${r.runs}\n`);
  process.stdout.write(`  CPU ${r.cpuMs} ms; RSS at start ${r.startRssMiB} MiB, at the first request ${r.firstRequest?.rssMiB ?? '-'} MiB (heap used ${r.firstRequest?.heapUsedMiB ?? '-'}, ${r.firstRequest?.modules ?? '-'} modules, CPU ${r.firstRequest?.cpuMs ?? '-'} ms), peak ${r.maxRssMiB} MiB; GC ${r.gc.minor} young collections (${r.gc.minorMs} ms of pauses), ${r.gc.major} full (${r.gc.majorMs} ms)\n`);
  process.stdout.write(`  at exit: ${JSON.stringify(r.exit.memory)}; V8 spaces (used/size MiB): ${Object.entries(r.exit.spaces).map(([k, s]) => `${k} ${s.usedMiB}/${s.sizeMiB}`).join(', ')}\n`);
  process.stdout.write(`  modules by package (of ${r.exit.modules}): ${r.byOwner.map((o) => `${o.name} ${o.modules}/${Math.round(o.bytes / 1024)} KiB`).join(', ')}\n`);
  if (r.heapAtFirstRequest !== undefined) process.stdout.write(`  live heap at the first request by kind (MiB): ${r.heapAtFirstRequest.map((k) => `${k.kind} ${k.MiB}`).join(', ')}\n`);
}
process.stdout.write(`load average ${out.loadAverage.join(' ')}; reports/bench/footprint.json\n`);
