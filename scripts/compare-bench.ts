// What the compare benchmarks share (compare-false-positives.ts, compare-ab.ts): a bundled mock on
// loopback with a chosen TTFT, and the gate each load row gets.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MetricRow } from '../src/compare/load-compare.ts';

export const root = fileURLToPath(new URL('../', import.meta.url));
const cli = ['--import', 'tsx', join(root, 'src/cli/entry.ts')];

/** `iari mock --ttft MS` on 127.0.0.1:port (no rate limits), resolved once it listens. */
export function startMock(port: number, ttft: number, token: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cli, 'mock', '--host', '127.0.0.1', '--port', String(port), '--ttft', String(ttft), '--no-limits'], { cwd: root, env: { ...process.env, IARI_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('mock did not start in 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('127.0.0.1')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

/** The gate every row gets: a 10% regression of a latency or a rate, half a point of a ratio. */
export function rowGate(r: MetricRow): string {
  if (r.key === 'errors.rate') return 'errors.rate>+0.5pp';
  if (r.key === 'goodput.fraction') return 'goodput.fraction<-0.5pp';
  if (/^(throughput|goodput)\.|^output_tps\./.test(r.key)) return `${r.key}<-10%`;
  return `${r.key}>+10%`;
}
