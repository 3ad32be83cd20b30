/**
 * Keeps a client under a requests-per-minute budget: against a real server the suites throttle
 * themselves to the account's `limits.requests_per_minute` (issue 4). A sliding one-minute window,
 * with a safety margin so a server's own window never sees more than the limit.
 */
export class Throttle {
  readonly #perMinute: number;
  readonly #sent: number[] = [];
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(requestsPerMinute: number, clock: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
    this.#perMinute = Math.max(1, Math.floor(requestsPerMinute * 0.9));
    this.#now = clock.now ?? (() => Date.now());
    this.#sleep = clock.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  get perMinute(): number {
    return this.#perMinute;
  }

  /** Resolves when one more request fits in the window, and records it. */
  async acquire(): Promise<void> {
    for (;;) {
      const now = this.#now();
      while (this.#sent.length > 0 && (this.#sent[0] as number) <= now - 60_000) this.#sent.shift();
      if (this.#sent.length < this.#perMinute) {
        this.#sent.push(now);
        return;
      }
      await this.#sleep((this.#sent[0] as number) + 60_000 - now + 1);
    }
  }
}

/** No throttling: used against the bundled mock. */
export const unthrottled = { acquire: async (): Promise<void> => {} };
export type RequestGate = { acquire(): Promise<void> };
