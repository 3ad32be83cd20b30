import { describe, expect, it } from 'vitest';
import { backoffMs, formatWait, isQuotaExhausted, parseGoDuration, parseRetryAfter, waitFor429 } from './rate-limit-wait.ts';

const now = Date.parse('2026-03-10T12:00:00Z');

describe('reading how long a 429 asks to wait', () => {
  it('LIMIT-010: Go durations as OpenAI and Groq send them in x-ratelimit-reset-*', () => {
    expect(parseGoDuration('1s')).toBe(1000);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('6m0s')).toBe(360_000);
    expect(parseGoDuration('2m59.56s')).toBeCloseTo(179_560, 6);
    expect(parseGoDuration('1h2m')).toBe(3_720_000);
    for (const bad of ['', '1.5', '5 s', 's', '-1s', '1d']) expect(parseGoDuration(bad)).toBeUndefined();
  });

  it('LIMIT-010: Retry-After in seconds or as an HTTP date, the date measured against the response Date header', () => {
    expect(parseRetryAfter('12', now)).toEqual({ ms: 12_000, basis: 'retry-after' });
    expect(parseRetryAfter(' 0 ', now)).toEqual({ ms: 0, basis: 'retry-after' });
    expect(parseRetryAfter('Tue, 10 Mar 2026 12:00:30 GMT', now)).toEqual({ ms: 30_000, basis: 'retry-after-date' });
    // The server's clock is 10 s behind ours: its Date header, not our clock, measures the wait.
    expect(parseRetryAfter('Tue, 10 Mar 2026 12:00:30 GMT', now, 'Tue, 10 Mar 2026 11:59:50 GMT')).toEqual({ ms: 40_000, basis: 'retry-after-date' });
    expect(parseRetryAfter('Tue, 10 Mar 2026 11:00:00 GMT', now)).toEqual({ ms: 0, basis: 'retry-after-date' });
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('LIMIT-010: retry-after-ms first, then Retry-After, then the spent window reset, then backoff', () => {
    const r = () => 0.5;
    expect(waitFor429({ 'retry-after-ms': '1500', 'retry-after': '9' }, 0, now, r)).toEqual({ ms: 1500, basis: 'retry-after-ms' });
    expect(waitFor429({ 'retry-after-ms': '-1', 'retry-after': '9' }, 0, now, r)).toEqual({ ms: 9000, basis: 'retry-after' });
    const resets = { 'x-ratelimit-reset-requests': '20s', 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-remaining-tokens': '149000' };
    expect(waitFor429(resets, 0, now, r)).toEqual({ ms: 20_000, basis: 'x-ratelimit-reset' });
    expect(waitFor429({ ...resets, 'x-ratelimit-remaining-requests': '3' }, 0, now, r)).toEqual({ ms: 360_000, basis: 'x-ratelimit-reset' });
    expect(waitFor429({ 'x-ratelimit-reset-requests': 'soon' }, 2, now, r)).toEqual({ ms: 3000, basis: 'backoff' });
  });

  it('LIMIT-010: backoff doubles from 1 s to a 32 s cap, half of each step random', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((n) => backoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 16_000, 16_000]);
    expect([0, 1, 2, 5, 40].map((n) => backoffMs(n, () => 0.999_999))).toEqual([1000, 2000, 4000, 32_000, 32_000]);
  });

  it('LIMIT-006: an exhausted quota is told apart from a rate limit', () => {
    expect(isQuotaExhausted({ error: { type: 'insufficient_quota', code: 'insufficient_quota' } })).toBe(true);
    expect(isQuotaExhausted({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } })).toBe(false);
    expect(isQuotaExhausted({ detail: 'insufficient_quota' })).toBe(false);
    expect(isQuotaExhausted(undefined)).toBe(false);
  });

  it('formats waits', () => {
    expect([250, 1500, 12_000, 60_000, 125_000].map(formatWait)).toEqual(['250 ms', '1.5 s', '12 s', '1 min', '2 min 5 s']);
  });
});
