import { formatDuration } from '../duration.ts';
import { areaOfId } from '../checks/runner/conformance-results.ts';

/**
 * `iari test`'s progress (issue 37 item 3): a line at least every 10 s, on a terminal (rewritten in
 * place on stderr, as `iari load`'s progress line is) and in CI logs (one line each time), saying the
 * area, the checks done of the total, the time elapsed and an estimate of what is left. Quiet with --json.
 */
export const PROGRESS_EVERY_MS = 10_000;

export interface TestProgress {
  /** After each check: its requirement IDs (for the area), the checks done and the total. */
  onResult(ids: readonly string[], done: number, total: number): void;
  /** Ends the ticking and clears a terminal's line. */
  stop(): void;
}

interface ProgressIo {
  write: (text: string) => void;
  tty: boolean;
  now?: () => number;
  /** A fake clock's timers, for tests; default the process's. */
  timers?: { every: (fn: () => void, ms: number) => unknown; cancel: (timer: unknown) => void };
  /** The run's deadline as an epoch-ms instant, when it has one: no estimate goes past it. */
  deadlineAt?: number;
}

/** What is left at the rate so far, never past the run's deadline; undefined before the first check ends. */
export function estimateLeftMs(elapsedMs: number, done: number, total: number, deadlineLeftMs = Infinity): number | undefined {
  if (done === 0) return undefined;
  return Math.max(0, Math.min(deadlineLeftMs, (elapsedMs / done) * (total - done)));
}

/** One progress line: `12 s  area CHAT  checks 45/210  about 1 min left`. */
export function progressText(elapsedMs: number, area: string | undefined, done: number, total: number, leftMs: number | undefined): string {
  const left = leftMs === undefined ? 'estimating' : `about ${formatDuration(Math.round(leftMs / 1000) * 1000)} left`;
  return `${formatDuration(Math.round(elapsedMs / 1000) * 1000)}  area ${area ?? '-'}  checks ${done}/${total}  ${left}`;
}

export function testProgress(io: ProgressIo): TestProgress {
  const now = io.now ?? Date.now;
  const started = now();
  let done = 0;
  let total = 0;
  let area: string | undefined;
  const line = (): void => {
    const elapsed = now() - started;
    const text = `iari test: ${progressText(elapsed, area, done, total, estimateLeftMs(elapsed, done, total, io.deadlineAt === undefined ? Infinity : io.deadlineAt - now()))}`;
    io.write(io.tty ? `\r\x1b[2K${text}` : `${text}\n`);
  };
  const timers = io.timers ?? { every: (fn: () => void, ms: number) => setInterval(fn, ms).unref(), cancel: (t: unknown) => clearInterval(t as NodeJS.Timeout) };
  const timer = timers.every(line, PROGRESS_EVERY_MS);
  let lastTty = 0;
  return {
    onResult(ids, d, t) {
      done = d;
      total = t;
      const first = ids[0];
      if (first !== undefined) area = areaOfId(first);
      // A terminal follows every check (at most 10 lines a second); a log gets the timer's lines only.
      if (io.tty && now() - lastTty >= 100) {
        lastTty = now();
        line();
      }
    },
    stop() {
      timers.cancel(timer);
      if (io.tty) io.write('\r\x1b[2K');
    },
  };
}
