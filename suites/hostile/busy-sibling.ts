/**
 * A busy sibling (issue 42): a process that spins one thread per core while the hostile runs go,
 * so their memory is measured on a machine as busy as CI's and users' often are (garbage
 * collection runs late, reads arrive in bigger batches). Started and stopped by the suite; it
 * sends no traffic and ends when stopped, or by itself after `maxMs` if the suite never stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface BusySibling {
  threads: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

const SPIN = `
const { Worker, isMainThread } = require('node:worker_threads');
const threads = Number(process.argv[1]);
const until = Date.now() + Number(process.argv[2]);
const spin = 'const until = ' + until + '; let x = 0; while (Date.now() < until) x = (x * 33 + 1) >>> 0;';
for (let i = 1; i < threads; i++) new Worker(spin, { eval: true });
eval(spin);
process.exit(0);
`;

/** One spinning thread per core (default), for at most `maxMs`. */
export function startBusySibling(maxMs: number, threads = availableParallelism()): BusySibling {
  const child: ChildProcess = spawn(process.execPath, ['-e', SPIN, String(threads), String(maxMs)], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    threads,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
