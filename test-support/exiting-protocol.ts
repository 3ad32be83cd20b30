// A test-only API whose checker ends the thread it runs on at its first read: in a check worker,
// process.exit ends that worker alone (src/load/measure/checker.test.ts: a worker that fails mid-run).
import type { Protocol } from '../src/protocols/protocol.ts';
import { toyProtocol } from './toy-protocol/toy-protocol.ts';

export const exitingProtocol: Protocol = {
  ...toyProtocol,
  name: 'exits-on-read',
  moduleUrl: import.meta.url,
  checker: () => ({
    feed() {
      process.exit(7);
    },
    finish() {
      throw new Error('unreachable: the first read ended the thread');
    },
  }) as unknown as ReturnType<Protocol['checker']>,
};

/** The check worker imports this module by `moduleUrl` and reads this export. */
export const protocol = exitingProtocol;
