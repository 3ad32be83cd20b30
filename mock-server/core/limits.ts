import type { AccountState } from './accounts.ts';
import type { HeaderMap } from './types.ts';

/** Go-style duration as in OpenAI's x-ratelimit-reset-* headers: "1s", "6m0s", "120ms". */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const totalSeconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

export interface LimitVerdict {
  allowed: boolean;
  which: 'requests' | 'tokens' | null;
  retryAfterMs: number;
  headers: HeaderMap;
}

/**
 * RPM and TPM over a sliding 60 s window. A request is admitted while fewer requests than the
 * limit were made in the window and the tokens used plus this request's estimate fit the limit.
 * `rpm`: the enforced requests per minute (a rate-limit fault may hold it below the account's).
 */
export function checkLimits(account: AccountState, now: number, estimatedTokens: number, rpm = account.fixture.limits.requests_per_minute): LimitVerdict {
  const requests = account.requestWindow;
  const tokens = account.tokenWindow;
  requests.prune(now);
  tokens.prune(now);
  const tpm = account.fixture.limits.tokens_per_minute;
  const requestsOver = requests.count >= rpm;
  const tokensOver = tokens.sum + estimatedTokens > tpm;
  const resetRequestsMs = (requests.expiry(0) ?? now) - now;
  let resetTokensMs = (tokens.expiry(0) ?? now) - now;
  if (tokensOver) {
    // Time until enough tokens leave the window for this request to fit (a full window at most).
    let free = tpm - tokens.sum - estimatedTokens;
    resetTokensMs = 60_000;
    for (let k = 0; k < tokens.count; k++) {
      free += tokens.amount(k);
      if (free >= 0) {
        resetTokensMs = (tokens.expiry(k) ?? now) - now;
        break;
      }
    }
  }
  const headers: HeaderMap = {
    'x-ratelimit-limit-requests': String(rpm),
    'x-ratelimit-limit-tokens': String(tpm),
    'x-ratelimit-remaining-requests': String(Math.max(0, rpm - requests.count - (requestsOver ? 0 : 1))),
    'x-ratelimit-remaining-tokens': String(Math.max(0, tpm - tokens.sum - (tokensOver ? 0 : estimatedTokens))),
    'x-ratelimit-reset-requests': goDuration(resetRequestsMs),
    'x-ratelimit-reset-tokens': goDuration(resetTokensMs),
  };
  if (requestsOver) return { allowed: false, which: 'requests', retryAfterMs: Math.max(resetRequestsMs, 1), headers };
  if (tokensOver) return { allowed: false, which: 'tokens', retryAfterMs: Math.max(resetTokensMs, 1), headers };
  return { allowed: true, which: null, retryAfterMs: 0, headers };
}

export function admit(account: AccountState, now: number, tokens: number): void {
  account.requestWindow.add(now, 1);
  if (tokens > 0) account.tokenWindow.add(now, tokens);
}
