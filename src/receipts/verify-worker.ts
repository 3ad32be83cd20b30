import { parentPort, workerData } from 'node:worker_threads';
import { CheckContext, checkReceipt, rememberReceipt, type CheckOptions } from './receipt-checks.ts';
import { FactsBatch } from './receipt-facts.ts';
import type { CheckJob } from './verify-pool.ts';

/**
 * A verify worker (src/receipts/verify-pool.ts): runs the per-Receipt checks, signatures included,
 * on the batches the main thread sends and sends back their facts; the chain logic stays on the
 * main thread, in input order.
 */
const port = parentPort;
if (port === null) throw new Error('verify-worker.ts runs as a worker thread');
const ctx = new CheckContext(workerData as CheckOptions);
port.on('message', (job: CheckJob) => {
  const bytes = new Uint8Array(job.buffer);
  const n = job.indexes.length;
  const out = new FactsBatch(n);
  if (job.before !== undefined) rememberReceipt(job.before.bytes, job.before.index, ctx);
  for (let k = 0; k < n; k++) checkReceipt(bytes.subarray(job.offsets[k] as number, job.offsets[k + 1] as number), job.indexes[k] as number, ctx, out, k);
  const { message, transfer } = out.toMessage();
  port.postMessage({ seq: job.seq, facts: message }, transfer);
});
port.postMessage('ready');
