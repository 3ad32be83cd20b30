// A package-lock.json for a fresh consumer project, taken from iari's own lockfile, so `npm ci
// --offline` in that project installs from the npm cache that iari's `npm ci` filled: every package
// the consumer needs (iari's dependencies, msw, openai, the AI SDK, typescript, vitest) is one of
// iari's dependencies or devDependencies at exactly the version iari's lockfile holds. Only the
// entries the consumer's dependency tree reaches are kept (node's lookup: the nearest node_modules up
// the path), and iari itself is the packed tarball.

export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
  [key: string]: unknown;
}

export interface Lockfile {
  name?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export interface ConsumerLockOptions {
  /** The consumer's package name. */
  name: string;
  /** Its dependencies (name -> spec), as in its package.json; `iari` is the tarball. */
  dependencies: Record<string, string>;
  /** The tarball's file name (beside package.json) and its package.json. */
  iari: { file: string; integrity: string; manifest: { version: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>; bin?: Record<string, string>; engines?: Record<string, string> } };
  /** Install the package iari's lock holds at `node_modules/<from>` (an npm alias) as `node_modules/<to>`. */
  rename?: { from: string; to: string };
  /** The registry the tarballs came from (default https://registry.npmjs.org/). */
  registry?: string;
}

/**
 * The tarball URL npm derives for a registry package. Written into the lock, so `npm ci --offline`
 * takes the tarball from the cache by URL and integrity and never asks for the package's metadata,
 * which a lockfile install (iari's own `npm ci`) does not cache.
 */
export function tarballUrl(registry: string, name: string, version: string): string {
  const base = registry.endsWith('/') ? registry : `${registry}/`;
  const file = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
  return `${base}${name}/-/${file}-${version}.tgz`;
}

const FLAGS = ['dev', 'devOptional', 'peer', 'extraneous'];

function renamed(path: string, rename: ConsumerLockOptions['rename']): string | undefined {
  if (rename === undefined) return path;
  const from = `node_modules/${rename.from}`;
  const to = `node_modules/${rename.to}`;
  if (path === to || path.startsWith(`${to}/`)) return undefined;
  if (path === from || path.startsWith(`${from}/`)) return to + path.slice(from.length);
  return path;
}

/** Where node finds `name` required from the package at `from` ("" is the project root). */
function lookup(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

export function consumerLock(source: Lockfile, options: ConsumerLockOptions): Lockfile {
  const all: Record<string, LockEntry> = {};
  for (const [path, entry] of Object.entries(source.packages)) {
    if (path === '') continue;
    const target = renamed(path, options.rename);
    if (target === undefined) continue;
    const copy: LockEntry = { ...entry };
    for (const flag of FLAGS) delete copy[flag];
    // The package's real name: an alias entry names it, otherwise the path's last node_modules/ part.
    const realName = typeof entry['name'] === 'string' ? entry['name'] : path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (copy.resolved === undefined && typeof copy.version === 'string' && copy['link'] !== true) copy.resolved = tarballUrl(options.registry ?? 'https://registry.npmjs.org/', realName, copy.version);
    // An aliased entry carries the real package's name; under its real name it needs none.
    if (target !== path) delete copy['name'];
    all[target] = copy;
  }
  const m = options.iari.manifest;
  all['node_modules/iari'] = {
    version: m.version,
    resolved: `file:${options.iari.file}`,
    integrity: options.iari.integrity,
    ...(m.dependencies === undefined ? {} : { dependencies: m.dependencies }),
    ...(m.optionalDependencies === undefined ? {} : { optionalDependencies: m.optionalDependencies }),
    ...(m.peerDependencies === undefined ? {} : { peerDependencies: m.peerDependencies }),
    ...(m.peerDependenciesMeta === undefined ? {} : { peerDependenciesMeta: m.peerDependenciesMeta }),
    ...(m.bin === undefined ? {} : { bin: m.bin }),
    ...(m.engines === undefined ? {} : { engines: m.engines }),
  };
  // Keep what the root's dependencies reach, following dependencies, optional and peer dependencies.
  const root: LockEntry = { name: options.name, dependencies: options.dependencies };
  const keep = new Set<string>();
  const queue: [string, LockEntry][] = [['', root]];
  const missing: string[] = [];
  while (queue.length > 0) {
    const [path, entry] = queue.shift() as [string, LockEntry];
    const names = [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...Object.keys(entry.peerDependencies ?? {})];
    for (const name of names) {
      const found = lookup(all, path, name);
      if (found === undefined) {
        const optionalPeer = entry.peerDependenciesMeta?.[name]?.optional === true || name in (entry.optionalDependencies ?? {});
        if (!optionalPeer) missing.push(`${path || '(root)'} -> ${name}`);
        continue;
      }
      if (keep.has(found)) continue;
      keep.add(found);
      queue.push([found, all[found] as LockEntry]);
    }
  }
  if (missing.length > 0) throw new Error(`iari's lockfile cannot serve the consumer: ${missing.slice(0, 10).join(', ')}`);
  const packages: Record<string, LockEntry> = { '': { name: options.name, dependencies: options.dependencies } };
  for (const path of [...keep].sort()) packages[path] = all[path] as LockEntry;
  return { name: options.name, lockfileVersion: 3, requires: true, packages };
}
