import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// @dwmkerr/mock-llm (devDependency), a third-party OpenAI-compatible mock nobody on this project
// wrote, started the way its README says (`mock-llm`, dist/main.js) with its default configuration.
// Its main.js reads `HOST = process.env.HOST || '0.0.0.0'` and `PORT = process.env.PORT || 6556`,
// so it is given HOST=127.0.0.1 and a free port; the suite checks the socket really is loopback.

export interface MockLlm {
  url: string;
  port: number;
  /** What the server printed (its request log), for failure messages. */
  output(): string;
  close(): Promise<void>;
}

export const MOCK_LLM_VERSION: string = (() => {
  const require = createRequire(import.meta.url);
  const pkg = JSON.parse(readFileSync(require.resolve('@dwmkerr/mock-llm/package.json'), 'utf8')) as { version: string };
  return pkg.version;
})();

function mainScript(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@dwmkerr/mock-llm/package.json')), 'dist', 'main.js');
}

/** A port nothing listens on right now (bound on loopback, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function startMockLlm(timeoutMs = 20_000): Promise<MockLlm> {
  const port = await freePort();
  // An empty working directory: mock-llm loads ./mock-llm.yaml when there is one (config.js getConfigPath).
  const cwd = mkdtempSync(join(tmpdir(), 'iari-mock-llm-'));
  const child: ChildProcess = spawn(process.execPath, [mainScript()], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-64 * 1024)));
  child.stderr?.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-64 * 1024)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (!out.includes(`server running on 127.0.0.1:${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`mock-llm did not start on 127.0.0.1:${port}:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}/v1`, port, output: () => out, close };
}

/**
 * Local addresses with a listening TCP socket on `port`, from /proc/net/tcp and tcp6 (Linux), as
 * dotted or bracketed text: what the kernel says the server bound, whatever it printed.
 */
export function listeningAddresses(port: number): string[] | undefined {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (local === undefined || cols[3] !== '0A') continue; // 0A = LISTEN
      const [hex, portHex] = local.split(':');
      if (hex === undefined || Number.parseInt(portHex ?? '', 16) !== port) continue;
      found.push(hex.length === 8 ? ipv4(hex) : ipv6(hex));
    }
  }
  return found;
}

function ipv4(hex: string): string {
  // /proc/net/tcp writes the address as one little-endian 32-bit word.
  return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
}

function ipv6(hex: string): string {
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const bytes = [6, 4, 2, 0].map((i) => word.slice(i, i + 2)).join('');
    words.push(bytes.slice(0, 4), bytes.slice(4, 8));
  }
  return `[${words.map((x) => x.replace(/^0{1,3}/, '')).join(':')}]`;
}
