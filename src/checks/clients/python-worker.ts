import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';
import type { PythonSlot } from '../context/check-types.ts';

// openai-python runs in a Python interpreter of the user's (`iari test --python PATH`, default
// `python3`): one driver process per run (openai-python-driver.py, shipped beside this file),
// started when the run starts (the Python checks' prepare) and fed one job at a time, so a run pays the interpreter's
// start and openai's import once. Each job is bounded in time: a job that overruns kills the
// process (the next job starts a new one). The process gets no environment of the user's beyond
// what finds the interpreter (PATH, HOME, locale, PYTHONPATH, pyenv's selector): no OPENAI_*
// variable, no proxy, and never the token (the relay swaps a stand-in for it, client-relay.ts).

export const DRIVER_PATH = fileURLToPath(new URL('./openai-python-driver.py', import.meta.url));

export type { PythonSlot } from '../context/check-types.ts';

export interface PythonJob {
  op: 'create' | 'stream' | 'stream_helper' | 'tools' | 'tools_stream_helper' | 'error' | 'responses_create' | 'responses_stream' | 'responses_stream_helper' | 'responses_tools';
  base_url: string;
  api_key: string;
  model: string;
  max_tokens?: number;
  /** The Responses operations' bound (always sent: the Responses API has max_output_tokens). */
  max_output_tokens?: number;
  prompt: string;
  tool: unknown;
  tool_prompt: string;
  tool_result: unknown;
  timeout_s: number;
}

/** What openai-python raised, in its own terms. */
export interface PythonRaised {
  type: string;
  /** The class and its bases, innermost first (`AuthenticationError`, `APIStatusError`, `APIError`, ...). */
  bases: string[];
  message: string;
  /** The frame inside the openai package that raised it, `openai/<path>:<line>`. */
  where: string | null;
  status?: number;
  body_message?: string | null;
}

export type PythonOutcome = { ok: Record<string, unknown> } | { raised: PythonRaised } | { unavailable: string } | { timedOut: string };

const START_TIMEOUT_MS = 30_000;
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'PYTHONPATH', 'PYENV_ROOT', 'PYENV_VERSION', 'SYSTEMROOT'];

interface Running {
  child: ChildProcessWithoutNullStreams;
  lines: AsyncIterator<string>;
  version: string;
}

const workers = new WeakMap<PythonSlot, Promise<Running | { unavailable: string }>>();
const queues = new WeakMap<PythonSlot, Promise<unknown>>();

function driverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' };
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

async function nextLine(lines: AsyncIterator<string>, ms: number, onTimeout: () => void): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const got = await Promise.race([lines.next(), late]);
    if (got === 'late') {
      onTimeout();
      return undefined;
    }
    return got.done === true ? undefined : got.value;
  } finally {
    clearTimeout(timer);
  }
}

async function start(slot: PythonSlot): Promise<Running | { unavailable: string }> {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(slot.interpreter, [DRIVER_PATH], { env: driverEnv(), stdio: 'pipe' });
  } catch (error) {
    return { unavailable: `${slot.interpreter} could not be started (${(error as Error).message})` };
  }
  // A child that never started has no pid: under Node 22, kill() on it took the whole process group
  // down (vitest and npm ended with 137 when the driver's interpreter did not exist).
  const kill = (): void => {
    if (child.pid !== undefined) child.kill('SIGKILL');
  };
  // Started at the run's start (CheckDef.prepare): a run that ends before the greeting still ends it.
  slot.stop = kill;
  const spawnError = new Promise<string>((resolve) => child.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ENOENT' ? `no Python interpreter at ${slot.interpreter}` : `${slot.interpreter} could not be started (${e.message})`)));
  // A driver that ended (idle, or killed) makes a write fail: the read that follows reports it.
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString('utf8');
  });
  // The run does not wait for the driver: it ends with the run (slot.stop), on stdin's end, or idle.
  child.unref();
  for (const s of [child.stdout, child.stderr, child.stdin]) (s as unknown as Socket).unref?.();
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await Promise.race([nextLine(lines, START_TIMEOUT_MS, kill), spawnError.then((reason) => ({ reason }))]);
  if (typeof first === 'object') return { unavailable: first.reason };
  if (first === undefined) {
    kill();
    return { unavailable: `${slot.interpreter} did not start iari's openai-python driver${stderr === '' ? '' : `: ${stderr.trim().split('\n').pop() ?? ''}`}` };
  }
  let hello: { ready?: { openai?: string }; missing?: string };
  try {
    hello = JSON.parse(first) as typeof hello;
  } catch {
    kill();
    return { unavailable: `${slot.interpreter} printed something else than the driver's greeting` };
  }
  if (hello.missing !== undefined || hello.ready === undefined) {
    kill();
    return { unavailable: `${hello.missing ?? 'the driver did not start'} (${slot.interpreter})` };
  }
  return { child, lines, version: hello.ready.openai ?? 'unknown' };
}

/** The openai version the run's driver loaded, or why openai-python cannot run. */
export async function pythonClient(slot: PythonSlot): Promise<{ version: string } | { unavailable: string }> {
  let w = workers.get(slot);
  if (w === undefined) {
    w = start(slot);
    workers.set(slot, w);
  }
  const r = await w;
  return 'unavailable' in r ? r : { version: r.version };
}

/** Runs one job on the run's driver; at most one job at a time per run. */
export function runPython(slot: PythonSlot, job: PythonJob, timeoutMs: number): Promise<PythonOutcome> {
  const previous = queues.get(slot) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => runOne(slot, job, timeoutMs));
  queues.set(slot, next);
  return next;
}

let jobIds = 0;

async function runOne(slot: PythonSlot, job: PythonJob, timeoutMs: number): Promise<PythonOutcome> {
  const available = await pythonClient(slot);
  if ('unavailable' in available) return available;
  let w = (await workers.get(slot)) as Running | undefined;
  // The driver ends by itself after IDLE_S without a job: a new one is started.
  if (w !== undefined && 'child' in w && (w.child.exitCode !== null || w.child.signalCode !== null)) {
    workers.delete(slot);
    await pythonClient(slot);
    w = (await workers.get(slot)) as Running | undefined;
  }
  if (w === undefined || !('child' in w)) return { unavailable: 'the driver ended' };
  const id = ++jobIds;
  w.child.stdin.write(`${JSON.stringify({ id, ...job })}\n`);
  const kill = (): void => {
    workers.delete(slot);
    w.child.kill('SIGKILL');
  };
  const line = await nextLine(w.lines, timeoutMs, kill);
  if (line === undefined) {
    if (workers.get(slot) !== undefined) kill();
    return { timedOut: `openai-python's driver gave no result within ${Math.round(timeoutMs / 1000)} s (the process was ended)` };
  }
  let out: { id: number; ok?: Record<string, unknown>; raised?: PythonRaised };
  try {
    out = JSON.parse(line) as typeof out;
  } catch {
    kill();
    return { unavailable: `the driver printed something else than a result: ${line.slice(0, 200)}` };
  }
  if (out.ok !== undefined) return { ok: out.ok };
  if (out.raised !== undefined) return { raised: out.raised };
  return { unavailable: `the driver answered ${line.slice(0, 200)}` };
}
