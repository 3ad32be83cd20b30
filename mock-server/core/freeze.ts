import type { CoreState } from './context.ts';

/** Stall every answer for `ms` from now (coordinated-omission proofs). */
export function freeze(state: CoreState, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0 || ms > 600_000) throw new RangeError('freeze: ms must be between 0 and 600000');
  state.frozenUntil = Math.max(state.frozenUntil, performance.now() + ms);
}
