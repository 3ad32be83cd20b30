import { Worker } from 'node:worker_threads';

// A shard's proof of life from its own thread: a main thread busy for a moment (a collection, a
// burst of answers to check, a loaded machine) must not read as a dead shard, while a process that
// dies takes this thread with it. It sends a bare heartbeat every interval; the main thread's
// heartbeats carry the figures and hear the stop.

const SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { url, token, shard, intervalMs } = workerData;
const body = JSON.stringify({ shard, alive: true });
let stopped = false;
const beat = () => {
  if (stopped) return;
  fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(2000) })
    .then((r) => r.json())
    .then((j) => { if (j && j.stop) parentPort.postMessage(j.stop); })
    .catch(() => undefined);
};
const timer = setInterval(beat, intervalMs);
parentPort.on('message', () => { stopped = true; clearInterval(timer); parentPort.close(); });
`;

export interface Liveness {
  stop(): void;
}

/** Starts the liveness thread; `onStop` gets the coordinator's stop if this thread hears it first. */
export function startLiveness(o: { url: string; token: string; shard: number; intervalMs: number; onStop: (stop: unknown) => void }): Liveness {
  const worker = new Worker(SOURCE, { eval: true, workerData: { url: o.url, token: o.token, shard: o.shard, intervalMs: o.intervalMs } });
  worker.unref();
  worker.on('message', (m) => o.onStop(m));
  worker.on('error', () => undefined);
  return {
    stop: () => {
      worker.postMessage('stop');
      void worker.terminate();
    },
  };
}
