import type { Failure } from './verdicts.ts';
import type { CheckHttp } from './check-http.ts';
import type { SharedRequests } from './shared-requests.ts';

/**
 * Areas of the contract suites; one `src/checks/areas/<area>.ts` and one `suites/contract/<area>.test.ts` each,
 * run in this order (`bounds` first: against a server that hangs, the bounds are decided before the run's deadline).
 */
export const areas = ['bounds', 'auth', 'models', 'me', 'usage', 'chat', 'chat-stream', 'tools', 'errors', 'limits', 'receipts', 'headers', 'clients'] as const;
export type Area = (typeof areas)[number];

/** What one check concluded about one requirement it decides (before grading by the registry). */
export type Judgement =
  | { kind: 'pass' }
  /** The requirement is broken; its grade decides fail (MUST), non-strict (SHOULD) or informational (INFO). */
  | { kind: 'violated'; failure: Failure }
  /** Broken in a way this check grades non-strict at most, whatever the requirement's grade. */
  | { kind: 'non-strict'; failure: Failure }
  | { kind: 'informational'; note: string }
  | { kind: 'skipped'; reason: string };

/** The graded outcome of one requirement from one check: the verdict-space form of a Judgement. */
export type CheckOutcome =
  | { id: string; verdict: 'pass' }
  | { id: string; verdict: 'fail' | 'non-strict'; failures: Failure[] }
  | { id: string; verdict: 'informational'; note: string }
  | { id: string; verdict: 'skipped'; reason: string };

export interface CheckContext {
  /** Base URL ending in `/v1` (the interface's paths are given relative to it without the prefix). */
  baseUrl: string;
  target: 'bundled-mock' | 'external';
  seed: number;
  http: CheckHttp;
  shared: SharedRequests;
  includeLimits: boolean;
  /** `iari test --model`: probe with this model, whatever GET /v1/models lists. */
  model?: string;
  limitTokens: import('./check-context.ts').LimitTokens;
  /** Waits (limits checks honour Retry-After); the meta-suite replaces it with a fake clock. */
  sleep(ms: number): Promise<void>;
  /** Per-check time budget in milliseconds; a check that takes longer fails. */
  checkTimeoutMs: number;
  /** The whole run's deadline (--run-timeout): no check starts after it (check-deadline.ts). */
  runDeadline?: import('./check-deadline.ts').RunDeadline;
  /** What the run worked out about shapes the seed leaves open (usage-discovery.ts); shown in the report. */
  discovered: import('./usage-shape.ts').Discoveries;
}

export interface CheckDef {
  /** Stable kebab-case name, unique across the catalog. */
  name: string;
  area: Area;
  /** The requirement IDs this check decides. */
  ids: readonly string[];
  /** A behaviour sentence: what a conforming server does. */
  title: string;
  /** Checks that consume quota run only with `--include limits`. */
  needsLimits?: boolean;
  /** Overrides the context's per-check time budget (checks that must wait out a rate-limit window). */
  timeoutMs?: number;
  run(ctx: CheckContext, judge: import('./judge.ts').Judge): Promise<void>;
}

/** Requirement IDs of one registry area by number: `requirementIds('TOOLS', 1, 2)` is `['TOOLS-001', 'TOOLS-002']`. */
export function requirementIds(prefix: string, ...numbers: number[]): string[] {
  return numbers.map((n) => `${prefix}-${String(n).padStart(3, '0')}`);
}

/** Requirement IDs `prefix-from` to `prefix-to`, inclusive. */
export function requirementIdRange(prefix: string, from: number, to: number): string[] {
  return requirementIds(prefix, ...Array.from({ length: to - from + 1 }, (_, i) => from + i));
}
