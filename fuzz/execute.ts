import { performance } from 'node:perf_hooks';
import { InvariantBroken, type FuzzTarget } from './target.ts';

/**
 * One execution of a target, as every engine runs it: the target's own invariants, then its time
 * bound. A run over the bound is timed twice more and only the fastest counts, so a pause of the
 * shared machine (a collection, another process) is not reported as the parser's.
 */
export function execute(target: FuzzTarget, input: Uint8Array): void | Promise<void> {
  if (input.length > target.maxLen) return;
  if (target.async === true) return executeAsync(target, input);
  let best = Infinity;
  for (let attempt = 0; attempt < 3 && best > target.timeBoundMs; attempt++) {
    const t0 = performance.now();
    void target.run(input);
    best = Math.min(best, performance.now() - t0);
  }
  overBound(target, input, best);
}

async function executeAsync(target: FuzzTarget, input: Uint8Array): Promise<void> {
  let best = Infinity;
  for (let attempt = 0; attempt < 3 && best > target.timeBoundMs; attempt++) {
    const t0 = performance.now();
    await target.run(input);
    best = Math.min(best, performance.now() - t0);
  }
  overBound(target, input, best);
}

function overBound(target: FuzzTarget, input: Uint8Array, ms: number): void {
  if (ms > target.timeBoundMs) {
    throw new InvariantBroken(`${target.name}: an input of ${input.length} bytes took ${ms.toFixed(0)} ms at the fastest of 3 runs, over the ${target.timeBoundMs} ms bound`);
  }
}
