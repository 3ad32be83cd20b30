import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection on demand, after a response of more than a megabyte: in the load
 * check worker (never on the main thread, which stamps) and in `iari test`'s HTTP client. V8
 * frees large strings and buffers only in a full collection and lets the heap grow well past them
 * first, so a server sending multi-megabyte answers left a hundred MiB of parsed garbage behind
 * (issue 22, measured against hostile mode huge-event: iari load 324 → 239 MiB peak, iari test
 * 232 → 179 MiB). `--expose-gc` set at run time reaches only contexts created after it; the
 * function is taken from such a context once, and nothing else sees it.
 */
let gc: (() => void) | null | undefined;

export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const found: unknown = runInNewContext('gc');
      gc = typeof found === 'function' ? (found as () => void) : null;
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  return true;
}
