// What the compare benchmarks share (compare-false-positives.ts, compare-ab.ts): a bundled mock on
// loopback with a chosen TTFT, `iari load` run quietly in this process, the gate each load row gets,
// the outcome of every row's gate counted, and the machine's load average sampled while they run.
import { spawn, type ChildProcess } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run as runLoadCommand } from '../src/cli/load-command.ts';
import type { CompareSide } from '../src/compare/compare-inputs.ts';
import { buildComparison } from '../src/compare/compare-report.ts';
import { evaluateGates, runContext, type GateOutcome } from '../src/compare/gate-outcome.ts';
import { parseGate } from '../src/compare/gates.ts';
import type { MetricRow } from '../src/compare/load-compare.ts';
import type { NoiseCalibration } from '../src/compare/noise-calibration.ts';

export const root = fileURLToPath(new URL('../', import.meta.url));
const cli = ['--import', 'tsx', join(root, 'src/cli/entry.ts')];

/** `iari mock --ttft MS [more flags]` on 127.0.0.1:port (no rate limits), resolved once it listens. */
export function startMock(port: number, ttft: number, token: string, more: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cli, 'mock', '--host', '127.0.0.1', '--port', String(port), '--ttft', String(ttft), '--no-limits', ...more], { cwd: root, env: { ...process.env, IARI_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** `iari load ARGV --quiet --report DIR` in this process, its stdout muted; one retry (a shared machine can fail a run for reasons of its own). */
export async function quietLoad(argv: readonly string[], dir: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true) as typeof process.stdout.write;
    let code: number;
    try {
      code = await runLoadCommand([...argv, '--quiet', '--report', dir]);
    } finally {
      process.stdout.write = write;
    }
    if (code === 0) return dir;
    process.stderr.write(`load ${basename(dir)} attempt ${attempt}: exit ${code}\n`);
    if (attempt === 2) throw new Error(`load ${basename(dir)}: exit ${code}`);
  }
}

/** A run's directory once judged: moved into `keep` when given, else removed (never with --from: those are the kept runs). */
export function finish(dir: string, o: { keep?: string | undefined; from?: string | undefined }): void {
  if (o.from !== undefined) return;
  if (o.keep === undefined) rmSync(dir, { recursive: true, force: true });
  else renameSync(dir, join(o.keep, basename(dir)));
}

export interface RowOutcome {
  outcome: GateOutcome;
  /** The inconclusive reason's code. */
  code: string | null;
  /** The relative change (null: none). */
  relative: number | null;
}

/** Every load row of base vs next gated with rowGate, as `iari report compare --fail-on` would. */
export function rowOutcomes(base: CompareSide, next: CompareSide, calibration: NoiseCalibration | null = null): Map<string, RowOutcome> {
  const { report } = buildComparison(base, next, 1, 0.05, calibration);
  const rows = report.load?.rows ?? [];
  const keys = new Set(rows.map((r) => r.key));
  const gates = evaluateGates(rows.map((r) => parseGate(rowGate(r), keys)), rows, null, runContext(base.load, next.load));
  return new Map(gates.map((g) => [g.key, { outcome: g.outcome, code: g.inconclusive?.code ?? null, relative: rows.find((r) => r.key === g.key)?.relative ?? null }]));
}

export type Tally = Record<GateOutcome, number>;
export const tally = (): Tally => ({ trip: 0, hold: 0, inconclusive: 0 });

/** Outcomes counted per row, and inconclusive ones per reason, over many comparisons. */
export class RowTallies {
  readonly perRow = new Map<string, Tally>();
  readonly reasons = new Map<string, number>();
  comparisons = 0;
  withTrip = 0;

  add(o: Map<string, RowOutcome>): string[] {
    this.comparisons++;
    const trips: string[] = [];
    for (const [k, v] of o) {
      const t = this.perRow.get(k) ?? tally();
      t[v.outcome]++;
      this.perRow.set(k, t);
      if (v.code !== null) this.reasons.set(v.code, (this.reasons.get(v.code) ?? 0) + 1);
      if (v.outcome === 'trip') trips.push(k);
    }
    if (trips.length > 0) this.withTrip++;
    return trips;
  }

  total(): Tally {
    return [...this.perRow.values()].reduce((s, v) => ({ trip: s.trip + v.trip, hold: s.hold + v.hold, inconclusive: s.inconclusive + v.inconclusive }), tally());
  }

  toJSON(): object {
    return { comparisons: this.comparisons, withAnyTrip: this.withTrip, total: this.total(), perRow: Object.fromEntries(this.perRow), inconclusiveReasons: Object.fromEntries(this.reasons) };
  }
}

/** The 1-minute load average sampled every 10 s while the benchmark runs. */
export class LoadSampler {
  readonly samples: number[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.sample();
    this.#timer = setInterval(() => this.sample(), 10_000);
    this.#timer.unref();
  }

  sample(): number {
    const x = loadavg()[0] ?? 0;
    this.samples.push(Math.round(x * 100) / 100);
    return x;
  }

  stop(): ReturnType<LoadSampler['summary']> {
    clearInterval(this.#timer);
    return this.summary();
  }

  summary(): { samples: number; min: number; mean: number; max: number } {
    const s = this.samples;
    return { samples: s.length, min: Math.min(...s), mean: Math.round((s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)) * 100) / 100, max: Math.max(...s) };
  }
}
