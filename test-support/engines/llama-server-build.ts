import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// llama.cpp's own server, built from the source that the npm package node-llama-cpp ships as a git
// bundle (llama/gitRelease.bundle), so nothing is fetched from outside the npm registry.
//
// The tarball is fetched alone with `npm pack` and checked against the integrity the registry
// publishes, instead of being a devDependency: installed as a package, node-llama-cpp would also
// pull 14 optional platform packages (prebuilt CUDA and Vulkan binaries among them) into every
// `npm ci`, and its install script would run. Only the test tier that needs the server pays for it.
//
// The build is cached under .cache/llama-server/<commit>/ (gitignored): bin/ (llama-server and the
// shared libraries it loads from beside it) and models/ (the vocab GGUF and the chat template the
// tiny model generator reads). A second run finds bin/llama-server and the stamp and builds nothing.

export const NODE_LLAMA_CPP = 'node-llama-cpp@3.21.1';
/** `npm view node-llama-cpp@3.21.1 dist.integrity` */
export const NODE_LLAMA_CPP_INTEGRITY = 'sha512-E3N0Ev2Va0wzydvXYFwM9Hvyo07PoWjt8T/9GMc43Cvt8YkV/NU/tYUgEMC1grTPv2o9PRjQi0G3Wb5P/awiMg==';
/** The one commit in its llama/gitRelease.bundle: ggml-org/llama.cpp, tag v0.4.0. */
export const LLAMA_COMMIT = '80fb11ac73e66d89eae2c6a91d8a77428fa733ed';
export const LLAMA_TAG = 'v0.4.0';

/**
 * The research note's flags (research/llama-server-2026-11.md, "Source and build"):
 * LLAMA_USE_PREBUILT_UI=OFF is required, or the build downloads a web UI; the server then runs with --no-ui.
 */
export const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DGGML_NATIVE=ON',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_SERVER=ON',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
] as const;

/** The files of the source tree the tiny model is made from (test-support/engines/tiny-model.ts). */
export const VOCAB_FILE = 'ggml-vocab-qwen2.gguf';
export const TEMPLATE_FILE = 'Qwen-Qwen2.5-7B-Instruct.jinja';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface LlamaServerBuild {
  /** The llama-server executable; its shared libraries are in the same folder. */
  binary: string;
  binDir: string;
  vocabPath: string;
  templatePath: string;
  commit: string;
  /** True when this call built it, false when the cache already held it. */
  built: boolean;
  seconds: number;
}

export class EngineBuildError extends Error {}

export function cacheDir(root = repoRoot): string {
  return join(root, '.cache', 'llama-server', LLAMA_COMMIT);
}

function stamp(): string {
  return JSON.stringify({ package: NODE_LLAMA_CPP, commit: LLAMA_COMMIT, flags: CMAKE_FLAGS, target: 'llama-server' });
}

/** The cached build, or undefined when it is absent or was made another way. */
export function cachedBuild(dir = cacheDir()): Omit<LlamaServerBuild, 'built' | 'seconds'> | undefined {
  const binDir = join(dir, 'bin');
  const binary = join(binDir, 'llama-server');
  const vocabPath = join(dir, 'models', VOCAB_FILE);
  const templatePath = join(dir, 'models', TEMPLATE_FILE);
  try {
    if (readFileSync(join(dir, 'stamp.json'), 'utf8') !== stamp()) return undefined;
  } catch {
    return undefined;
  }
  if (![binary, vocabPath, templatePath].every((p) => existsSync(p))) return undefined;
  return { binary, binDir, vocabPath, templatePath, commit: LLAMA_COMMIT };
}

export interface BuildOptions {
  /** Where build output goes (a file); the tail is quoted in an error. */
  logFile?: string;
  /** Progress lines (one per step). */
  say?: (line: string) => void;
  jobs?: number;
  dir?: string;
}

/**
 * The cached llama-server, built first when the cache does not hold it: npm pack, integrity check,
 * git clone of the bundle (its commit checked), cmake configure and build of the llama-server
 * target alone, then bin/ and the two model files copied into the cache.
 */
export async function ensureLlamaServer(options: BuildOptions = {}): Promise<LlamaServerBuild> {
  const dir = options.dir ?? cacheDir();
  const started = Date.now();
  const hit = cachedBuild(dir);
  if (hit !== undefined) return { ...hit, built: false, seconds: (Date.now() - started) / 1000 };
  const say = options.say ?? (() => {});
  for (const tool of ['git', 'cmake', 'c++', 'tar', 'npm']) {
    if (!(await onPath(tool))) throw new EngineBuildError(`llama-server build: ${tool} is not on PATH (Debian: apt-get install -y cmake g++ git)`);
  }
  const work = `${dir}.work-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const log = options.logFile ?? join(work, 'build.log');
  const run = (cmd: string, args: string[], cwd: string): Promise<string> => runLogged(cmd, args, cwd, log);
  try {
    const src = await fetchSource(work, run, say);
    say('cmake configure');
    await run('cmake', ['-B', 'build', ...CMAKE_FLAGS], src);
    say(`cmake build llama-server -j${options.jobs ?? 2} (minutes)`);
    await run('cmake', ['--build', 'build', '--target', 'llama-server', `-j${options.jobs ?? 2}`], src);
    const out = join(work, 'out');
    mkdirSync(join(out, 'bin'), { recursive: true });
    mkdirSync(join(out, 'models'), { recursive: true });
    // The binary loads its shared libraries from the build folder (RUNPATH) or LD_LIBRARY_PATH;
    // llama-server-process.ts sets LD_LIBRARY_PATH to bin/, so they are copied together.
    for (const name of readdirSync(join(src, 'build', 'bin'))) copyFileSync(join(src, 'build', 'bin', name), join(out, 'bin', name));
    copyFileSync(join(src, 'models', VOCAB_FILE), join(out, 'models', VOCAB_FILE));
    copyFileSync(join(src, 'models', 'templates', TEMPLATE_FILE), join(out, 'models', TEMPLATE_FILE));
    writeFileSync(join(out, 'stamp.json'), stamp());
    // Another run may have finished first: its build is as good as this one.
    if (cachedBuild(dir) === undefined) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(out, dir);
    }
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2_000) : '';
    throw error instanceof EngineBuildError ? error : new EngineBuildError(`llama-server build failed: ${(error as Error).message}\n${tail}`);
  } finally {
    if (options.logFile === undefined && existsSync(log)) copyFileSync(log, `${dir}.build.log`);
    rmSync(work, { recursive: true, force: true });
  }
  const done = cachedBuild(dir);
  if (done === undefined) throw new EngineBuildError(`llama-server build: ${dir} is incomplete after the build`);
  return { ...done, built: true, seconds: (Date.now() - started) / 1000 };
}

/**
 * npm pack of the pinned package into `work`, its integrity checked; the bundle and the info file
 * extracted (the tag checked) and cloned (the commit checked). Returns the source tree.
 */
export async function fetchSource(work: string, run: (cmd: string, args: string[], cwd: string) => Promise<string>, say: (line: string) => void = () => {}): Promise<string> {
  say(`npm pack ${NODE_LLAMA_CPP}`);
  const packed = JSON.parse(await run('npm', ['pack', NODE_LLAMA_CPP, '--json', '--pack-destination', work], work)) as { filename: string }[];
  const tarball = join(work, packed[0]?.filename ?? 'missing.tgz');
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== NODE_LLAMA_CPP_INTEGRITY) throw new EngineBuildError(`llama-server build: ${NODE_LLAMA_CPP} integrity ${integrity}, expected ${NODE_LLAMA_CPP_INTEGRITY}`);
  await run('tar', ['-xzf', tarball, '-C', work, 'package/llama/gitRelease.bundle', 'package/llama/llama.cpp.info.json'], work);
  rmSync(tarball);
  const info = JSON.parse(readFileSync(join(work, 'package/llama/llama.cpp.info.json'), 'utf8')) as { tag?: string };
  if (info.tag !== LLAMA_TAG) throw new EngineBuildError(`llama-server build: the package names llama.cpp ${String(info.tag)}, expected ${LLAMA_TAG}`);
  say(`git clone llama/gitRelease.bundle (${LLAMA_TAG})`);
  const src = join(work, 'src');
  await run('git', ['clone', '--quiet', join(work, 'package/llama/gitRelease.bundle'), src], work);
  const head = (await run('git', ['rev-parse', 'HEAD'], src)).trim();
  if (head !== LLAMA_COMMIT) throw new EngineBuildError(`llama-server build: the bundle holds commit ${head}, expected ${LLAMA_COMMIT}`);
  return src;
}

function onPath(tool: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Runs a command, appending its output to `log`; resolves with its stdout, rejects on a non-zero exit. */
export function runLogged(cmd: string, args: string[], cwd: string, log: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sink = createWriteStream(log, { flags: 'a' });
    sink.write(`$ ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (b: Buffer) => {
      if (stdout.length < 1_000_000) stdout += b.toString('utf8');
      sink.write(b);
    });
    child.stderr.on('data', (b: Buffer) => sink.write(b));
    child.once('error', (e) => (sink.end(), reject(e)));
    child.once('close', (code) => {
      sink.end();
      if (code === 0) resolve(stdout);
      else reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')} exited ${String(code)}`));
    });
  });
}
