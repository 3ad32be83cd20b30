import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

// Starts llama.cpp's server on a loopback port, waits until /health says it is ready, and stops it.
// llama-server does not accept port 0, so a free port is found first (bound on 127.0.0.1, then
// released); a lost race shows as an exit before ready and is retried on another port.

export interface LlamaServerOptions {
  binary: string;
  /** The folder of the shared libraries it loads (LD_LIBRARY_PATH). */
  libDir: string;
  model: string;
  /** Served as the model id (`--alias`). */
  alias?: string;
  apiKey?: string;
  embeddings?: boolean;
  /** Flags beyond the defaults: `--jinja -c 8192 -np 4 --metrics --no-ui`. */
  extraArgs?: readonly string[];
  readyTimeoutMs?: number;
}

export interface LlamaServer {
  /** http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  args: readonly string[];
  /** The last 64 KiB of what it printed. */
  output(): string;
  stop(): Promise<void>;
}

export class EngineStartError extends Error {}

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new EngineStartError('no free loopback port');
  return address.port;
}

export function llamaServerArgs(options: LlamaServerOptions, port: number): string[] {
  return [
    '--host', '127.0.0.1', '--port', String(port),
    '-m', options.model,
    '--alias', options.alias ?? 'tiny-qwen2',
    '--jinja', '-c', '8192', '-np', '4', '--metrics', '--no-ui',
    '-t', '2',
    ...(options.apiKey !== undefined ? ['--api-key', options.apiKey] : []),
    ...(options.embeddings === true ? ['--embeddings'] : []),
    ...(options.extraArgs ?? []),
  ];
}

const STOP_GRACE_MS = 5_000;

export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    try {
      return await startOn(options, port);
    } catch (error) {
      lastError = error as Error;
      // Only a port taken between our probe and its bind is worth another try.
      if (!/bind|address already in use/i.test(lastError.message)) throw lastError;
    }
  }
  throw lastError ?? new EngineStartError('llama-server did not start');
}

async function startOn(options: LlamaServerOptions, port: number): Promise<LlamaServer> {
  const args = llamaServerArgs(options, port);
  // The key is passed on the command line (llama-server has no other way); it is never printed here.
  const child: ChildProcess = spawn(options.binary, args, {
    env: { PATH: process.env['PATH'] ?? '', LD_LIBRARY_PATH: options.libDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null && spawnError === undefined;
  const stop = async (): Promise<void> => {
    if (running()) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_GRACE_MS))]);
    if (running()) {
      child.kill('SIGKILL');
      await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_GRACE_MS))]);
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  // /health answers 503 while the model loads and 200 {"status":"ok"} when ready; it needs no key.
  for (;;) {
    if (!running()) {
      await stop();
      const redacted = options.apiKey === undefined ? out : out.split(options.apiKey).join('***');
      throw new EngineStartError(`llama-server exited before ready (${spawnError?.message ?? `code ${String(child.exitCode)}`}):\n${redacted.slice(-4_000)}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new EngineStartError(`llama-server was not ready within ${options.readyTimeoutMs ?? 60_000} ms on ${url}`);
    }
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) break;
      await response.body?.cancel();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `${url}/v1`, port, args: args.map((a) => (a === options.apiKey ? '***' : a)), output: () => out, stop };
}
