import type { Profile } from './verdicts.ts';
import type { CheckContext } from './check-types.ts';
import type { ConnectionOptions } from '../client/connection-options.ts';
import { installGlobalConnection } from '../client/dispatcher.ts';
import { CheckHttp } from './check-http.ts';
import { SharedRequests } from './shared-requests.ts';
import { Throttle, unthrottled } from './throttle.ts';
import type { RunDeadline } from './check-deadline.ts';
import { RateLimitRetry } from './rate-limit-retry.ts';
import { seededRandom } from '../seeded-random.ts';

/** Everything a run needs to build check contexts; serialisable (passed to vitest workers via `provide`). */
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
  /** Throttle to this many requests per minute (real servers); absent: no throttle. */
  requestsPerMinute?: number;
  checkTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** External target: TLS trust and extra headers (`--ca-file`, `--insecure`, `--header`). */
  connection?: ConnectionOptions;
  /** The run's deadline (epoch ms) and its configured length (--run-timeout). */
  runDeadline?: RunDeadline;
  /** The longest the run spends waiting out 429s (`--max-rate-limit-wait`); default 10 min. */
  maxRateLimitWaitMs?: number;
}

export interface LimitTokens {
  /** An account with a small requests_per_minute. */
  requestLimited?: string;
  /** An account with a small tokens_per_minute. */
  tokenLimited?: string;
  /** An account whose monthly spend cap is already reached. */
  capped?: string;
}

export function createCheckContext(s: RunSettings, hooks: { sleep?: (ms: number) => Promise<void>; now?: () => number; progress?: (line: string) => void } = {}): CheckContext {
  // Every client of the run (undici requests, fetch-based SDKs) takes the global dispatcher.
  if (s.connection !== undefined) installGlobalConnection(s.connection, s.root);
  const gate = s.requestsPerMinute === undefined ? unthrottled : new Throttle(s.requestsPerMinute);
  const sleep = hooks.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const rateLimits = new RateLimitRetry({
    sleep,
    random: seededRandom(s.seed ^ 0x429),
    ...(s.maxRateLimitWaitMs === undefined ? {} : { maxTotalWaitMs: s.maxRateLimitWaitMs }),
    ...(hooks.now === undefined ? {} : { now: hooks.now }),
    ...(hooks.progress === undefined ? {} : { progress: hooks.progress }),
  });
  const http = new CheckHttp({
    rateLimits,
    root: s.root,
    token: s.token,
    ...(s.secondToken === undefined ? {} : { secondToken: s.secondToken }),
    gate,
    ...(s.fault === undefined ? {} : { fault: s.fault }),
    ...(s.requestTimeoutMs === undefined ? {} : { timeoutMs: s.requestTimeoutMs }),
  });
  for (const [name, value] of Object.entries(s.limitTokens ?? {})) {
    if (value !== undefined) http.registerSecret(value, `$IARI_TOKEN_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`);
  }
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
    checkTimeoutMs: s.checkTimeoutMs ?? 20_000,
    ...(s.runDeadline === undefined ? {} : { runDeadline: s.runDeadline }),
    discovered: {},
  };
}

/**
 * Accepts a base URL with or without the trailing `/v1` (the interface puts `/v1` in its paths,
 * OpenAI clients put it in the base URL) and returns the root the paths are appended to, plus
 * the form shown in reports (credentials, query and fragment removed).
 */
export function normalizeBaseUrl(input: string): { root: string; display: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { error: `not a URL: "${input}"` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `unsupported scheme "${url.protocol}" (http or https)` };
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) path = path.slice(0, -3);
  const root = `${url.origin}${path}`;
  return { root, display: `${root}/v1` };
}
