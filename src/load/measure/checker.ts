import { availableParallelism } from 'node:os';
import { CheckThread, WORKER_BYTE_BUDGET } from './check-thread.ts';
import { ByteBudget } from './byte-budget.ts';
import { LargeReadTurns } from './large-reads.ts';
import { checkScope, type CheckScope } from './timing-builder.ts';
import type { ProtocolList } from '../../protocols/registry.ts';

/** What the in-process queue calls: a timer with reads stamped but not yet checked. */
export interface QueuedCheck {
  process(): void;
}

/** Checking yields back to I/O after this much work, so reads arriving meanwhile are stamped on time. */
const SLICE_NS = 300_000n;

/**
 * At most this many check workers. Two split the checking so that neither outruns the engine's thread
 * by much (per event: engine 1.0-1.2 µs, each of two workers 1.3-1.4, docs/load.md "Check workers");
 * a third would buy little more, and each holds its own tokenizer tables (about 60 MiB) and heap: the
 * second adds 15-55 MiB to a run's peak RSS against hostile servers (suites/hostile, concurrency 4).
 */
export const MAX_CHECK_WORKERS = 2;

/**
 * How many check workers a run starts: a core each beside this thread's (the engine's), no more than
 * the responses that can be open at once (a response is checked by one worker), at least one.
 */
export function checkWorkerCount(concurrency: number | null, parallelism = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_CHECK_WORKERS, parallelism - 1, concurrency ?? MAX_CHECK_WORKERS));
}

/**
 * How one load run checks what it reads: on its own check workers (src/load/measure/check-thread.ts),
 * each response wholly on one of them (the one with the fewest responses open when it starts), or,
 * when none could start, in this thread in deferred batches. Owned by the run that made it and
 * passed to its engines (EngineTarget.checker); nothing about it is module-global.
 *
 * In-process, stamps are taken the moment a read arrives; the parsing and checking of what arrived
 * waits until every socket that became readable in the same I/O phase has been stamped
 * (setImmediate runs after the poll phase). Otherwise, when many streams receive an event at the
 * same instant, the last socket's stamp would include the checking of all the others.
 */
export class Checker {
  readonly #threads: readonly CheckThread[];
  /** The bytes in flight to all the workers together (WORKER_BYTE_BUDGET). */
  readonly #budget: ByteBudget;
  /** The APIs this run's answers may belong to, and how their rules grade (in this thread; the worker makes its own). */
  readonly scope: CheckScope;
  /** Timers with unchecked reads, each once, in the order of its first such read; `#head` is the next one. */
  readonly #pending: (QueuedCheck | undefined)[] = [];
  #head = 0;
  #scheduled = false;
  /** Responses holding a large event or body read in turns (large-reads.ts). */
  readonly large = new LargeReadTurns();

  constructor(threads: readonly CheckThread[], protocols: ProtocolList, budget = new ByteBudget(WORKER_BYTE_BUDGET)) {
    this.#threads = threads;
    this.#budget = budget;
    this.scope = checkScope(protocols);
    // Checking in this thread: the registry's grades are read now, not inside the first response (check-worker.ts does the same).
    if (threads.length === 0) this.scope.grade(protocols[0], '');
  }

  /**
   * A checker of these APIs' answers with `workers` worker threads (those that start; in-process when
   * none does), sharing one byte budget.
   */
  static async start(protocols: ProtocolList, workers: number, inProcess = false): Promise<Checker> {
    if (inProcess) return new Checker([], protocols);
    const budget = new ByteBudget(WORKER_BYTE_BUDGET);
    const started = await Promise.allSettled(Array.from({ length: workers }, () => CheckThread.start(protocols, budget)));
    return new Checker(started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])), protocols, budget);
  }

  /** In-process only (tests, and the fallback). */
  static inProcess(protocols: ProtocolList): Checker {
    return new Checker([], protocols);
  }

  /** True while a worker is usable: responses starting now are checked off this thread. */
  get inWorker(): boolean {
    return this.#threads.some((t) => t.usable);
  }

  /** The worker a response starting now is checked on (the usable one with the fewest open); null: in this thread. */
  assign(): CheckThread | null {
    let best: CheckThread | null = null;
    for (const t of this.#threads) if (t.usable && (best === null || t.openCount < best.openCount)) best = t;
    return best;
  }

  /** Null while the workers keep up; else resolves once they have caught up (engines pause their reads meanwhile). */
  backlog(): Promise<void> | null {
    return this.inWorker ? this.#budget.wait() : null;
  }

  /**
   * Called by the engines after each read of a response: null, read on; else a promise that
   * resolves once reading may go on (the worker caught up, and a large read has its turn).
   */
  readGate(who: object, openBytes: number): Promise<void> | null {
    const turn = this.large.gate(who, openBytes);
    const backlog = this.backlog();
    if (turn === null) return backlog;
    if (backlog === null) return turn;
    return Promise.all([turn, backlog]).then(() => undefined);
  }

  /** Queues a timer once (no allocation per read: the stamping path stays light on the garbage collector). */
  schedule(timer: QueuedCheck): void {
    this.#pending.push(timer);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const deadline = process.hrtime.bigint() + SLICE_NS;
    const pending = this.#pending;
    while (this.#head < pending.length) {
      const timer = pending[this.#head] as QueuedCheck;
      pending[this.#head++] = undefined;
      timer.process();
      if (this.#head < pending.length && process.hrtime.bigint() > deadline) {
        this.#scheduled = true;
        setImmediate(this.#flush);
        return;
      }
    }
    pending.length = 0;
    this.#head = 0;
  };

  /** Ends the workers (their pending requests are failed by them). */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((t) => t.close()));
  }
}
