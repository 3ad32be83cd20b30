import type { MockSession } from '../../src/protocols/protocol-mock.ts';

/**
 * The records a stateful API keeps (stored responses: compat `store`, "Whether to store the
 * generated model response for later retrieval via API"), per account, each a bounded LRU, so a long
 * load run cannot grow it without end (vLLM's in-memory store did, vllm#48275).
 */

/** Records kept per API and account; the least recently used goes first. */
export const API_STORE_LIMIT = 1024;

interface Kept {
  record: unknown;
  owner: string;
}

export class ApiStore {
  readonly #byAccount = new Map<string, Map<string, Kept>>();
  readonly #limit: number;

  constructor(limit = API_STORE_LIMIT) {
    this.#limit = limit;
  }

  put(owner: string, id: string, record: unknown): void {
    let m = this.#byAccount.get(owner);
    if (m === undefined) this.#byAccount.set(owner, (m = new Map()));
    m.delete(id);
    m.set(id, { record, owner });
    if (m.size > this.#limit) {
      const oldest = m.keys().next().value;
      if (oldest !== undefined) m.delete(oldest);
    }
  }

  /** The account's record `id`; `anyOwner` (a fault) looks in every account's. */
  get(owner: string, id: string, anyOwner = false): unknown {
    const mine = this.#byAccount.get(owner);
    const hit = mine?.get(id);
    if (hit !== undefined) {
      mine?.delete(id);
      mine?.set(id, hit);
      return hit.record;
    }
    if (anyOwner) for (const m of this.#byAccount.values()) if (m.has(id)) return m.get(id)?.record;
    return undefined;
  }

  delete(owner: string, id: string): boolean {
    return this.#byAccount.get(owner)?.delete(id) ?? false;
  }

  /** Records kept for one account. */
  size(owner: string): number {
    return this.#byAccount.get(owner)?.size ?? 0;
  }

  /** One account's view: what the API's mock side reads and writes. */
  session(owner: string): MockSession {
    return {
      get: (id) => this.get(owner, id),
      getAnyAccount: (id) => this.get(owner, id, true),
      put: (id, record) => this.put(owner, id, record),
      delete: (id) => this.delete(owner, id),
    };
  }
}
