import type { Profile } from '../kernel/verdicts.ts';
import type { CheckContext, LimitTokens, PythonSlot } from './check-types.ts';
import type { ConnectionOptions } from '../../client/connection-options.ts';
import { connectionDispatcher, dispatcherFor, withHeaders } from '../../client/dispatcher.ts';
import { noConnectionOptions } from '../../client/connection-options.ts';
import { CheckHttp } from '../http/check-http.ts';
import { SharedRequests } from './shared-requests.ts';
import { Pace } from '../rate-limits/pace.ts';
import { Throttle, unthrottled } from '../rate-limits/throttle.ts';
import type { RunDeadline } from '../kernel/check-deadline.ts';
import { RateLimitRetry } from '../rate-limits/rate-limit-retry.ts';
import { seededRandom } from '../../seeded-random.ts';
import { CapabilityBook, type Capability } from '../registry/capabilities.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
import { ConnectionWatch } from '../../client/connection-watch.ts';

/** Everything a run needs to build check contexts. */
export interface RunSettings {
  /** Origin plus any path prefix, without the trailing `/v1`. */
  root: string;
  token: string;
  /** A token of a second account (bundled mock), for the account-isolation checks. */
  secondToken?: string;
  /** Tokens of accounts with small limits (bundled mock), for `--include limits`. */
  limitTokens?: LimitTokens;
  seed: number;
  target: 'bundled-mock' | 'external';
  /** How profile requirements are graded (D-GRADE-04); absent: `default` (INFO). */
  profile?: Profile;
  includeLimits: boolean;
  /** `--model`: the model the checks probe with, instead of the first listed one. */
  model?: string;
  /** Sent as `x-iari-fault` on every request (meta-suite only). */
  fault?: string;
  /** Throttle to this many requests per minute (the limit /v1/me reports); absent: no throttle. */
  requestsPerMinute?: number;
  /** Space requests to this many per second (`--pace`, or the default for a server whose /v1/me reports no limit); wins over requestsPerMinute. */
  pacePerSecond?: number;
  checkTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** External target: TLS trust and extra headers (`--ca-file`, `--insecure`, `--header`). */
  connection?: ConnectionOptions;
  /** The run's deadline (epoch ms) and its configured length (--run-timeout). */
  runDeadline?: RunDeadline;
  /** The longest the run spends waiting out 429s (`--max-rate-limit-wait`); default 10 min. */
  maxRateLimitWaitMs?: number;
  /** Capabilities declared with --expect: where the server does not offer one, its requirements fail. */
  expect?: Capability[];
  /** What is known of the answers that never completed (stalls.ts): one record shared by the preflight and the checks. */
  stalls?: Stalls;
  /** `--python PATH`: the interpreter openai-python's CLIENT operations run in; absent: python3. */
  python?: string;
  /** The APIs the run judges (default: every API iari ships). */
  protocols?: ProtocolList;
}

import type { Stalls } from '../http/stalls.ts';

export type { LimitTokens } from './check-types.ts';

export function createCheckContext(s: RunSettings, hooks: { sleep?: (ms: number) => Promise<void>; now?: () => number; progress?: (line: string) => void } = {}): CheckContext {
  // Every client of the run (the checks' undici requests, the client libraries' fetch) sends through
  // this context's own dispatcher; `close()` ends it. Nothing is installed process-wide.
  const connection = s.connection ?? noConnectionOptions;
  const dispatcher = connectionDispatcher(connection, s.root);
  const sleep = hooks.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const gate =
    s.pacePerSecond !== undefined
      ? new Pace(s.pacePerSecond, { sleep, ...(hooks.now === undefined ? {} : { now: hooks.now }) })
      : s.requestsPerMinute === undefined
        ? unthrottled
        : new Throttle(s.requestsPerMinute);
  const rateLimits = new RateLimitRetry({
    sleep,
    random: seededRandom(s.seed ^ 0x429),
    ...(s.maxRateLimitWaitMs === undefined ? {} : { maxTotalWaitMs: s.maxRateLimitWaitMs }),
    ...(hooks.now === undefined ? {} : { now: hooks.now }),
    ...(hooks.progress === undefined ? {} : { progress: hooks.progress }),
  });
  const http = new CheckHttp({
    dispatcher,
    connectionHeaders: connection.headers,
    rateLimits,
    root: s.root,
    token: s.token,
    ...(s.secondToken === undefined ? {} : { secondToken: s.secondToken }),
    gate,
    ...(s.fault === undefined ? {} : { fault: s.fault }),
    ...(s.requestTimeoutMs === undefined ? {} : { timeoutMs: s.requestTimeoutMs }),
    ...(s.stalls === undefined ? {} : { stalls: s.stalls }),
  });
  for (const [name, value] of Object.entries(s.limitTokens ?? {})) {
    if (value !== undefined) http.registerSecret(value, `$IARI_TOKEN_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`);
  }
  const python: PythonSlot = { interpreter: s.python ?? 'python3' };
  const connections = new ConnectionWatch();
  return {
    baseUrl: `${s.root}/v1`,
    target: s.target,
    seed: s.seed,
    http,
    shared: new SharedRequests(),
    includeLimits: s.includeLimits,
    ...(s.model === undefined ? {} : { model: s.model }),
    limitTokens: s.limitTokens ?? {},
    sleep,
    now: hooks.now ?? Date.now,
    checkTimeoutMs: s.checkTimeoutMs ?? 20_000,
    ...(s.runDeadline === undefined ? {} : { runDeadline: s.runDeadline }),
    discovered: {},
    capabilities: new CapabilityBook(s.expect ?? []),
    protocols: s.protocols ?? defaultProtocols,
    connections,
    python,
    close: () => {
      python.stop?.();
      connections.close();
      return dispatcher.destroy().catch(() => undefined);
    },
    connect: (pool) => {
      const conn = s.connection ?? noConnectionOptions;
      const origin = new URL(s.root).origin;
      return withHeaders(dispatcherFor(conn, origin, pool), origin, conn.headers);
    },
  };
}
