import type { Conversations } from '../workloads/conversation.ts';
import { runClosedLoopAutocannon } from './autocannon-engine.ts';
import { runClosedConversations, runOpenConversations } from './conversation-engine.ts';
import type { EngineHooks, EngineLimits, EngineRun, EngineTarget } from './engine.ts';
import { runClosedLoopUndici, runOpenLoop } from './undici-engine.ts';

/** How a run issues its requests: the executor's kind, each one engine. */
export type ExecutorKind = 'closed-autocannon' | 'closed-undici' | 'open' | 'closed-conversations' | 'open-conversations';

/** What an executor is handed; each reads the fields of its kind. */
export interface ExecutorRun {
  target: EngineTarget;
  limits: EngineLimits;
  hooks: EngineHooks;
  /** Closed loops: the slots (this shard's share). */
  concurrency: number;
  /** Open loops: the arrival times, s after t = 0. */
  schedule: Iterable<number>;
  /** Open loop: at most this many in flight (null: uncapped). */
  cap: number | null;
  /** Conversation executors: the conversations (the workload's request source). */
  conversations?: Conversations;
}

const conversationsOf = (r: ExecutorRun): Conversations => {
  if (r.conversations === undefined) throw new Error('a conversation executor needs the conversations workload');
  return r.conversations;
};

/** The executors keyed by kind: run-load.ts chooses the kind, the registry runs it. */
export const EXECUTORS: Readonly<Record<ExecutorKind, (r: ExecutorRun) => Promise<EngineRun>>> = {
  'closed-autocannon': (r) => runClosedLoopAutocannon(r.target, r.limits, r.concurrency, r.hooks),
  'closed-undici': (r) => runClosedLoopUndici(r.target, r.limits, r.concurrency, r.hooks),
  open: (r) => runOpenLoop(r.target, r.limits, r.schedule, r.hooks, r.cap),
  'closed-conversations': (r) => runClosedConversations(r.target, r.limits, r.concurrency, r.hooks, conversationsOf(r)),
  'open-conversations': (r) => runOpenConversations(r.target, r.limits, r.schedule, r.hooks, conversationsOf(r)),
};
