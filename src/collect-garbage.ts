import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection on demand, after a response of more than a megabyte: in the load
 * check worker and in `iari test`'s HTTP client. V8 frees large strings and buffers only in a full
 * collection and lets the heap grow well past them first, so a server sending multi-megabyte
 * answers left a hundred MiB of parsed garbage behind (issue 22, measured against hostile mode
 * huge-event: iari load 324 → 239 MiB peak, iari test 232 → 179 MiB). `--expose-gc` set at run
 * time reaches only contexts created after it; the function is taken from such a context once,
 * and nothing else sees it.
 */
type Gc = (options?: { type: 'major' | 'minor'; execution: 'sync' }) => void;
let gc: Gc | null | undefined;

function found(): Gc | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const f: unknown = runInNewContext('gc');
      gc = typeof f === 'function' ? (f as Gc) : null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

export function collectGarbage(): boolean {
  const f = found();
  if (f === null) return false;
  f();
  return true;
}

/**
 * A young-generation collection only (a scavenge: about a millisecond with bounded semi-spaces).
 * The load process's main thread reads large events in 64 KiB socket buffers and copies them to
 * the check worker; the buffers are garbage at once, but V8 collects them only when its young
 * generation fills or their external bytes reach 64 MiB, so against a server sending 7 MB events
 * the main thread held 45 MiB of spent socket buffers (issue 42). Dead young ArrayBuffers are
 * freed by a scavenge, so this is enough, and it never runs for answers of ordinary size.
 */
export function collectYoungGarbage(): boolean {
  const f = found();
  if (f === null) return false;
  f({ type: 'minor', execution: 'sync' });
  return true;
}
