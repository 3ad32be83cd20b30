import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { codeUrl, FROM_SOURCE } from '../package-root.ts';
import type { ChainVerifier } from './chain-verifier.ts';
import { FactsBatch, type FactsMessage } from './receipt-facts.ts';
import type { CheckOptions } from './receipt-checks.ts';
import type { SplitItem } from './receipt-splitter.ts';

// Issue 13: signatures (and every other per-Receipt check) verified on worker threads for large
// chains; the chain logic stays on the main thread, sequential and streaming.

/** One batch for a worker: the Receipts' bytes back to back, where each starts, and their input indexes. */
export interface CheckJob {
  seq: number;
  buffer: ArrayBuffer;
  offsets: Int32Array;
  indexes: Int32Array;
  /** The Receipt before the first, remembered but not checked (PREV_DIGEST_FORM across batches). */
  before?: { bytes: Uint8Array; index: number };
}

/** Receipts verified on this thread before a pool is started (a small file never pays for workers). */
export const PARALLEL_FROM = 1000;
/** An input known to be at least this long (a file's size) starts its pool at once: it boots on the other cores while this thread checks the first Receipts. */
export const PARALLEL_FROM_BYTES = 1 << 20;
const BATCH_RECEIPTS = 256;
const BATCH_BYTES = 512 * 1024;
/** A pool that has not started by then is given up; verification goes on in-process. */
const START_TIMEOUT_MS = 15_000;

/** The default for --jobs: the number of cores. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

function workerEntry(): URL {
  // From source the worker registers tsx first; compiled JavaScript starts the worker module itself.
  return codeUrl(FROM_SOURCE ? 'src/receipts/verify-worker-boot.mjs' : 'src/receipts/verify-worker.js');
}

interface Waiter {
  resolve: (b: FactsBatch) => void;
  reject: (e: Error) => void;
}

/** The Receipts' bytes back to back in one transferable buffer, and where each starts (the last entry: the end). */
export function packBatch(items: readonly Uint8Array[]): { buffer: ArrayBuffer; offsets: Int32Array } {
  let size = 0;
  for (const b of items) size += b.length;
  const buffer = new ArrayBuffer(size);
  const bytes = new Uint8Array(buffer);
  const offsets = new Int32Array(items.length + 1);
  let at = 0;
  items.forEach((b, k) => {
    offsets[k] = at;
    bytes.set(b, at);
    at += b.length;
  });
  offsets[items.length] = at;
  return { buffer, offsets };
}

/** N worker threads running the per-Receipt checks with the same options. */
export class VerifyPool {
  readonly #workers: Worker[];
  readonly #busy: number[];
  readonly #waiting = new Map<number, Waiter>();
  #seq = 0;
  #failed: Error | null = null;

  private constructor(workers: Worker[]) {
    this.#workers = workers;
    this.#busy = workers.map(() => 0);
    workers.forEach((w, i) => {
      w.on('message', (m: { seq: number; facts: FactsMessage }) => {
        this.#busy[i] = (this.#busy[i] as number) - 1;
        const waiter = this.#waiting.get(m.seq);
        this.#waiting.delete(m.seq);
        waiter?.resolve(FactsBatch.fromMessage(m.facts));
      });
      const fail = (e: Error) => {
        this.#failed ??= e;
        for (const waiter of this.#waiting.values()) waiter.reject(e);
        this.#waiting.clear();
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (this.#waiting.size > 0) fail(new Error(`verify worker exited (${code})`));
      });
    });
  }

  static async start(jobs: number, options: CheckOptions, timeoutMs = START_TIMEOUT_MS): Promise<VerifyPool> {
    const workers: Worker[] = [];
    try {
      await Promise.all(
        Array.from({ length: jobs }, () => {
          // A worker keeps no per-Receipt state, only code, a key cache and one batch at a time: small
          // heaps keep the process within its memory budget (a worker that runs out fails, and its
          // batches are checked on the main thread).
          const w = new Worker(workerEntry(), { workerData: options, resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 96 } });
          workers.push(w);
          return new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`verify worker did not start within ${timeoutMs} ms`)), timeoutMs);
            w.once('error', (e) => {
              clearTimeout(timer);
              reject(e);
            });
            w.once('message', (m) => {
              clearTimeout(timer);
              if (m === 'ready') resolve();
              else reject(new Error('verify worker did not start'));
            });
          });
        }),
      );
    } catch (error) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw error;
    }
    return new VerifyPool(workers);
  }

  /** Checks the Receipts (bytes, and their input indexes) on the least busy worker. */
  check(items: readonly Uint8Array[], indexes: Int32Array, before?: CheckJob['before']): Promise<FactsBatch> {
    if (this.#failed !== null) return Promise.reject(this.#failed);
    const { buffer, offsets } = packBatch(items);
    let w = 0;
    for (let i = 1; i < this.#workers.length; i++) if ((this.#busy[i] as number) < (this.#busy[w] as number)) w = i;
    this.#busy[w] = (this.#busy[w] as number) + 1;
    const seq = this.#seq++;
    const job: CheckJob = { seq, buffer, offsets, indexes, ...(before === undefined ? {} : { before }) };
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      (this.#workers[w] as Worker).postMessage(job, [buffer]);
    });
  }

  get size(): number {
    return this.#workers.length;
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }
}

type Entry = { kind: 'receipts'; from: number; to: number } | { kind: 'item'; item: SplitItem };
interface Pending {
  facts: Promise<FactsBatch>;
  entries: Entry[];
  /** Kept until applied: if a worker fails, the batch is checked on this thread instead. */
  items: Uint8Array[];
}

/**
 * Feeds split items to a ChainVerifier in input order: on this thread at first, then (for long
 * inputs, jobs > 1) through a VerifyPool in batches, applying each batch's facts in order. At most
 * two batches per worker are in flight, so memory stays bounded and reading waits for checking.
 */
export class ParallelFeeder {
  readonly #verifier: ChainVerifier;
  readonly #jobs: number;
  #pool: VerifyPool | undefined;
  #starting: Promise<void> | undefined;
  #inline = 0;
  readonly #queue: Pending[] = [];
  #items: Uint8Array[] = [];
  #indexes: number[] = [];
  #entries: Entry[] = [];
  #bytes = 0;
  /** The last Receipt taken (index -1: none), and the one before the current batch's first. */
  #lastBytes: Uint8Array | undefined;
  #lastIndex = -1;
  #before: CheckJob['before'];
  /** The next input index (Receipts and unreadable items; a framing error takes none). */
  #next = 0;
  #workerBatches = 0;

  constructor(verifier: ChainVerifier, jobs: number, expectedBytes = 0) {
    this.#verifier = verifier;
    this.#jobs = jobs;
    if (jobs > 1 && expectedBytes >= PARALLEL_FROM_BYTES) this.#start();
  }

  /** Resolves once a pool that is starting has started (or failed to). */
  async started(): Promise<void> {
    await this.#starting;
  }

  /** Batches sent to worker threads so far. */
  get workerBatches(): number {
    return this.#workerBatches;
  }

  /** Takes one split item (call `settle` between chunks). */
  item(item: SplitItem): void {
    if (this.#pool === undefined) {
      this.#applyItem(item);
      if (item.kind === 'receipt' && ++this.#inline === PARALLEL_FROM && this.#jobs > 1 && this.#starting === undefined) this.#start();
      return;
    }
    if (item.kind === 'receipt') {
      if (this.#items.length === 0) this.#before = this.#lastBytes === undefined ? undefined : { bytes: this.#lastBytes, index: this.#lastIndex };
      this.#lastBytes = item.bytes;
      this.#lastIndex = this.#next;
      if (this.#entries.length > 0 && (this.#entries.at(-1) as Entry).kind === 'receipts') ((this.#entries.at(-1) as Entry) as { to: number }).to++;
      else this.#entries.push({ kind: 'receipts', from: this.#items.length, to: this.#items.length + 1 });
      this.#items.push(item.bytes);
      this.#indexes.push(this.#next++);
      this.#bytes += item.bytes.length;
      if (this.#items.length >= BATCH_RECEIPTS || this.#bytes >= BATCH_BYTES) this.#dispatch();
    } else {
      this.#entries.push({ kind: 'item', item });
      if (item.kind === 'oversize') this.#next++;
    }
  }

  #applyItem(item: SplitItem): void {
    const v = this.#verifier;
    if (item.kind === 'receipt') {
      this.#lastBytes = item.bytes;
      this.#lastIndex = this.#next;
      v.push(item.bytes);
    } else if (item.kind === 'oversize') v.pushUnreadable('JSON_LIMITS', `Receipt of ${item.size} bytes is larger than the limit`);
    // D-RCPT-24: a broken JSON array around the Receipts is a finding about the whole input.
    else v.addInputFinding({ code: 'JSON_SYNTAX', index: null, detail: item.detail });
    if (item.kind !== 'syntax') this.#next++;
  }

  #start(): void {
    this.#starting = VerifyPool.start(this.#jobs, this.#verifier.checkOptions).then(
      (pool) => {
        this.#pool = pool;
      },
      () => {
        // Workers could not start: everything stays on this thread.
      },
    );
  }

  #dispatch(): void {
    if (this.#entries.length === 0) return;
    const pool = this.#pool as VerifyPool;
    const facts = this.#items.length === 0 ? Promise.resolve(new FactsBatch(0)) : pool.check(this.#items, Int32Array.from(this.#indexes), this.#before);
    facts.catch(() => undefined);
    if (this.#items.length > 0) this.#workerBatches++;
    this.#queue.push({ facts, entries: this.#entries, items: this.#items });
    this.#items = [];
    this.#indexes = [];
    this.#entries = [];
    this.#bytes = 0;
  }

  async #applyHead(): Promise<void> {
    const head = this.#queue.shift() as Pending;
    let batch: FactsBatch | undefined;
    try {
      batch = await head.facts;
    } catch {
      batch = undefined;
    }
    for (const e of head.entries) {
      if (e.kind !== 'receipts') this.#applyVerifierItem(e.item);
      else if (batch !== undefined) this.#verifier.pushFacts(batch, e.from, e.to);
      // A worker failed: the same checks on this thread, same indexes (the verifier counts in order).
      else for (let k = e.from; k < e.to; k++) this.#verifier.push(head.items[k] as Uint8Array);
    }
  }

  #applyVerifierItem(item: SplitItem): void {
    const v = this.#verifier;
    if (item.kind === 'oversize') v.pushUnreadable('JSON_LIMITS', `Receipt of ${item.size} bytes is larger than the limit`);
    else if (item.kind === 'syntax') v.addInputFinding({ code: 'JSON_SYNTAX', index: null, detail: item.detail });
  }

  /** Applies finished batches; waits while the pool has as many in flight as it takes. */
  async settle(): Promise<void> {
    while (this.#queue.length > 0 && this.#queue.length >= 2 * (this.#pool?.size ?? 1)) await this.#applyHead();
  }

  /** Sends what is left, applies everything in order and stops the workers. */
  async finish(): Promise<void> {
    try {
      if (this.#pool !== undefined) this.#dispatch();
      while (this.#queue.length > 0) await this.#applyHead();
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    await this.#starting;
    await this.#pool?.close();
    this.#pool = undefined;
  }
}
