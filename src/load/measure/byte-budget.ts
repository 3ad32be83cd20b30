/**
 * Bytes handed to the check workers and not yet checked, shared by all of a run's workers: past the
 * limit, reads pause (the engines stop reading their sockets) until the workers are back under half
 * of it, so a server sending faster than the workers check fills the socket buffers, not this
 * process's memory (docs/load.md, "Large events"). One total, not one per worker: the memory bound
 * is the same whatever the number of workers.
 */
export class ByteBudget {
  readonly limit: number;
  #held = 0;
  #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  add(bytes: number): void {
    this.#held += bytes;
  }

  /** Bytes checked (or never to be checked: their worker failed); resumes the readers once under half the limit. */
  release(bytes: number): void {
    this.#held -= bytes;
    if (this.#held <= this.limit / 2 && this.#waiting.length > 0) this.resumeAll();
  }

  /** Null while within the limit; else resolves once the held bytes are back under half of it. */
  wait(): Promise<void> | null {
    if (this.#held <= this.limit) return null;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Resumes every waiting reader (no worker is left to check what is held: checking falls back in-process). */
  resumeAll(): void {
    for (const resume of this.#waiting.splice(0)) resume();
  }
}
