/**
 * How long to wait before sending a request again that a server answered 429, read the way the
 * clients of the chat-completions format read it. openai-node (`src/client.ts`, retry logic) takes
 * `retry-after-ms`, then `retry-after` as seconds or an HTTP date, and backs off exponentially
 * with jitter when neither says; OpenAI and Groq also send `x-ratelimit-reset-requests` and
 * `x-ratelimit-reset-tokens` as Go-style durations ("1s", "6m0s", "2m59.56s") on every response.
 * Pure functions: the retry loop is in rate-limit-retry.ts.
 */

export type WaitBasis = 'retry-after-ms' | 'retry-after' | 'retry-after-date' | 'x-ratelimit-reset' | 'backoff';

export interface Wait {
  ms: number;
  basis: WaitBasis;
}

/** Exponential backoff without a hint from the server: 1 s, 2 s, 4 s ... capped at 32 s, equal jitter. */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 32_000;

const GO_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

/** A Go-style duration ("1s", "250ms", "6m0s", "2m59.56s") in milliseconds, or undefined. */
export function parseGoDuration(text: string): number | undefined {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(s)) return undefined;
  let ms = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) ms += Number(m[1]) * (GO_UNIT_MS[m[2] as string] as number);
  return ms;
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): a number of seconds, or an HTTP date (measured against the
 * response's own `Date` header when there is one, so clock skew between the two machines does not
 * count). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number, dateHeader?: string): Wait | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return { ms: Number(v) * 1000, basis: 'retry-after' };
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  const serverNow = dateHeader === undefined ? Number.NaN : Date.parse(dateHeader);
  return { ms: Math.max(0, at - (Number.isNaN(serverNow) ? now : serverNow)), basis: 'retry-after-date' };
}

/** The reset durations of the rate-limit windows that are spent (remaining 0), else of every window named. */
function ratelimitReset(headers: Readonly<Record<string, string>>): number | undefined {
  const resets: { ms: number; spent: boolean }[] = [];
  for (const kind of ['requests', 'tokens']) {
    const reset = headers[`x-ratelimit-reset-${kind}`];
    const ms = reset === undefined ? undefined : parseGoDuration(reset);
    if (ms !== undefined) resets.push({ ms, spent: headers[`x-ratelimit-remaining-${kind}`]?.trim() === '0' });
  }
  const spent = resets.filter((r) => r.spent);
  const pick = spent.length > 0 ? spent : resets;
  return pick.length === 0 ? undefined : Math.max(...pick.map((r) => r.ms));
}

/** Backoff for the n-th consecutive 429 (n from 0): half the step plus a random half (equal jitter). */
export function backoffMs(attempt: number, random: () => number): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * The wait a 429 asks for: `retry-after-ms`, `Retry-After` (seconds or date), the spent window's
 * `x-ratelimit-reset-*`, else exponential backoff with jitter. Headers have lower-cased names.
 */
export function waitFor429(headers: Readonly<Record<string, string>>, attempt: number, now: number, random: () => number): Wait {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return { ms: Number(ms.trim()), basis: 'retry-after-ms' };
  const retryAfter = parseRetryAfter(headers['retry-after'], now, headers['date']);
  if (retryAfter !== undefined) return retryAfter;
  const reset = ratelimitReset(headers);
  if (reset !== undefined) return { ms: reset, basis: 'x-ratelimit-reset' };
  return { ms: backoffMs(attempt, random), basis: 'backoff' };
}

/**
 * A 429 that waiting does not lift: an exhausted quota or spend cap (OpenAI's `insufficient_quota`,
 * whose 429 "may be omitted [Retry-After] for 429 responses that require user action"). Such an
 * answer goes to the check as it is.
 */
export function isQuotaExhausted(json: unknown): boolean {
  const error = typeof json === 'object' && json !== null ? (json as Record<string, unknown>)['error'] : undefined;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Record<string, unknown>;
  return e['code'] === 'insufficient_quota' || e['type'] === 'insufficient_quota';
}

/** "12 s", "1.5 s", "250 ms", "2 min 5 s": for progress lines. */
export function formatWait(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min${s % 60 === 0 ? '' : ` ${s % 60} s`}`;
}

