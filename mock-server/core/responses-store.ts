import type { Turn } from '../../src/protocols/responses/responses-request.ts';

/**
 * The mock's stored responses (compat, `store`: "Whether to store the generated model response
 * for later retrieval via API", default true): per account, each a bounded LRU, so a long load run
 * cannot grow it without end (vLLM's in-memory store did, vllm#48275).
 */

/** Responses kept per account; the least recently used goes first. */
export const RESPONSE_STORE_LIMIT = 1024;

export interface StoredResponse {
  /** The Response as created (what GET returns). */
  body: Record<string, unknown>;
  /** The conversation up to and including this response's output: what previous_response_id carries. */
  turns: readonly Turn[];
  /** The account that created it. */
  owner: string;
}

export class ResponseStore {
  readonly #byAccount = new Map<string, Map<string, StoredResponse>>();
  readonly #limit: number;

  constructor(limit = RESPONSE_STORE_LIMIT) {
    this.#limit = limit;
  }

  put(id: string, entry: StoredResponse): void {
    let m = this.#byAccount.get(entry.owner);
    if (m === undefined) {
      m = new Map();
      this.#byAccount.set(entry.owner, m);
    }
    m.delete(id);
    m.set(id, entry);
    if (m.size > this.#limit) {
      const oldest = m.keys().next().value;
      if (oldest !== undefined) m.delete(oldest);
    }
  }

  /** The account's response `id`; `anyOwner` (a fault) looks in every account's. */
  get(owner: string, id: string, anyOwner = false): StoredResponse | undefined {
    const mine = this.#byAccount.get(owner);
    const hit = mine?.get(id);
    if (hit !== undefined) {
      mine?.delete(id);
      mine?.set(id, hit);
      return hit;
    }
    if (!anyOwner) return undefined;
    for (const m of this.#byAccount.values()) {
      const other = m.get(id);
      if (other !== undefined) return other;
    }
    return undefined;
  }

  delete(owner: string, id: string): boolean {
    return this.#byAccount.get(owner)?.delete(id) ?? false;
  }

  /** Responses kept for one account. */
  size(owner: string): number {
    return this.#byAccount.get(owner)?.size ?? 0;
  }
}
