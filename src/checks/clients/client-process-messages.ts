import type { Capability } from '../registry/capabilities.ts';
import type { OpResult } from './client-op-env.ts';

// The messages between iari and its client process (client-process.ts, client-child.ts), over
// Node's IPC channel (structured clone). Nothing in them is secret: the child gets the relay's URL
// and a stand-in key, never the run's token.

/** What the child needs to run an operation: OpEnv's serialisable part. */
export interface OpFacts {
  /** The relay's base URL: where the library is pointed. */
  baseUrl: string;
  /** The stand-in key the relay swaps for the run's token. */
  key: string;
  model: string;
  sendsToken: boolean;
  unknownModel: string;
  expected: Capability[];
}

export type MainToChild = { type: 'run'; run: number; name: string; facts: OpFacts } | { type: 'answer'; ask: number; a?: unknown; error?: string };

export interface ChildAsk {
  type: 'ask';
  run: number;
  ask: number;
  q: { ask: 'caps' } | { ask: 'probe'; cap: Capability };
}

/** An operation's end: what it returned, or the text of what it threw (clientErrorText), and what the library printed. */
export type ChildDone = { type: 'done'; run: number; logged: string[] } & ({ value: OpResult | 'not-installed' } | { thrown: string });

export type ChildToMain = { type: 'ready' } | ChildAsk | ChildDone;
