import { tokenizer } from '../../src/tokenizer.ts';
import type { AskMessage as ChatMessage } from '../../src/protocols/protocol-mock.ts';

/**
 * The mock's prefix cache, the ground truth for `iari load`'s cache-hit report. As vLLM's
 * automatic prefix caching (https://docs.vllm.ai/en/latest/design/prefix_caching.html): the
 * prompt's token ids are cut into blocks of `blockTokens`; each full block is keyed by a hash of
 * its tokens chained to the hash of every block before it, so a block hits only when the whole
 * prefix up to it was seen; the blocks live in an LRU of `capacityBlocks`. The last prompt token is
 * never served from the cache (a model computes at least one token), so a block holding it is not
 * looked up. Prefill costs `prefillMsPerToken` per uncached prompt token (TTFT grows by it).
 */

export interface PrefixCacheOptions {
  /** Tokens per cache block (default 16, vLLM's default block size). */
  blockTokens?: number;
  /** Blocks the cache holds before evicting the least recently used. */
  capacityBlocks: number;
  /** Milliseconds of prefill per uncached prompt token, added to TTFT (default 0). */
  prefillMsPerToken?: number;
}

/** What the cache did for one request (kept per request id, bounded). */
export interface PrefixCacheRecord {
  requestId: string;
  /** Prompt tokens as the mock counts them in usage.prompt_tokens. */
  promptTokens: number;
  /** Tokens served from the cache (reported as usage.prompt_tokens_details.cached_tokens). */
  cachedTokens: number;
  /** Prefill time added to the request's TTFT. */
  prefillMs: number;
}

const LOG_CAPACITY = 20_000;
const MEMO_CAPACITY = 1024;
const LONG_RUN = /\S{200,}/;

/** One id per role, outside o200k's range, framing every message as a chat template would. */
const ROLE_IDS: Record<string, number> = { system: 300_001, developer: 300_002, user: 300_003, assistant: 300_004, tool: 300_005 };

export class PrefixCache {
  readonly blockTokens: number;
  readonly capacityBlocks: number;
  readonly prefillMsPerToken: number;
  /** Block key -> true, in LRU order (oldest first; a hit moves its key to the end). */
  readonly #blocks = new Map<string, true>();
  readonly #memo = new Map<string, readonly number[]>();
  readonly #log = new Map<string, PrefixCacheRecord>();
  lookups = 0;
  promptTokens = 0;
  cachedTokens = 0;
  evictions = 0;

  constructor(o: PrefixCacheOptions) {
    const block = o.blockTokens ?? 16;
    if (!Number.isInteger(block) || block < 1 || block > 4096) throw new RangeError('prefixCache.blockTokens must be an integer from 1 to 4096');
    if (!Number.isInteger(o.capacityBlocks) || o.capacityBlocks < 1) throw new RangeError('prefixCache.capacityBlocks must be a positive integer');
    const prefill = o.prefillMsPerToken ?? 0;
    if (!Number.isFinite(prefill) || prefill < 0 || prefill > 100) throw new RangeError('prefixCache.prefillMsPerToken must be from 0 to 100');
    this.blockTokens = block;
    this.capacityBlocks = o.capacityBlocks;
    this.prefillMsPerToken = prefill;
  }

  /** The prompt as token ids: a role id, then the text's ids, per message. */
  tokenIds(messages: readonly ChatMessage[]): number[] {
    const ids: number[] = [];
    for (const m of messages) {
      ids.push(ROLE_IDS[m.role] ?? 300_000);
      for (const id of this.#encode(m.text ?? '')) ids.push(id);
      for (const c of m.toolCalls) for (const id of this.#encode(`${c.function.name}(${c.function.arguments})`)) ids.push(id);
    }
    return ids;
  }

  /**
   * Looks the prompt's blocks up in order until the first miss, then inserts every full block
   * (a hit refreshes its place in the LRU). Returns the cached tokens, capped at `promptTokens - 1`.
   */
  admit(requestId: string, messages: readonly ChatMessage[], promptTokens: number): PrefixCacheRecord {
    const ids = this.tokenIds(messages);
    const B = this.blockTokens;
    // A block holding the last token is neither looked up nor stored: that token is always computed.
    const full = Math.floor(Math.max(0, ids.length - 1) / B);
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    let hits = 0;
    let missed = false;
    for (let b = 0; b < full; b++) {
      for (let i = b * B; i < (b + 1) * B; i++) {
        const id = ids[i] ?? 0;
        h1 = Math.imul(h1 ^ id, 0x01000193) >>> 0;
        h2 = Math.imul(h2 ^ id ^ (h1 >>> 7), 0x5bd1e995) >>> 0;
      }
      const key = `${h1.toString(36)}.${h2.toString(36)}`;
      if (!missed && this.#blocks.has(key)) {
        hits++;
        this.#blocks.delete(key);
      } else {
        missed = true;
      }
      this.#blocks.set(key, true);
    }
    while (this.#blocks.size > this.capacityBlocks) {
      const oldest = this.#blocks.keys().next().value as string;
      this.#blocks.delete(oldest);
      this.evictions++;
    }
    const cachedTokens = Math.min(hits * B, Math.max(0, promptTokens - 1));
    const prefillMs = Math.max(0, promptTokens - cachedTokens) * this.prefillMsPerToken;
    const record: PrefixCacheRecord = { requestId, promptTokens, cachedTokens, prefillMs };
    this.lookups++;
    this.promptTokens += promptTokens;
    this.cachedTokens += cachedTokens;
    this.#log.set(requestId, record);
    if (this.#log.size > LOG_CAPACITY) this.#log.delete(this.#log.keys().next().value as string);
    return record;
  }

  /** What the cache did for a request, while it is among the last 20,000. */
  record(requestId: string): PrefixCacheRecord | undefined {
    return this.#log.get(requestId);
  }

  /** Totals since start, and the blocks held now. */
  stats(): { lookups: number; promptTokens: number; cachedTokens: number; hitRate: number; blocks: number; evictions: number } {
    return {
      lookups: this.lookups,
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens,
      hitRate: this.promptTokens === 0 ? 0 : this.cachedTokens / this.promptTokens,
      blocks: this.#blocks.size,
      evictions: this.evictions,
    };
  }

  #encode(text: string): readonly number[] {
    if (text.length === 0) return [];
    const memo = this.#memo.get(text);
    if (memo !== undefined) return memo;
    const { encode } = tokenizer();
    let ids: number[];
    if (text.length <= 4096 && !LONG_RUN.test(text)) ids = encode(text);
    else {
      // Long texts in whitespace-cut pieces (and 100-character slices of long runs), as countTokens does.
      ids = [];
      for (const part of text.match(/\s*\S{1,100}/g) ?? []) for (const id of encode(part)) ids.push(id);
    }
    this.#memo.set(text, ids);
    if (this.#memo.size > MEMO_CAPACITY) this.#memo.delete(this.#memo.keys().next().value as string);
    return ids;
  }
}
