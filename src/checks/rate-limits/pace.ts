import type { RequestGate } from './throttle.ts';

/**
 * `iari test --pace R/s`: requests leave at most R per second, evenly spaced (1/R s apart), so a
 * server that limits by the second never sees a burst. Without --pace, a server whose /v1/me
 * reports `limits.requests_per_minute` gets that limit (throttle.ts); any other server gets
 * DEFAULT_PACE_PER_SECOND, at which a full run (about 170 requests) needs under 20 s of pacing.
 * A 429 is still waited out (rate-limit-retry.ts).
 */
export const DEFAULT_PACE_PER_SECOND = 10;
export const MAX_PACE_PER_SECOND = 1000;

/** "5/s", "2.5/s", "90/min" (or "90/m"), "5" (per second) -> requests per second; undefined when unreadable. */
export function parsePace(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute))?\s*$/i.exec(text);
  if (m === null) return undefined;
  const n = Number(m[1]);
  const perSecond = m[2] === undefined || /^s/i.test(m[2]) ? n : n / 60;
  return Number.isFinite(perSecond) && perSecond > 0 ? perSecond : undefined;
}

/** "10/s", "0.5/s" for notes. */
export function formatPace(perSecond: number): string {
  return `${Number(perSecond.toFixed(3))}/s`;
}

/** Spaces requests 1000/R ms apart (a request that waited its turn counts from when it left). */
export class Pace implements RequestGate {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #next = Number.NEGATIVE_INFINITY;

  constructor(perSecond: number, clock: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
    if (!(perSecond > 0)) throw new RangeError(`pace must be positive, got ${perSecond}`);
    this.#intervalMs = 1000 / perSecond;
    this.#now = clock.now ?? (() => Date.now());
    this.#sleep = clock.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  get perSecond(): number {
    return 1000 / this.#intervalMs;
  }

  /** Resolves when the next slot comes, and takes it. Concurrent callers get successive slots. */
  async acquire(): Promise<void> {
    const now = this.#now();
    const slot = Math.max(now, this.#next);
    this.#next = slot + this.#intervalMs;
    if (slot > now) await this.#sleep(slot - now);
  }
}
