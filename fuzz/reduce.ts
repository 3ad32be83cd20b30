import { execute } from './execute.ts';
import { describeError, type FuzzTarget } from './target.ts';

/**
 * A finding's input cut down to the bytes the failure needs, as libFuzzer's -minimize_crash and
 * delta debugging do: pieces of halving length are erased while the input still breaks the same
 * invariant (its message with the numbers left out, so "an input of N bytes took M ms" stays the
 * same finding), down to single bytes. The result is 1-minimal (no single byte can go) unless the
 * time allowed runs out first. fast-check's own shrinking works through the generators' maps and
 * can stop at "\n{]" where "{]" is the failure.
 */
export async function reduce(target: FuzzTarget, input: Uint8Array, o: { ms: number }): Promise<Uint8Array> {
  const deadline = Date.now() + o.ms;
  const same = kindOf(await failure(target, input));
  if (same === null) return input;
  let current = input;
  let piece = Math.max(1, current.length >> 1);
  for (;;) {
    let erased = false;
    for (let at = 0; at < current.length && Date.now() < deadline; ) {
      const candidate = new Uint8Array(current.length - Math.min(piece, current.length - at));
      candidate.set(current.subarray(0, at));
      candidate.set(current.subarray(at + piece), at);
      if (kindOf(await failure(target, candidate)) === same) {
        current = candidate;
        erased = true;
      } else at += piece;
    }
    if (Date.now() >= deadline || (piece === 1 && !erased)) return current;
    if (!erased) piece = Math.max(1, piece >> 1);
  }
}

async function failure(target: FuzzTarget, input: Uint8Array): Promise<unknown> {
  try {
    await execute(target, input);
    return null;
  } catch (error) {
    return error;
  }
}

/** Which invariant broke: the error's name and first line, numbers left out. */
function kindOf(error: unknown): string | null {
  if (error === null) return null;
  return (describeError(error).split('\n')[0] ?? '').replace(/\d+/g, '#');
}
