import { parentPort, workerData } from 'node:worker_threads';
import { checkScope, TimingBuilder, type CheckedPart } from './timing-builder.ts';
import { countTokens } from '../workloads/token-count.ts';
import { OP_DATA, OP_END, OP_FAIL, OP_HEADERS, OP_SENT, type CheckBatch, type CheckWorkerData } from './check-thread.ts';
import type { ErrorClass } from '../results/load-result.ts';
import type { Protocol, SentRequest } from '../../protocols/protocol.ts';
import type { ProtocolList } from '../../protocols/registry.ts';
import { collectGarbage } from '../../collect-garbage.ts';
import { packedBuffers, packTokenEvents, type PackedTokenEvents } from './packed-token-events.ts';

/**
 * After this many bytes of large events (or bodies) have been checked, their garbage is collected at
 * once: half the largest event (8 MiB, CHAT-STREAM-046), since each byte of one is held several times
 * over (the batch, the assembled line, its text, the parsed value). At 16 MiB a run against 7 MB
 * events held 50-60 MiB more in this thread (issue 42).
 */
const COLLECT_AFTER_LARGE_BYTES = 4 * 1024 * 1024;
let largeSince = 0;

/**
 * The check worker: parses and checks the reads the load process stamped (src/load/measure/check-thread.ts)
 * and sends back each finished response's checked part. Its allocations and garbage collection
 * stay off the thread that stamps.
 */
const port = parentPort;
if (port === null) throw new Error('check-worker.ts runs as a worker thread');
// The run's APIs, from the modules it named (any registered protocol, a test's own included).
const modules = (workerData as CheckWorkerData).protocols;
const protocols = (await Promise.all(modules.map(async (url) => ((await import(url)) as { protocol: Protocol }).protocol))) as unknown as ProtocolList;
const scope = checkScope(protocols);
// The registry's grades (the YAML parse: a second on a busy machine) load before the run, not inside
// the first response, where checking would stall and pause the reads.
scope.grade(protocols[0], '');
/**
 * The tokenizer's tables (about 60 MiB in this thread) load after the first response that is a
 * sample, which is the priming request when the server answers: the run never counts a token of a
 * failed response, so against a server that fails every request they are never loaded (issue 42).
 */
let tokenizerWarm = false;
const warmTokenizer = (part: CheckedPart): void => {
  if (tokenizerWarm || part.error !== null) return;
  tokenizerWarm = true;
  countTokens('warm up the tokenizer');
};
const sents = new Map<number, SentRequest>();
const builders = new Map<number, TimingBuilder>();
const builder = (id: number, stream: boolean, sent?: SentRequest): TimingBuilder => {
  let b = builders.get(id);
  if (b === undefined) builders.set(id, (b = new TimingBuilder(stream, sent, scope)));
  return b;
};
port.on('message', (batch: CheckBatch) => {
  const ops = batch.ops;
  const bytes = Buffer.from(batch.bytes);
  const done: [number, CheckedPart][] = [];
  for (let i = 0; i < ops.length; ) {
    const op = ops[i] as number;
    const id = ops[i + 1] as number;
    if (op === OP_SENT) {
      sents.set(id, ops[i + 2] as SentRequest);
      i += 3;
    } else if (op === OP_HEADERS) {
      builder(id, ops[i + 2] as boolean, sents.get(ops[i + 5] as number)).headers(ops[i + 3] as number, ops[i + 4] as string | null);
      i += 6;
    } else if (op === OP_DATA) {
      const at = ops[i + 2] as number;
      builder(id, true).feed(bytes.subarray(at, at + (ops[i + 3] as number)), ops[i + 4] as bigint);
      i += 5;
    } else if (op === OP_END) {
      const part = builder(id, ops[i + 2] as boolean).end(ops[i + 3] as bigint);
      done.push([id, part]);
      builders.delete(id);
      warmTokenizer(part);
      i += 4;
    } else if (op === OP_FAIL) {
      done.push([id, builder(id, ops[i + 2] as boolean).fail(ops[i + 3] as bigint, ops[i + 4] as ErrorClass, ops[i + 5] as string, ops[i + 6] as boolean)]);
      builders.delete(id);
      i += 7;
    } else throw new Error(`check worker: unknown op ${op}`);
  }
  // Each answer's token events go back as typed arrays, transferred (packed-token-events.ts).
  const back: [number, CheckedPart, PackedTokenEvents][] = [];
  const transfer: ArrayBuffer[] = [];
  for (const [id, part] of done) {
    const packed = packTokenEvents(part.tokenEvents);
    transfer.push(...packedBuffers(packed));
    back.push([id, { ...part, tokenEvents: [] }, packed]);
  }
  // The bytes of the batch are reported checked every time (check-thread.ts WORKER_BYTE_BUDGET).
  port.postMessage([back, bytes.length], transfer);
  largeSince += batch.largeBytes;
  if (largeSince >= COLLECT_AFTER_LARGE_BYTES) {
    largeSince = 0;
    collectGarbage();
  }
});
port.postMessage('ready');
