/**
 * CPU time per thread of a process, from /proc/PID/task/*\/stat (Linux; empty elsewhere), summed by the
 * thread's name (Node names its own: MainThread, WorkerThread for each worker, V8Worker for the GC and
 * compiler helpers). For the ceiling's profile (scripts/profile-ceiling.ts): which thread is busiest.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Thread id → [name, CPU seconds (user + system)]. */
export type ThreadCpu = Map<string, [string, number]>;

const TICKS_PER_S = 100;

export function threadCpu(pid: number | 'self' = 'self'): ThreadCpu {
  const out: ThreadCpu = new Map();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = s.lastIndexOf(')');
      const name = s.slice(s.indexOf('(') + 1, close);
      // Fields after the name: state is field 3; utime and stime are fields 14 and 15.
      const f = s.slice(close + 2).split(' ');
      out.set(tid, [name, (Number(f[11]) + Number(f[12])) / TICKS_PER_S]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** CPU seconds each thread spent between two readings, by thread (a thread new since `before` counts from 0). */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu): { tid: string; name: string; s: number }[] {
  return [...after].map(([tid, [name, s]]) => ({ tid, name, s: s - (before.get(tid)?.[1] ?? 0) }));
}
