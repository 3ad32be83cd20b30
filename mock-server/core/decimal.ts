// Money is kept as integer nano-dollars (1e-9 USD) so sums are exact.

export const NANO_PER_USD = 1_000_000_000;

/** Canonical decimal string (no exponent, no trailing zeros), e.g. 1500 -> "0.0000015". */
export function nanoToDecimal(nano: number): string {
  const n = Math.max(0, Math.round(nano));
  const whole = Math.floor(n / NANO_PER_USD);
  const frac = (n % NANO_PER_USD).toString().padStart(9, '0').replace(/0+$/, '');
  return frac.length === 0 ? String(whole) : `${whole}.${frac}`;
}

export function nanoToUsd(nano: number): number {
  return Number(nanoToDecimal(nano));
}

export function usdToNano(usd: number): number {
  return Math.round(usd * NANO_PER_USD);
}
