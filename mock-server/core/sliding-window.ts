/** A 60 s sliding window of (time, amount) entries with an O(1) running sum (amortised pruning). */
export class SlidingWindow {
  private times: number[] = [];
  private amounts: number[] = [];
  private head = 0;
  sum = 0;

  constructor(private readonly windowMs = 60_000) {}

  prune(now: number): void {
    const cutoff = now - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= cutoff) {
      this.sum -= this.amounts[this.head] ?? 0;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.amounts = this.amounts.slice(this.head);
      this.head = 0;
    }
  }

  add(now: number, amount: number): void {
    this.times.push(now);
    this.amounts.push(amount);
    this.sum += amount;
  }

  get count(): number {
    return this.times.length - this.head;
  }

  /** Time at which entry k (0 = oldest live entry) leaves the window. */
  expiry(k: number): number | undefined {
    const t = this.times[this.head + k];
    return t === undefined ? undefined : t + this.windowMs;
  }

  amount(k: number): number {
    return this.amounts[this.head + k] ?? 0;
  }
}
