import type { Judge } from '../kernel/judge.ts';
import type { CheckHttp } from '../http/check-http.ts';
import type { SharedRequests } from './shared-requests.ts';

/**
 * Areas of the interface, one or more `src/checks/areas/<area>*.ts` each, run in this order (`bounds` first: against a server that hangs, the bounds are decided before the run's deadline); `protocols`: the exchanges an API declares (areas/protocol-exchanges.ts).
 */
export const checkAreas = ['bounds', 'auth', 'models', 'me', 'usage', 'chat', 'chat-stream', 'tools', 'errors', 'limits', 'receipts', 'headers', 'clients', 'embeddings', 'responses', 'protocols', 'metrics', 'cancel'] as const;
export type CheckArea = (typeof checkAreas)[number];

export type { CheckOutcome, Judgement } from '../kernel/verdicts.ts';

export interface LimitTokens {
  /** An account with a small requests_per_minute. */
  requestLimited?: string;
  /** An account with a small tokens_per_minute. */
  tokenLimited?: string;
  /** An account whose monthly spend cap is already reached. */
  capped?: string;
}

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
  limitTokens: LimitTokens;
  /** Waits (limits checks honour Retry-After); the meta-suite replaces it with a fake clock. */
  sleep(ms: number): Promise<void>;
  /** The run's clock, epoch ms: the one `sleep` advances (the verifier's clock for IAT_FUTURE, D-RCPT-08). */
  now(): number;
  /** Per-check time budget in milliseconds; a check that takes longer fails. */
  checkTimeoutMs: number;
  /** The whole run's deadline (--run-timeout): no check starts after it (check-deadline.ts). */
  runDeadline?: import('../kernel/check-deadline.ts').RunDeadline;
  /** What the run worked out about shapes the seed leaves open (usage-discovery.ts); shown in the report. */
  discovered: import('../wire/usage-shape.ts').Discoveries;
  /** The capability probes of the run and what --expect declared (capabilities.ts). */
  capabilities: import('../registry/capabilities.ts').CapabilityBook;
  /** The run's watch over which connection each of its own-dispatcher requests went out on (HDR-017); closed with the run. */
  connections: import('../../client/connection-watch.ts').ConnectionWatch;
  /** The APIs the run judges (src/protocols/registry.ts): capabilities, generic exchanges and grades come from them. */
  protocols: import('../../protocols/registry.ts').ProtocolList;
  /** Ends the run's connections (its own dispatcher): call once the run is over. */
  close(): Promise<void>;
  /**
   * A dispatcher of the caller's own for the target's origin (TLS trust, proxies and --header as the
   * run's), with these pool options: for a probe that must know its connections (HDR-017). The
   * caller destroys it.
   */
  connect(pool: import('undici').Pool.Options): import('undici').Dispatcher;
  /** The interpreter openai-python's operations run in (`--python PATH`, default python3) and, once started, how to stop its driver. */
  python?: PythonSlot;
}

/** What iari runs openai-python with, per run (src/checks/clients/python-worker.ts). */
export interface PythonSlot {
  interpreter: string;
  stop?: () => void;
}

export interface CheckDef {
  /** Stable kebab-case name, unique across the catalog. */
  name: string;
  area: CheckArea;
  /** The requirement IDs this check decides. */
  ids: readonly string[];
  /** A behaviour sentence: what a conforming server does. */
  title: string;
  /** Checks that consume quota run only with `--include limits`. */
  needsLimits?: boolean;
  /** Overrides the context's per-check time budget (checks that must wait out a rate-limit window). */
  timeoutMs?: number;
  /**
   * Starts, without waiting for it, a slow resource the check will use (openai-python's driver
   * process), so that its start overlaps the checks before this one. The runner calls it once per
   * run for each selected check, before the first check runs; it must not send a request or judge.
   */
  prepare?(ctx: CheckContext): void;
  run(ctx: CheckContext, judge: Judge): Promise<void>;
}

/** Requirement IDs of one registry area by number: `requirementIds('TOOLS', 1, 2)` is `['TOOLS-001', 'TOOLS-002']`. */
export function requirementIds(prefix: string, ...numbers: number[]): string[] {
  return numbers.map((n) => `${prefix}-${String(n).padStart(3, '0')}`);
}

/** Requirement IDs `prefix-from` to `prefix-to`, inclusive. */
export function requirementIdRange(prefix: string, from: number, to: number): string[] {
  return requirementIds(prefix, ...Array.from({ length: to - from + 1 }, (_, i) => from + i));
}
