import type { CheckContext } from './check-types.ts';

// The run's one slot: a check's traffic is alone on the server while it holds it (runChecksInProcess
// starts the next check only when the current one ends or gives the slot up). A check that only waits
// (CANCEL-004's bill settling) gives it up for the wait, so the run does not pay the wait in wall time,
// and takes it back, before any check not yet started, when the wait ends (issue 37).

/** A check's hold on the slot. */
export interface SlotLease {
  /** Runs `work` without the slot (other checks run meanwhile), then waits for the slot again. */
  yieldWhile<T>(work: () => Promise<T>): Promise<T>;
}

/** Where no runner shares the slot (a check run on its own): the work runs in place. */
export const inPlace: SlotLease = { yieldWhile: (work) => work() };

/** First come, first served: `acquire` resolves, with the slot's release, once every earlier holder released it. */
export class RunSlot {
  #last: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const before = this.#last;
    this.#last = before.then(() => mine);
    return before.then(() => release);
  }
}

/** `work` off the run's slot where the runner shares it, in place elsewhere. */
export function offSlot<T>(ctx: Pick<CheckContext, 'slot'>, work: () => Promise<T>): Promise<T> {
  return (ctx.slot ?? inPlace).yieldWhile(work);
}
