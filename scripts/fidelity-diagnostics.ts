/**
 * Diagnostics shared by the fidelity benches (scripts/bench-load.ts, scripts/fidelity-floor.ts):
 * the mock's full send log, how late its writes were, scheduler figures from /proc, GC pauses,
 * and raising both event-loop threads' scheduler priority.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { SentEvent } from '../test-support/load-fidelity.ts';
import type { RequestTiming } from '../src/load/measure/request-timer.ts';
import { errorDistribution, type ErrorDistribution } from '../test-support/load-stats.ts';
import type { MockHandle } from './fidelity-child-mock.ts';

export interface SendLogFull {
  headNs: bigint;
  events: (SentEvent & { intendedMs: number })[];
}

export async function fetchSendLogFull(m: MockHandle, ids: string[]): Promise<Map<string, SendLogFull>> {
  const pool = new Pool(new URL(m.url).origin, { connections: 8 });
  const out = new Map<string, SendLogFull>();
  try {
    for (let i = 0; i < ids.length; i += 64) {
      await Promise.all(
        ids.slice(i, i + 64).map(async (id) => {
          const res = await pool.request({ method: 'GET', path: `/_iari/send-log?request_id=${encodeURIComponent(id)}` });
          const body = (await res.body.json()) as { head_ns?: string; events?: { written_ns: string; tokens: number; content: boolean; intended_ms: number }[] };
          if (res.statusCode === 200 && body.events !== undefined && body.head_ns !== undefined) {
            out.set(id, { headNs: BigInt(body.head_ns), events: body.events.map((e) => ({ writtenNs: BigInt(e.written_ns), tokens: e.tokens, content: e.content, intendedMs: e.intended_ms })) });
          }
        }),
      );
    }
  } finally {
    await pool.close();
  }
  return out;
}

/** How late the mock's writes were against its own schedule (written - head - intended), µs. */
export function mockWriteLateness(logs: Iterable<SendLogFull>): ErrorDistribution {
  const late: number[] = [];
  for (const l of logs) for (const e of l.events) if (e.writtenNs > 0n) late.push(Number(e.writtenNs - l.headNs) / 1000 - e.intendedMs * 1000);
  return errorDistribution(late);
}

/** cputime, run_delay (time runnable but waiting for a CPU) and timeslices of a process's main thread, from /proc. */
export function schedstat(pid: number | 'self'): [number, number, number] | null {
  try {
    const [a, b, c] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return [a ?? 0, b ?? 0, c ?? 0];
  } catch {
    return null;
  }
}

export interface SchedDelta {
  cpuMs: number;
  /** Time the thread was runnable but not running (waiting for a core). */
  runDelayMs: number;
  timeslices: number;
}

export function schedDelta(a: [number, number, number] | null, b: [number, number, number] | null): SchedDelta | null {
  if (a === null || b === null) return null;
  return { cpuMs: Math.round((b[0] - a[0]) / 1e4) / 100, runDelayMs: Math.round((b[1] - a[1]) / 1e4) / 100, timeslices: b[2] - a[2] };
}

/**
 * Gives both event-loop threads (this process and the mock child) scheduler priority `nice`
 * (negative = favoured; needs CAP_SYS_NICE), so other work on a shared host preempts them less.
 * With IARI_PIN set it also pins every thread of this process to core 0 and of the mock to core 1
 * (taskset). Returns the undo for this process, or null when not permitted.
 */
export function raisePriority(m: MockHandle, nice: number, pin = process.env['IARI_PIN'] !== undefined): (() => void) | null {
  const before = getPriority(0);
  try {
    setPriority(0, nice);
    if (m.proc.pid !== undefined) setPriority(m.proc.pid, nice);
    if (pin) {
      execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
      execFileSync('taskset', ['-a', '-p', '-c', '1', String(m.proc.pid)], { stdio: 'ignore' });
    }
  } catch {
    return null;
  }
  return () => {
    setPriority(0, before);
    if (pin) execFileSync('taskset', ['-a', '-p', '-c', '0-1', String(process.pid)], { stdio: 'ignore' });
  };
}

export interface GcFigures {
  count: number;
  totalMs: number;
  maxMs: number;
  /** Pauses by kind: scavenges (young generation) and mark-compacts (whole heap). */
  minor: { count: number; totalMs: number };
  major: { count: number; totalMs: number };
  /** [start, end] of every pause, hrtime ns. */
  windows: [number, number][];
}

/** Records this process's GC pauses (PerformanceObserver 'gc') on the hrtime clock until stop(). */
export function gcRecorder(): { stop: () => GcFigures } {
  const windows: [number, number][] = [];
  const minor = { count: 0, totalMs: 0 };
  const major = { count: 0, totalMs: 0 };
  const perfToNs = Number(process.hrtime.bigint()) - performance.now() * 1e6;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      windows.push([perfToNs + e.startTime * 1e6, perfToNs + (e.startTime + e.duration) * 1e6]);
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      const k = kind === constants.NODE_PERFORMANCE_GC_MINOR ? minor : kind === constants.NODE_PERFORMANCE_GC_MAJOR ? major : null;
      if (k !== null) {
        k.count++;
        k.totalMs = Math.round((k.totalMs + e.duration) * 100) / 100;
      }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      obs.disconnect();
      const d = windows.map(([a, b]) => (b - a) / 1e6);
      const r = (x: number): number => Math.round(x * 100) / 100;
      return { count: d.length, totalMs: r(d.reduce((a, b) => a + b, 0)), maxMs: r(Math.max(0, ...d)), minor, major, windows };
    },
  };
}

/**
 * Of the per-token ITL errors above 1 ms, how many have a GC pause of this process between the
 * earlier of the two writes and the later stamp (the pause could have held one of the stamps).
 */
export function nearGc(timings: readonly RequestTiming[], log: Map<string, SendLogFull>, windows: readonly [number, number][]): { largeItlErrors: number; withGcPause: number } {
  let large = 0;
  let withGc = 0;
  for (const t of timings) {
    const truth = log.get(t.requestId ?? '')?.events.filter((e) => e.content && e.tokens > 0 && e.writtenNs > 0n);
    const seen = t.tokenEvents.filter((e) => e.tokens > 0);
    if (truth === undefined || truth.length !== seen.length) continue;
    for (let i = 1; i < seen.length; i++) {
      const a = truth[i]!;
      const err = Number(seen[i]!.atNs - seen[i - 1]!.atNs - (a.writtenNs - truth[i - 1]!.writtenNs)) / 1000 / a.tokens;
      if (Math.abs(err) <= 1000) continue;
      large += a.tokens;
      const from = Number(truth[i - 1]!.writtenNs);
      const to = Number(seen[i]!.atNs);
      if (windows.some(([s, e]) => s <= to && e >= from)) withGc += a.tokens;
    }
  }
  return { largeItlErrors: large, withGcPause: withGc };
}
