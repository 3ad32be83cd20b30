/**
 * A per-run cache of requests several checks look at (the model list, /v1/me, one small
 * completion, one stream...), so ten checks do not send the same completion ten times. A failed
 * request stays failed for every check that asks for it (fail-closed, and no retries that would
 * hide a flaky server).
 */
export class SharedRequests {
  readonly #cache = new Map<string, Promise<unknown>>();

  get<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.#cache.get(key) as Promise<T> | undefined;
    if (p === undefined) {
      p = make();
      // Observed by whoever awaits it; keep an unawaited rejection from crashing the process.
      p.catch(() => {});
      this.#cache.set(key, p);
    }
    return p;
  }

  /** Forgets cached requests whose results depend on account state that a check just changed. */
  forget(key: string): void {
    this.#cache.delete(key);
  }
}
