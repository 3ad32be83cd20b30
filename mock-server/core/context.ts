import type { AccountRegistry, AccountState } from './accounts.ts';
import type { ModelCatalogue, ModelInput } from './models.ts';
import type { ReceiptIssuer } from '../receipt-hooks.ts';
import type { PrefixCache } from './prefix-cache.ts';
import type { ServiceSlots } from './service-slots.ts';
import type { MockMetrics } from './metrics-route.ts';

export interface LatencySettings {
  ttftMs: number;
  itlMs: number;
  jitterMs: number;
  tokensPerChunk: readonly number[];
  completionTokens: number | readonly [number, number];
}

export interface ModelScheduleEntry {
  /** Milliseconds after start. */
  atMs: number;
  retire?: string;
  add?: ModelInput;
}

/** Shared state of one mock server instance. */
export interface CoreState {
  accounts: AccountRegistry;
  models: ModelCatalogue;
  receipts: ReceiptIssuer | null;
  serverFaults: ReadonlySet<string>;
  latency: LatencySettings;
  seed: number;
  limits: boolean;
  now: () => number;
  startedAt: number;
  schedule: ModelScheduleEntry[];
  requestCounter: number;
  /** The prefix cache of the latency model; null when off. */
  prefixCache: PrefixCache | null;
  /** The service capacity of the latency model (--capacity N); null when unbounded. */
  serviceSlots: ServiceSlots | null;
  /** performance.now() until which the server stalls (freeze control); 0 when not frozen. */
  frozenUntil: number;
  /** Unknown-role 400s answered so far under `invalid-role-status-flaps` (every second one becomes a 422): this instance's, not the process's. */
  roleFlaps: number;
  /** Generations that go on after their client left (fault cancel-ignored, cancel-faults.ts): each delays new first tokens. */
  abandoned: number;
  /** This instance's /metrics counters (metrics-route.ts). */
  metrics: MockMetrics;
  /** The records of the stateful APIs (stored responses), per API name and account (api-store.ts). */
  stores: Map<string, import('./api-store.ts').ApiStore>;
  /** The API routes served (their whole paths), each with its protocol (handler.ts protocolRoutes). */
  routes: ReadonlyMap<string, { method: string; protocol: import('../../src/protocols/protocol.ts').Protocol }>;
  /** The APIs with record routes (a stateful API's GET and DELETE <route>/{id}). */
  items: readonly import('../../src/protocols/protocol.ts').Protocol[];
}

export interface RequestContext {
  requestId: string;
  faults: ReadonlySet<string>;
  account: AccountState | null;
}
