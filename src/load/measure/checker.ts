import { CheckThread } from './check-thread.ts';
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
 * How one load run checks what it reads: on its own check worker (src/load/measure/check-thread.ts), or,
 * when none could start, in this thread in deferred batches. Owned by the run that made it and
 * passed to its engines (EngineTarget.checker); nothing about it is module-global.
 *
 * In-process, stamps are taken the moment a read arrives; the parsing and checking of what arrived
 * waits until every socket that became readable in the same I/O phase has been stamped
 * (setImmediate runs after the poll phase). Otherwise, when many streams receive an event at the
 * same instant, the last socket's stamp would include the checking of all the others.
 */
export class Checker {
  readonly #thread: CheckThread | null;
  /** The APIs this run's answers may belong to, and how their rules grade (in this thread; the worker makes its own). */
  readonly scope: CheckScope;
  /** Timers with unchecked reads, each once, in the order of its first such read; `#head` is the next one. */
  readonly #pending: (QueuedCheck | undefined)[] = [];
  #head = 0;
  #scheduled = false;
  /** Responses holding a large event or body read in turns (large-reads.ts). */
  readonly large = new LargeReadTurns();

  constructor(thread: CheckThread | null, protocols: ProtocolList) {
    this.#thread = thread;
    this.scope = checkScope(protocols);
    // Checking in this thread: the registry's grades are read now, not inside the first response (check-worker.ts does the same).
    if (thread === null) this.scope.grade(protocols[0], '');
  }

  /** A checker of these APIs' answers with its own worker thread, or in-process when the worker cannot start. */
  static async start(protocols: ProtocolList, inProcess = false): Promise<Checker> {
    return new Checker(inProcess ? null : await CheckThread.start(protocols).catch(() => null), protocols);
  }

  /** In-process only (tests, and the fallback). */
  static inProcess(protocols: ProtocolList): Checker {
    return new Checker(null, protocols);
  }

  /** The worker, while it is usable; null: check in this thread. */
  get remote(): CheckThread | null {
    return this.#thread !== null && this.#thread.usable ? this.#thread : null;
  }

  /** Null while the worker keeps up; else resolves once it has caught up (engines pause their reads meanwhile). */
  backlog(): Promise<void> | null {
    return this.remote?.backlog() ?? null;
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

  /** Ends the worker (its pending requests are failed by it). */
  async close(): Promise<void> {
    await this.#thread?.close();
  }
}
