/**
 * The mock's service capacity (`--capacity N`): at most N requests are in service at once. A request
 * takes the slot that frees first; when every slot is busy it waits in line (FIFO), and the wait is
 * added before its first token, so TTFT grows with the queue as on a server whose batch is full.
 * A request holds its slot for its whole schedule (first token to last event), even when the client
 * leaves early: the known capacity is then N / service time requests per second, or N streams.
 */
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
    let best = 0;
    for (let i = 1; i < this.freeAt.length; i++) if ((this.freeAt[i] ?? 0) < (this.freeAt[best] ?? 0)) best = i;
    const t = this.now();
    const start = Math.max(t, this.freeAt[best] ?? 0);
    this.freeAt[best] = start + Math.max(0, serviceMs);
    this.servedMs += Math.max(0, serviceMs);
    this.served++;
    return start - t;
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
