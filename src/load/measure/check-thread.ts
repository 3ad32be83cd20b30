import { Worker } from 'node:worker_threads';
import { checkWorkerUrl } from '../../package-root.ts';
import type { ErrorClass } from '../results/load-result.ts';
import type { CheckedPart } from './timing-builder.ts';
import type { SentRequest } from '../../protocols/protocol.ts';
import type { ProtocolList } from '../../protocols/registry.ts';
import { collectYoungGarbage } from '../../collect-garbage.ts';
import { unpackTokenEvents, type PackedTokenEvents } from './packed-token-events.ts';
import { ByteBudget } from './byte-budget.ts';

/**
 * The load process's side of the check worker (src/load/measure/check-worker.ts). Engines stamp reads on
 * the main thread; the reads, their stamps and each response's end are queued here and sent to
 * the worker once per I/O phase (setImmediate runs after the poll phase), in one message whose
 * bytes are transferred, not copied. Parsing and checking, and the garbage they make, happen on
 * the worker, so the main thread's stamps wait neither for checking nor for its collections.
 */
export const OP_HEADERS = 0;
export const OP_DATA = 1;
export const OP_END = 2;
export const OP_FAIL = 3;
/** A new `sent` (what requests sent), numbered: headers ops name it by number, so it is cloned once per run, not per request. */
export const OP_SENT = 4;

/** What the worker is started with: the module of every protocol it checks (each exports `protocol`). */
export interface CheckWorkerData {
  protocols: string[];
}

/** Flat ops (see check-worker.ts for each op's fields) and the bytes the data ops point into. */
export interface CheckBatch {
  ops: unknown[];
  bytes: ArrayBuffer;
  /** Bytes of this batch that belong to events (or bodies) past LARGE_READ_BYTES (large-reads.ts). */
  largeBytes: number;
}

type Done = (part: CheckedPart) => void;

/** Handing results back yields to I/O after this much work (as in-process checking does). */
const SLICE_NS = 300_000n;
/**
 * Bytes handed to the run's check workers (all of them together: byte-budget.ts) and not yet checked:
 * past this, reads pause until the workers are back under half of it (docs/load.md, "Large events").
 */
export const WORKER_BYTE_BUDGET = 8 * 1024 * 1024;
/** A worker that has not loaded by then is given up: checking falls back to in-process. */
const START_TIMEOUT_MS = 15_000;
/**
 * The worker's young generation (new space), MiB: its semi-spaces at 16 MiB, the most Node 20 gave
 * any heap. Node 22 and later size them from the machine's memory (64 MiB each on a 24 GiB host)
 * and grow them as large events pass through, so a run against a server sending 7 MB events held
 * 100 MiB more in this thread than it ever used at once (issue 42). Only the young generation is
 * bounded: collection runs more often, nothing can run out.
 */
export const WORKER_YOUNG_GENERATION_MB = 48;
/**
 * After this many bytes of large events (past LARGE_READ_BYTES) are copied to the worker, this thread
 * collects its young generation: the socket buffers they were read in are garbage (issue 42).
 */
const COLLECT_AFTER_LARGE_BYTES = 4 * 1024 * 1024;

export class CheckThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Done>();
  #ops: unknown[] = [];
  #chunks: Buffer[] = [];
  #bytes = 0;
  #largeBytes = 0;
  /** Bytes of large events copied to the worker since this thread last collected its young garbage. */
  #largeSince = 0;
  #scheduled = false;
  #nextId = 1;
  #failed: string | null = null;
  /** Checked responses not yet handed back; delivered in slices so reads arriving meanwhile are stamped on time. */
  #results: [number, CheckedPart, PackedTokenEvents][] = [];
  #resultHead = 0;
  #delivering = false;
  /** The run's budget of bytes in flight to its workers, and this worker's share of it (handed over, not yet reported checked). */
  readonly #budget: ByteBudget;
  #held = 0;
  readonly #sentIds = new Map<SentRequest, number>();

  private constructor(worker: Worker, budget: ByteBudget) {
    this.#worker = worker;
    this.#budget = budget;
    worker.on('message', ([m, checkedBytes]: [[number, CheckedPart, PackedTokenEvents][], number]) => {
      this.#held -= checkedBytes;
      this.#budget.release(checkedBytes);
      if (m.length === 0) return;
      for (const r of m) this.#results.push(r);
      if (!this.#delivering) {
        this.#delivering = true;
        setImmediate(this.#deliver);
      }
    });
    worker.on('error', (err) => this.#fail(`check worker failed: ${err.message}`));
    worker.on('exit', (code) => this.#fail(`check worker exited (${code})`));
  }

  /**
   * Starts the worker for these APIs and waits until it has loaded them, the checker and the registry's
   * grades (at most `timeoutMs`). Workers of one run share one `budget`.
   */
  static start(protocols: ProtocolList, budget = new ByteBudget(WORKER_BYTE_BUDGET), timeoutMs = START_TIMEOUT_MS): Promise<CheckThread> {
    const workerData: CheckWorkerData = { protocols: protocols.map((p) => p.moduleUrl) };
    const worker = new Worker(checkWorkerUrl(), { workerData, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`check worker did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        reject(err);
      };
      worker.once('error', onError);
      worker.once('message', (m) => {
        clearTimeout(timer);
        worker.off('error', onError);
        if (m === 'ready') resolve(new CheckThread(worker, budget));
        else reject(new Error('check worker did not start'));
      });
    });
  }

  /** The worker's heap in bytes (tests and diagnostics); null where Node cannot say (before 22.16). */
  async heap(): Promise<{ used: number; total: number } | null> {
    const w = this.#worker as Worker & { getHeapStatistics?: () => Promise<{ used_heap_size: number; total_heap_size: number }> };
    if (typeof w.getHeapStatistics !== 'function') return null;
    const h = await w.getHeapStatistics();
    return { used: h.used_heap_size, total: h.total_heap_size };
  }

  /** False once the worker has failed or closed (new responses are then checked in-process). */
  get usable(): boolean {
    return this.#failed === null;
  }

  /** Responses handed to this worker and not yet reported checked. */
  get openCount(): number {
    return this.#waiting.size;
  }

  open(done: Done): number {
    const id = this.#nextId++;
    this.#waiting.set(id, done);
    return id;
  }

  headers(id: number, stream: boolean, status: number, contentType: string | null, sent: SentRequest): void {
    let sentId = this.#sentIds.get(sent);
    if (sentId === undefined) {
      this.#sentIds.set(sent, (sentId = this.#sentIds.size));
      this.#ops.push(OP_SENT, sentId, sent);
    }
    this.#ops.push(OP_HEADERS, id, stream, status, contentType, sentId);
    this.#schedule();
  }

  data(id: number, chunk: Buffer, atNs: bigint, large = false): void {
    this.#ops.push(OP_DATA, id, this.#bytes, chunk.length, atNs);
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    this.#held += chunk.length;
    this.#budget.add(chunk.length);
    if (large) this.#largeBytes += chunk.length;
    this.#schedule();
  }

  end(id: number, stream: boolean, atNs: bigint): void {
    this.#ops.push(OP_END, id, stream, atNs);
    this.#schedule();
  }

  fail(id: number, stream: boolean, atNs: bigint, errorClass: ErrorClass, detail: string, abortedAtEnd: boolean): void {
    this.#ops.push(OP_FAIL, id, stream, atNs, errorClass, detail, abortedAtEnd);
    this.#schedule();
  }

  async close(): Promise<void> {
    this.#flush();
    this.#failed ??= 'closed';
    await this.#worker.terminate();
  }

  readonly #deliver = (): void => {
    this.#delivering = false;
    const deadline = process.hrtime.bigint() + SLICE_NS;
    const results = this.#results;
    while (this.#resultHead < results.length) {
      const [id, part, packed] = results[this.#resultHead++] as [number, CheckedPart, PackedTokenEvents];
      const done = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (done !== undefined) {
        part.tokenEvents = unpackTokenEvents(packed);
        done(part);
      }
      if (this.#resultHead < results.length && process.hrtime.bigint() > deadline) {
        this.#delivering = true;
        setImmediate(this.#deliver);
        return;
      }
    }
    this.#results = [];
    this.#resultHead = 0;
  };

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#ops.length === 0) return;
    // Its own ArrayBuffer (never Node's shared pool), so it can be transferred.
    const bytes = Buffer.allocUnsafeSlow(this.#bytes);
    let at = 0;
    for (const c of this.#chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    const batch: CheckBatch = { ops: this.#ops, bytes: bytes.buffer as ArrayBuffer, largeBytes: this.#largeBytes };
    this.#ops = [];
    this.#chunks = [];
    this.#largeBytes = 0;
    this.#bytes = 0;
    this.#worker.postMessage(batch, [batch.bytes]);
    this.#largeSince += batch.largeBytes;
    if (this.#largeSince >= COLLECT_AFTER_LARGE_BYTES) {
      this.#largeSince = 0;
      collectYoungGarbage();
    }
  }

  /** Every response still waiting fails with class `other` (never silently lost). */
  #fail(why: string): void {
    if (this.#failed !== null) return;
    this.#failed = why;
    // What this worker held will never be reported checked.
    this.#budget.release(this.#held);
    this.#held = 0;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const done of waiting) done({ endNs: null, tokenEvents: [], outputTokens: 0, promptTokens: 0, tokenSource: 'none', events: 0, error: { class: 'other', detail: why }, abortedAtEnd: false });
  }
}
