/**
 * A per-run cache of requests several checks look at (the model list, /v1/me, one small
 * completion, one stream...), so ten checks do not send the same completion ten times. A failed
 * request stays failed for every check that asks for it (fail-closed, and no retries that would
 * hide a flaky server).
 *
 * Each shared request is a typed accessor (`sharedRequest`): the accessor itself, not a string,
 * keys the run's cache, so two modules cannot collide on a name or read a result as another type;
 * a module that needs another's request imports its accessor.
 */
export class SharedRequests {
  readonly #cache = new Map<object, Map<string, Promise<unknown>>>();

  /** The run's one result of `key` (for `param`), made on first use. */
  once<T>(key: object, param: string, make: () => Promise<T>): Promise<T> {
    let byParam = this.#cache.get(key);
    if (byParam === undefined) this.#cache.set(key, (byParam = new Map()));
    let p = byParam.get(param) as Promise<T> | undefined;
    if (p === undefined) {
      p = make();
      // Observed by whoever awaits it; keep an unawaited rejection from crashing the process.
      p.catch(() => {});
      byParam.set(param, p);
    }
    return p;
  }
}

interface HasShared {
  shared: SharedRequests;
}

/** A request sent once per run, whatever number of checks ask for it. `label` names it in a debugger only. */
export function sharedRequest<C extends HasShared, T>(label: string, make: (ctx: C) => Promise<T>): (ctx: C) => Promise<T> {
  const key = { label };
  return (ctx) => ctx.shared.once(key, '', () => make(ctx));
}

/** A request sent once per run and parameter (a model id). */
export function sharedRequestBy<C extends HasShared, T>(label: string, make: (ctx: C, param: string) => Promise<T>): (ctx: C, param: string) => Promise<T> {
  const key = { label };
  return (ctx, param) => ctx.shared.once(key, param, () => make(ctx, param));
}
