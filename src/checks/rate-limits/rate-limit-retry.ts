import { createHash } from 'node:crypto';
import { formatWait, isQuotaExhausted, waitFor429, type Wait } from './rate-limit-wait.ts';

/**
 * Waits out a server's rate limit during `iari test`, so a 429 is judged by the LIMIT and HDR
 * checks only and every other check sees the answer the server gives once the limit lifts
 * (issue 10, part 4). Bounded: the whole run waits at most `maxTotalWaitMs`, one request is sent
 * at most `MAX_ATTEMPTS` times, and a progress line goes to stderr before every wait.
 */

/** Default of `--max-rate-limit-wait`: the longest the whole run spends waiting out 429s. */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 10 * 60_000;
/** One request is sent at most this many times (a server answering `Retry-After: 0` forever). */
export const MAX_ATTEMPTS = 24;
/** A wait is never shorter than this, whatever the server says. */
export const MIN_WAIT_MS = 100;
/** The window in which requests are counted against `requests_per_minute` (seed §Limits: "per minute"). */
export const WINDOW_MS = 60_000;

/** What the retry loop needs to see of an answer. */
export interface AnswerView {
  status: number;
  /** Lower-cased names. */
  headers: Readonly<Record<string, string>>;
  json: unknown;
  requestId: string | undefined;
  /** Reproduces the request (token written as $IARI_TOKEN). */
  curl?: string;
}

/** One 429 met during the run, and what iari did about it. */
export interface RateLimitEvent {
  /** Arrival on the run's clock (ms since the epoch). */
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  json: unknown;
  requestId: string | undefined;
  curl: string | undefined;
  /** `run`: the run's own account (the one /v1/me describes); `other`: a second or probing credential. */
  account: 'run' | 'other';
  /** Requests this run sent with the same credentials in the minute before it, this one included. */
  sentInWindow: number;
  /** Tokens (response usage) of this run's requests with the same credentials in that minute. */
  tokensInWindow: number;
  /** 1 for the first answer to a request, 2 for the first retry ... */
  attempt: number;
  /**
   * `waited`: iari waited `wait.ms` and sent the request again; `quota`: an exhausted quota, handed
   * to the check as it is; `gave-up`: the wait budget or the attempt limit was spent.
   */
  action: 'waited' | 'quota' | 'gave-up';
  wait: Wait | undefined;
  /** Set on the last event of a request: whether a later attempt got an answer other than 429. */
  lifted?: boolean;
  /** Why iari stopped waiting (`gave-up`). */
  reason?: string;
}

/** Thrown when a 429 is not waited out (budget or attempts spent): the check cannot decide and is skipped. */
export class RateLimitBudgetSpent extends Error {
  override readonly name = 'RateLimitBudgetSpent';
}

/** The RateLimitBudgetSpent behind an error, also when a client (the openai SDK) wrapped it as its `cause`. */
export function rateLimitGiveUp(error: unknown): RateLimitBudgetSpent | undefined {
  const seen = new Set<unknown>();
  for (let e = error; typeof e === 'object' && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (e instanceof RateLimitBudgetSpent) return e;
    seen.add(e);
  }
  return undefined;
}

export interface RateLimitRetryOptions {
  maxTotalWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  /** Where progress lines go (default: stderr). */
  progress?: (line: string) => void;
}

interface Sent {
  at: number;
  tokens: number;
}

export class RateLimitRetry {
  readonly maxTotalWaitMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #progress: (line: string) => void;
  readonly #sent = new Map<string, Sent[]>();
  #waitedMs = 0;
  #events: RateLimitEvent[] = [];
  /** Every event of the run (the report's rate-limit section). */
  readonly all: RateLimitEvent[] = [];

  constructor(options: RateLimitRetryOptions = {}) {
    this.maxTotalWaitMs = options.maxTotalWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.#now = options.now ?? (() => Date.now());
    this.#random = options.random ?? Math.random;
    this.#progress = options.progress ?? ((line) => void process.stderr.write(`${line}\n`));
  }

  /** Milliseconds the run has spent waiting out 429s so far. */
  get waitedMs(): number {
    return this.#waitedMs;
  }

  /** The events since the last call (the runner attributes them to the check that just ran). */
  drain(): RateLimitEvent[] {
    const out = this.#events;
    this.#events = [];
    return out;
  }

  /** Records a request about to be sent with these credentials (every request, retried or not). */
  noteSent(authorization: string | undefined): Sent {
    const key = credentialKey(authorization);
    const list = this.#sent.get(key) ?? [];
    const now = this.#now();
    while (list.length > 0 && (list[0] as Sent).at <= now - WINDOW_MS) list.shift();
    const entry = { at: now, tokens: 0 };
    list.push(entry);
    this.#sent.set(key, list);
    return entry;
  }

  #window(authorization: string | undefined): { requests: number; tokens: number } {
    const now = this.#now();
    const list = (this.#sent.get(credentialKey(authorization)) ?? []).filter((s) => s.at > now - WINDOW_MS);
    return { requests: list.length, tokens: list.reduce((a, s) => a + s.tokens, 0) };
  }

  /**
   * Sends with `attempt()` until the answer is not a rate-limit 429. `view` reads an answer;
   * `discard` releases one that will be sent again. Throws RateLimitBudgetSpent when it stops
   * waiting; an exhausted quota's 429 is returned as it is.
   */
  async run<T>(
    what: { method: string; path: string; authorization: string | undefined; account: 'run' | 'other' },
    attempt: (n: number) => Promise<T>,
    view: (answer: T) => AnswerView | Promise<AnswerView>,
    discard: (answer: T) => void | Promise<void> = () => {},
  ): Promise<T> {
    let previous: RateLimitEvent | undefined;
    for (let n = 1; ; n++) {
      const answer = await attempt(n);
      const v = await view(answer);
      if (v.status !== 429) {
        if (previous !== undefined) previous.lifted = true;
        return answer;
      }
      const window = this.#window(what.authorization);
      const event: RateLimitEvent = {
        at: this.#now(),
        method: what.method,
        path: what.path,
        headers: { ...v.headers },
        json: v.json,
        requestId: v.requestId,
        curl: v.curl,
        account: what.account,
        sentInWindow: window.requests,
        tokensInWindow: window.tokens,
        attempt: n,
        action: 'waited',
        wait: undefined,
      };
      this.#events.push(event);
      this.all.push(event);
      previous = event;
      // An exhausted quota does not lift by waiting: the check judges the answer itself.
      if (isQuotaExhausted(v.json)) {
        event.action = 'quota';
        return answer;
      }
      const wait = waitFor429(v.headers, n - 1, this.#now(), this.#random);
      const ms = Math.max(MIN_WAIT_MS, Math.ceil(wait.ms));
      event.wait = { ms, basis: wait.basis };
      const left = this.maxTotalWaitMs - this.#waitedMs;
      const giveUp = n >= MAX_ATTEMPTS ? `${n} answers in a row were 429` : ms > left ? `the server asks for ${formatWait(ms)} and the run's wait budget has ${formatWait(Math.max(0, left))} left (--max-rate-limit-wait)` : undefined;
      if (giveUp !== undefined) {
        event.action = 'gave-up';
        event.lifted = false;
        event.reason = giveUp;
        await discard(answer);
        this.#progress(`iari: 429 on ${what.method} ${what.path}: not waiting (${giveUp}); the check is skipped and LIMIT-010 reports it`);
        throw new RateLimitBudgetSpent(`rate limited: ${giveUp}`);
      }
      await discard(answer);
      this.#progress(
        `iari: 429 on ${what.method} ${what.path} (${describeBasis(wait, v.headers)}): waiting ${formatWait(ms)}, then sending it again ` +
          `(attempt ${n + 1}; ${formatWait(this.#waitedMs + ms)} of the ${formatWait(this.maxTotalWaitMs)} wait budget used)`,
      );
      this.#waitedMs += ms;
      await this.#sleep(ms);
    }
  }
}

function describeBasis(wait: Wait, headers: Readonly<Record<string, string>>): string {
  switch (wait.basis) {
    case 'retry-after-ms':
      return `retry-after-ms: ${headers['retry-after-ms'] ?? ''}`;
    case 'retry-after':
    case 'retry-after-date':
      return `Retry-After: ${headers['retry-after'] ?? ''}`;
    case 'x-ratelimit-reset':
      return 'no Retry-After; x-ratelimit-reset-*';
    case 'backoff':
      return 'no Retry-After; exponential backoff';
  }
}

/** A short digest standing for the credentials, so the window map never holds a token. */
function credentialKey(authorization: string | undefined): string {
  return authorization === undefined ? 'none' : createHash('sha256').update(authorization).digest('hex').slice(0, 16);
}

/**
 * A `fetch` for SDK clients (the openai SDK as a check): its requests count in the window and a
 * 429 is waited out as for the checks' own requests. After the first attempt each retry gets its
 * own timeout signal: the SDK's timer covers the first attempt and is not meant to cover iari's wait.
 */
export function retryingFetch(retry: RateLimitRetry, gate: { acquire(): Promise<void> }, options: { timeoutMs: number; fetchImpl: typeof fetch }): typeof fetch {
  const fetchImpl = options.fetchImpl;
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const authorization = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('authorization') ?? undefined;
    return retry.run(
      { method, path: url.pathname, authorization, account: 'run' },
      async (n) => {
        if (n > 1) await gate.acquire();
        retry.noteSent(authorization);
        return fetchImpl(input, n === 1 ? init : { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
      },
      async (res) => {
        const headers: Record<string, string> = {};
        res.headers.forEach((v, k) => {
          headers[k.toLowerCase()] = v;
        });
        const json = res.status === 429 ? await res.clone().json().catch(() => undefined) : undefined;
        return { status: res.status, headers, json, requestId: headers['x-request-id'] };
      },
      async (res) => {
        await res.body?.cancel().catch(() => {});
      },
    );
  };
}
