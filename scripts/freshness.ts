// `npm run freshness [-- --json]`: how far each direct dependency (and each client the CLIENT area
// runs) is behind the registry, by major version. Lists every one and marks those more than one
// major behind. Not a gate: the registry moves without us, so it always exits 0 when it could ask.
// Asks the npm registry npm is configured with (`npm view NAME dist-tags.latest`), and for
// openai-python the package index pip is configured with (`pip index versions openai`).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));

export type Kind = 'dependency' | 'optional' | 'dev' | 'peer' | 'client (Python)';

export interface Pinned {
  /** The name in package.json (an npm alias such as openai-v6 keeps its own name). */
  name: string;
  /** The registry package it installs. */
  registryName: string;
  kind: Kind;
  /** The version or range package.json gives. */
  spec: string;
}

export interface Freshness extends Pinned {
  latest: string | null;
  /** Majors between the newest version `spec` allows and `latest` (0.x: minors count as majors, as for ^). */
  behind: number | null;
  /** Why `latest` is unknown. */
  error?: string;
}

/** The direct dependencies of a package.json, aliases resolved to the package they install. */
export function pinnedOf(manifest: Record<string, unknown>): Pinned[] {
  const kinds: [string, Kind][] = [['dependencies', 'dependency'], ['optionalDependencies', 'optional'], ['devDependencies', 'dev'], ['peerDependencies', 'peer']];
  const out: Pinned[] = [];
  for (const [field, kind] of kinds) {
    const deps = (manifest[field] ?? {}) as Record<string, string>;
    for (const [name, raw] of Object.entries(deps)) {
      const alias = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/.exec(raw);
      out.push({ name, registryName: alias?.[1] ?? name, kind, spec: alias?.[2] ?? raw });
    }
  }
  return out;
}

/** The "major" of a version as ^ reads it: the first of major, minor, patch that is not 0 (so 0.5.0 is 0.5). */
export function majorKey(version: string): number[] {
  const parts = version.replace(/^[^\d]*/, '').split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10));
  const [a = 0, b = 0, c = 0] = parts.map((n) => (Number.isFinite(n) ? n : 0));
  return a > 0 ? [a] : b > 0 ? [0, b] : [0, 0, c];
}

/** The highest version a spec names: "7.0.2", "^2.0.0 || ^3.0.0" (3.0.0), ">=5" (5.0.0). */
export function highestOf(spec: string): string {
  const versions = [...spec.matchAll(/(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/g)].map((m) => [m[1], m[2], m[3]].map((p) => (p === undefined || p === 'x' || p === '*' ? 0 : Number(p))));
  const best = versions.sort((x, y) => (y[0] ?? 0) - (x[0] ?? 0) || (y[1] ?? 0) - (x[1] ?? 0) || (y[2] ?? 0) - (x[2] ?? 0))[0] ?? [0, 0, 0];
  return best.join('.');
}

/** Majors from `have` to `latest` (0 when `have` is current or newer). */
export function majorsBehind(have: string, latest: string): number {
  const h = majorKey(have);
  const l = majorKey(latest);
  if (l.length !== h.length) return l.length < h.length ? Math.max(1, l[0] ?? 0) : 0;
  const i = l.length - 1;
  return Math.max(0, (l[i] ?? 0) - (h[i] ?? 0));
}

/** What a freshness line says: the package, what we pin, the registry's latest, and how far behind. */
export function judge(p: Pinned, latest: string | null, error?: string): Freshness {
  return { ...p, latest, behind: latest === null ? null : majorsBehind(highestOf(p.spec), latest), ...(error === undefined ? {} : { error }) };
}

async function npmLatest(name: string): Promise<string> {
  const { stdout } = await run('npm', ['view', name, 'dist-tags.latest'], { timeout: 60_000 });
  return stdout.trim();
}

/** openai-python: the version in the venv the tests make (test-support/openai-python-venv.ts), against pip's index. */
async function pythonClient(): Promise<Freshness | null> {
  const python = join(root, '.cache/openai-python/venv/bin/python');
  if (!existsSync(python)) return null;
  const pinned: Pinned = { name: 'openai (Python)', registryName: 'openai', kind: 'client (Python)', spec: '' };
  try {
    const have = (await run(python, ['-c', 'import openai; print(openai.__version__)'], { timeout: 60_000 })).stdout.trim();
    const index = (await run(python, ['-m', 'pip', 'index', 'versions', 'openai', '--disable-pip-version-check'], { timeout: 120_000 })).stdout;
    const latest = /^openai \(([^)]+)\)/m.exec(index)?.[1] ?? null;
    return judge({ ...pinned, spec: have }, latest, latest === null ? 'pip index gave no version' : undefined);
  } catch (error) {
    return judge(pinned, null, (error as Error).message.split('\n')[0]);
  }
}

/** Held back on purpose: shown, with the reason, and not counted as stale. */
export const HELD: Readonly<Record<string, string>> = {
  '@types/node': 'the types of the reference runtime, Node 24 (package.json engines)',
  uuid: "@dwmkerr/mock-llm 0.1.29 (the third-party suite's server) requires uuid without declaring it; this is the version its @a2a-js/sdk installs, hoisted so the server starts",
  'typescript-5': "the compiler API TypeScript 7 does not ship: openapi-typescript's (gen:types) and the import parser of test-support/protocol-boundary.ts",
};

function table(rows: readonly Freshness[]): string {
  const head = ['package', 'kind', 'ours', 'registry', 'majors behind'];
  const body = rows.map((r) => [r.name === r.registryName ? r.name : `${r.name} (${r.registryName})`, r.kind, r.spec, r.latest ?? `? ${r.error ?? ''}`, r.behind === null ? '?' : `${r.behind}${r.behind > 1 ? (HELD[r.name] === undefined ? '  <- more than one major behind' : `  (held: ${HELD[r.name]})`) : ''}`]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  return [head, ...body].map((cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const pinned = pinnedOf(manifest);
  const rows: Freshness[] = [];
  // A few at a time: each is an npm process.
  for (let i = 0; i < pinned.length; i += 6) {
    rows.push(...(await Promise.all(pinned.slice(i, i + 6).map(async (p) => {
      try {
        return judge(p, await npmLatest(p.registryName));
      } catch (error) {
        return judge(p, null, (error as Error).message.split('\n')[0]);
      }
    }))));
  }
  const py = await pythonClient();
  if (py !== null) rows.push(py);
  const stale = rows.filter((r) => (r.behind ?? 0) > 1 && HELD[r.name] === undefined);
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ rows, stale: stale.map((r) => r.name) }, null, 2)}\n`);
  else process.stdout.write(`${table(rows)}\n\n${stale.length === 0 ? 'none is more than one major behind' : `${stale.length} more than one major behind: ${stale.map((r) => r.name).join(', ')}`}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
