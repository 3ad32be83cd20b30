/**
 * Large reads take turns. A response whose open SSE event (or whole, not streamed, body) has
 * grown past LARGE_READ_BYTES must hold one of LARGE_READ_SLOTS before more of it is read; the
 * others pause their sockets until a slot frees. One event of up to 8 MiB (CHAT-STREAM-046) costs
 * several copies while it is assembled, decoded and parsed, so without turns the memory of a run
 * against a server sending huge events would grow with --concurrency (docs/load.md, "Large events").
 * Real events are a few kilobytes and never wait; a response that did wait is counted, and the run
 * says its timings include iari's wait.
 */
export const LARGE_READ_BYTES = 1024 * 1024;
export const LARGE_READ_SLOTS = 1;

export class LargeReadTurns {
  readonly #slots: number;
  readonly #holders = new Set<object>();
  readonly #queue: { who: object; go: (() => void)[] }[] = [];
  /** Responses that were paused waiting for a turn. */
  waited = 0;

  constructor(slots = LARGE_READ_SLOTS) {
    this.#slots = slots;
  }

  /**
   * Called after each read of `who` with the size of its open event (or body): null, read on; or a
   * promise that resolves once `who` holds a turn. A response back under the bound gives its turn up.
   */
  gate(who: object, openBytes: number): Promise<void> | null {
    if (openBytes <= LARGE_READ_BYTES) {
      this.leave(who);
      return null;
    }
    if (this.#holders.has(who)) return null;
    if (this.#holders.size < this.#slots && this.#queue.length === 0) {
      this.#holders.add(who);
      return null;
    }
    let queued = this.#queue.find((q) => q.who === who);
    if (queued === undefined) {
      this.waited++;
      this.#queue.push((queued = { who, go: [] }));
    }
    const waiting = queued;
    return new Promise((go) => waiting.go.push(go));
  }

  /** `who` ended, failed, or its event ended: its turn (or its place in the queue) goes to the next. */
  leave(who: object): void {
    const i = this.#queue.findIndex((q) => q.who === who);
    if (i >= 0) {
      // Released while waiting (it failed): whoever waits on it must not hang.
      const [q] = this.#queue.splice(i, 1);
      for (const go of q?.go ?? []) go();
    }
    if (!this.#holders.delete(who)) return;
    while (this.#holders.size < this.#slots) {
      const next = this.#queue.shift();
      if (next === undefined) return;
      this.#holders.add(next.who);
      for (const go of next.go) go();
    }
  }

  get holding(): number {
    return this.#holders.size;
  }
}
