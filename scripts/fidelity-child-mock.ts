/**
 * The bundled mock in a child process for the fidelity benches (scripts/bench-load.ts,
 * scripts/fidelity-floor.ts): its own event loop and core, on the host's monotonic clock.
 * Besides the URL it answers IPC {eld: 'start' | 'stop'} with its own event-loop delay, so a
 * bench can tell the mock's lateness from the client's.
 *
 *   fork('scripts/fidelity-child-mock.ts', [JSON.stringify(options)], { execArgv: ['--import', 'tsx'] })
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import { startMockServer, type MockServerOptions } from '../mock-server/index.ts';

export interface MockHandle {
  url: string;
  token: string;
  model: string;
  proc: ChildProcess;
}

export interface MockLag {
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export function startChildMock(options: MockServerOptions, execArgv: string[] = []): Promise<MockHandle> {
  const proc = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], { execArgv: [...execArgv, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('mock child did not start in 20 s')), 20_000);
    const onMessage = (m: unknown): void => {
      const msg = m as { url?: string; token: string; model: string };
      if (msg.url === undefined) return;
      clearTimeout(t);
      proc.off('message', onMessage);
      resolve({ url: msg.url, token: msg.token, model: msg.model, proc });
    };
    proc.on('message', onMessage);
    proc.once('exit', (code) => reject(new Error(`mock child exited with ${code}`)));
  });
}

/** Starts (or stops and returns) the mock's own event-loop delay histogram. */
export function mockLag(m: MockHandle, op: 'start' | 'stop'): Promise<MockLag | null> {
  return new Promise((resolve) => {
    const onMessage = (x: unknown): void => {
      const msg = x as { eld?: MockLag | null };
      if (!('eld' in (msg as object))) return;
      m.proc.off('message', onMessage);
      resolve(msg.eld ?? null);
    };
    m.proc.on('message', onMessage);
    m.proc.send({ eld: op });
  });
}

export async function stopChild(m: MockHandle): Promise<void> {
  const exited = new Promise<void>((r) => m.proc.once('exit', () => r()));
  m.proc.disconnect();
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (m.proc.exitCode === null) m.proc.kill('SIGKILL');
}

if (process.send !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = JSON.parse(process.argv[2] ?? '{}') as MockServerOptions;
  const mock = await startMockServer({ limits: false, receipts: false, sendLogCapacity: 100_000, ...options });
  let eld: ELDHistogram | null = null;
  process.on('message', (m: { eld?: 'start' | 'stop' }) => {
    if (m.eld === 'start') {
      eld = monitorEventLoopDelay({ resolution: 1 });
      eld.enable();
      process.send?.({ eld: null });
    } else if (m.eld === 'stop') {
      const h = eld;
      h?.disable();
      eld = null;
      // The histogram holds whole timer intervals (resolution included): report the delay beyond 1 ms.
      const us = (ns: number): number => Math.max(0, Math.round((ns - 1e6) / 1000));
      process.send?.({ eld: h === null ? null : { p50Us: us(h.percentile(50)), p99Us: us(h.percentile(99)), maxUs: us(h.max) } });
    }
  });
  process.send({ url: mock.url, token: mock.tokens.default, model: mock.admin.models().available[0] });
  process.on('disconnect', () => void mock.close().then(() => process.exit(0)));
}
