import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerLock, type Lockfile } from './consumer-lock.ts';

// What a user does with the package, offline: npm pack, install the tarball into fresh projects
// from the npm cache iari's own `npm ci` filled (consumer-lock.ts), then use it there: the CLI,
// `iari/msw` with the user's own msw driving the openai SDK and the Vercel AI SDK (plain Node
// ESM and the user's vitest), the library entry points, and a strict NodeNext type-check.

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./consumer/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'iari-pack-'));
const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const ownLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lockfile;

/** Settings of the outer npm that the consumer's npm shares: the same cache, registry and user config. */
const SHARED_NPM = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);

/** The child's environment without the npm_* variables of the `npm test` that runs this suite (they would point npm at iari's own project). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    const npmOwn = /^npm_/i.test(k) && !SHARED_NPM.has(k.toLowerCase());
    if (!npmOwn && k !== 'INIT_CWD' && k !== 'NODE_OPTIONS' && k !== 'VITEST' && !k.startsWith('VITEST_')) env[k] = v;
  }
  env['GITHUB_ACTIONS'] = '';
  return env;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: cleanEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr: `${stderr}${error !== null && typeof error.code !== 'number' ? `\n${error.message}` : ''}` });
    });
  });
}

/** The version iari's package.json pins for a package the consumer installs (so the cache holds it). */
function pinned(name: string): string {
  const v = own.dependencies[name] ?? own.devDependencies[name];
  if (v === undefined) throw new Error(`${name} is not a dependency of iari, so npm ci did not put it in the cache`);
  return v;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  integrity: string;
  files: { path: string }[];
}

let packed: Packed;
let buildRun: Run;
const projects: Record<string, { dir: string; install: Run }> = {};

function duBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}

async function consumer(name: string, deps: Record<string, string>, rename?: { from: string; to: string }): Promise<void> {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(join(work, packed.filename), join(dir, packed.filename));
  for (const f of readdirSync(fixtures)) copyFileSync(join(fixtures, f), join(dir, f));
  const dependencies = { iari: `file:${packed.filename}`, ...deps };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module', dependencies }, null, 2)}\n`);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Parameters<typeof consumerLock>[1]['iari']['manifest'];
  const lock = consumerLock(ownLock, { name, dependencies, iari: { file: packed.filename, integrity: packed.integrity, manifest }, ...(rename === undefined ? {} : { rename }) });
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  // --offline: every tarball comes from the cache; nothing here may reach the network.
  const install = await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], dir, 300_000);
  projects[name] = { dir, install };
}

beforeAll(async () => {
  buildRun = await run('npm', ['run', 'build'], root, 600_000);
  if (buildRun.code !== 0) return;
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root, 120_000);
  packed = (JSON.parse(pack.stdout) as Packed[])[0] as Packed;
  const clients = { openai: pinned('openai'), ai: pinned('ai'), '@ai-sdk/openai-compatible': pinned('@ai-sdk/openai-compatible') };
  // The installs at once (each waits on the disk and the cache as much as on a core).
  await Promise.all([
    // The newest msw (3.x, iari's devDependency), with TypeScript, @types/node and vitest as a user has them.
    consumer('newest', { msw: pinned('msw'), ...clients, typescript: pinned('typescript'), '@types/node': pinned('@types/node'), vitest: pinned('vitest') }),
    // The newest msw 2.x (iari's `msw-2` alias devDependency) and the oldest (`msw-oldest`), each installed as `msw`.
    consumer('msw2', { msw: pinned('msw-2').replace(/^npm:msw@/, ''), ...clients }, { from: 'msw-2', to: 'msw' }),
    consumer('oldest', { msw: pinned('msw-oldest').replace(/^npm:msw@/, ''), ...clients }, { from: 'msw-oldest', to: 'msw' }),
  ]);
  const figures = {
    tarball: { file: packed.filename, bytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.entryCount },
    installBytes: projects['newest'] === undefined ? null : duBytes(join(projects['newest'].dir, 'node_modules')),
  };
  mkdirSync(join(root, 'reports/pack'), { recursive: true });
  writeFileSync(join(root, 'reports/pack/pack.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`pack: ${JSON.stringify(figures)}\n`);
}, 1_200_000);

afterAll(async () => {
  // Two installed projects: a few hundred MB to delete.
  await rm(work, { recursive: true, force: true });
}, 300_000);

function project(name: string): string {
  const p = projects[name];
  expect(p, `project ${name} was not set up (build: ${buildRun.stderr.slice(-2000)})`).toBeDefined();
  expect(p?.install.code, `npm ci --offline in ${name}: ${p?.install.stderr.slice(-3000)}`).toBe(0);
  return p?.dir as string;
}

// The client runs and the strict type-check (the longest) are independent child processes with no
// deadline of their own: they run at once (it.concurrent). The iari test and library runs judge
// deadlines, so they run first, alone.
describe('the packed tarball, installed offline as a user installs it', () => {
  it('builds, and the tarball holds dist (JS and .d.ts), bin, spec, the accounts fixture, README and LICENSE, and no tests or scripts', () => {
    expect(buildRun.code, buildRun.stderr.slice(-3000)).toBe(0);
    const files = packed.files.map((f) => f.path);
    for (const f of ['package.json', 'README.md', 'LICENSE', 'bin/iari.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/mock-server/msw.js', 'dist/mock-server/msw.d.ts', 'dist/src/receipts/index.js', 'dist/src/cli/help.txt', 'dist/src/checks/clients/openai-python-driver.py', 'dist/spec/requirements.parsed.json', 'dist/tokenizer/o200k_base.ranks.json', 'spec/openapi.yaml', 'spec/requirements.yaml', 'spec/receipt.schema.json', 'fixtures/accounts.json']) {
      expect(files, f).toContain(f);
    }
    const unwanted = files.filter((f) => /\.(test|spec)\.|(^|\/)(tests?|__tests__|scripts|\.ci|\.github)\//.test(f) || f.includes('suites/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')));
    expect(unwanted).toEqual([]);
  });

  it('every package the installed dist imports is a dependency, optional dependency or peer dependency of iari, or a Node builtin', () => {
    const dist = join(project('newest'), 'node_modules/iari/dist');
    const manifest = JSON.parse(readFileSync(join(project('newest'), 'node_modules/iari/package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string>; optionalDependencies?: Record<string, string> };
    const allowed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies), ...Object.keys(manifest.optionalDependencies ?? {})]);
    const missing = new Set<string>();
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
      const code = readFileSync(join(dist, file), 'utf8');
      // Static imports and re-exports (tsc writes one per line) and import('...') with a literal.
      const specs = [
        ...code.matchAll(/^\s*(?:import|export)\b[^'\n]*\bfrom\s*'([^'.\/][^']*)';\s*$/gm),
        ...code.matchAll(/^\s*import\s*'([^'.\/][^']*)';\s*$/gm),
        ...code.matchAll(/\bimport\(\s*'([^'.\/][^']*)'\s*\)/g),
      ];
      for (const m of specs) {
        const spec = m[1] as string;
        if (spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
        if (!allowed.has(name)) missing.add(`${name} (${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('npx iari test against the bundled mock exits 0', async () => {
    const r = await run('npx', ['--offline', 'iari', 'test', '--report', 'reports/conformance'], project('newest'), 300_000);
    expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/exercised by the suites/);
  }, 320_000);

  it('the iari and iari/receipts entry points work from plain Node ESM: runConformance, runLoad, startMockServer, ChainBuilder and verifyChain', async () => {
    const r = await run('node', ['library.mjs'], project('newest'), 180_000);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const got = JSON.parse(r.stdout) as { passed: boolean; judged: string[]; finished: number; models: number; chainValid: boolean; errors: unknown[] };
    expect(got).toMatchObject({ passed: true, judged: ['CHAT-001:pass', 'MODELS-001:pass'], finished: 4, chainValid: true });
    expect(got.models).toBeGreaterThan(0);
  }, 190_000);

  it.concurrent('iari/msw in plain Node ESM, with the newest msw (3.x) of the user, serves the openai SDK and the Vercel AI SDK: models, a completion, a stream, a tool round trip, structured output', async () => {
    const r = await run('node', ['run-clients.mjs'], project('newest'), 120_000);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const got = JSON.parse(r.stdout) as Record<string, any>;
    expect(got['msw']).toBe(pinned('msw'));
    expect(got['models'].length).toBeGreaterThan(0);
    expect(got['retrieved']).toBe(got['models'][0]);
    for (const sdk of [got['openai'], got['aiSdk']]) {
      expect(sdk.completion.length).toBeGreaterThan(0);
      // The mock answers one request the same streamed or not: the reassembled stream is the completion.
      expect(sdk.stream).toBe(sdk.completion);
      expect(sdk.tool.name).toBe('get_weather');
      expect(typeof sdk.tool.args.city).toBe('string');
      expect(sdk.tool.answer).toMatch(/tool result/);
      expect(Object.keys(sdk.structured).sort()).toEqual(['city', 'conditions', 'temperature_c']);
    }
  }, 130_000);

  it.concurrent('the same client run passes inside the user\'s vitest', async () => {
    const r = await run('npx', ['--offline', 'vitest', 'run', 'clients.test.mjs'], project('newest'), 180_000);
    expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toMatch(/1 passed/);
  }, 190_000);

  it.concurrent('tsc --strict --module nodenext type-checks code using the three entry points with 0 errors', async () => {
    const r = await run('npx', ['--offline', 'tsc', '--strict', '--module', 'nodenext', '--noEmit', 'consumer.ts'], project('newest'), 180_000);
    expect(`${r.stdout}${r.stderr}`.match(/error TS\d+/g) ?? []).toEqual([]);
    expect(r.code).toBe(0);
  }, 190_000);

  // The peer range ^2.0.0 || ^3.0.0 holds at both ends of msw 2 (2.13 and later consult only handlers their own `http` built).
  it.concurrent.each([
    ['the newest msw 2.x', 'msw2', 'msw-2'],
    ['the oldest msw 2.x', 'oldest', 'msw-oldest'],
  ])('iari/msw works with %s too (the peer range ^2.0.0 || ^3.0.0): the same clients, the same answers as with msw 3', async (_what, name, alias) => {
    const r = await run('node', ['run-clients.mjs'], project(name), 120_000);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const got = JSON.parse(r.stdout) as Record<string, any>;
    expect(got['msw']).toBe(pinned(alias).replace(/^npm:msw@/, ''));
    expect(got['msw']).toMatch(/^2\./);
    const newest = await run('node', ['run-clients.mjs'], project('newest'), 120_000);
    const { msw: _a, ...old } = got;
    const { msw: newestMsw, ...now } = JSON.parse(newest.stdout) as Record<string, unknown>;
    expect(newestMsw).toMatch(/^3\./);
    expect(old).toEqual(now);
  }, 250_000);
});
