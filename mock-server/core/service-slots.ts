/**
 * The mock's service capacity (`--capacity N`): at most N requests are in service at once. A request
 * takes the slot that frees first; when every slot is busy it waits in line (FIFO), and the wait is
 * added before its first token, so TTFT grows with the queue as on a server whose batch is full.
 * A request holds its slot for its whole schedule (first token to last event); a client that leaves
 * early frees it at that moment (`Booking.release`), as vLLM aborts a request whose client went away
 * (vllm-project/vllm PR #32439). The requests already waiting keep the start they were given; the next
 * one admitted takes the freed slot. Faults keep it: `cancel-ignored` until the schedule's end,
 * `cancel-leaks-slot` for ever (`Booking.leak`).
 */
export interface Booking {
  /** How long the request waits for its slot, ms. */
  readonly queuedMs: number;
  /** The client went away: the slot frees now (or at the booking's start, if it had not begun). */
  release(): void;
  /** The slot is never freed (fault cancel-leaks-slot). */
  leak(): void;
}

/** A leaked slot's wait, as far as a request ever waits for it: the longest latency the mock takes (ms). */
const LEAKED_WAIT_MS = 600_000;

export class ServiceSlots {
  private readonly freeAt: number[];
  private servedMs = 0;
  private served = 0;

  constructor(
    readonly slots: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError('capacity must be a positive integer');
    this.freeAt = new Array<number>(slots).fill(0);
  }

  /** Books the slot that frees first for `serviceMs`; returns how long the request waits for it, ms. */
  admit(serviceMs: number): number {
    return this.book(serviceMs).queuedMs;
  }

  /** Books the slot that frees first for `serviceMs`; the booking can be cut short or leaked. */
  book(serviceMs: number): Booking {
    let best = 0;
    for (let i = 1; i < this.freeAt.length; i++) if ((this.freeAt[i] ?? 0) < (this.freeAt[best] ?? 0)) best = i;
    const t = this.now();
    const start = Math.max(t, this.freeAt[best] ?? 0);
    const end = start + Math.max(0, serviceMs);
    this.freeAt[best] = end;
    this.servedMs += Math.max(0, serviceMs);
    this.served++;
    const slot = best;
    let settled = false;
    return {
      // Every slot leaked: the request waits as long as the mock ever waits (it would wait for ever).
      queuedMs: Number.isFinite(start) ? start - t : LEAKED_WAIT_MS,
      release: () => {
        if (settled) return;
        settled = true;
        // Only the slot's last booking moves its end; a later one already starts at this one's end.
        if (this.freeAt[slot] === end) this.freeAt[slot] = Math.max(this.now(), Number.isFinite(start) ? start : 0);
      },
      leak: () => {
        if (settled) return;
        settled = true;
        this.freeAt[slot] = Infinity;
      },
    };
  }

  /** Mean service time of the requests admitted so far, ms (null before any): the capacity is slots / this. */
  meanServiceMs(): number | null {
    return this.served === 0 ? null : this.servedMs / this.served;
  }

  /** Requests in service or waiting at this moment. */
  busy(): number {
    const t = this.now();
    return this.freeAt.filter((f) => f > t).length;
  }
}
