/** Small exact statistics used by the load proofs (tests and scripts/bench-load.ts). */
import { logGamma } from '../src/statistics.ts';

/** Nearest-rank percentile of raw values (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? NaN;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Kolmogorov's limiting distribution: P(sqrt(n) D > lambda). */
function kolmogorovQ(lambda: number): number {
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12) break;
  }
  return Math.min(1, Math.max(0, sum));
}

/**
 * One-sample Kolmogorov-Smirnov test of `samples` against the exponential distribution with
 * the given rate (Stephens' small-sample correction of the statistic).
 */
export function ksExponential(samples: readonly number[], rate: number): { d: number; pValue: number; n: number } {
  const x = [...samples].sort((a, b) => a - b);
  const n = x.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = 1 - Math.exp(-rate * (x[i] ?? 0));
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  const sn = Math.sqrt(n);
  return { d, pValue: kolmogorovQ((sn + 0.12 + 0.11 / sn) * d), n };
}

/**
 * One-sample Kolmogorov-Smirnov test of `samples` against the gamma distribution of shape `k`
 * and mean 1/rate (the gaps of a gamma arrival process; k = 1 is the exponential).
 */
export function ksGamma(samples: readonly number[], k: number, rate: number): { d: number; pValue: number; n: number } {
  const x = [...samples].sort((a, b) => a - b);
  const n = x.length;
  const beta = k * rate;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = regularizedGammaP(k, beta * (x[i] ?? 0));
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  const sn = Math.sqrt(n);
  return { d, pValue: kolmogorovQ((sn + 0.12 + 0.11 / sn) * d), n };
}


/** P(a, x) = γ(a, x) / Γ(a): the series below a + 1, the continued fraction above (Numerical Recipes §6.2). */
export function regularizedGammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const lnPre = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.min(1, sum * Math.exp(lnPre));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let dd = 1 / b;
  let h = dd;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    dd = an * dd + b;
    if (Math.abs(dd) < tiny) dd = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    dd = 1 / dd;
    const del = dd * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.max(0, 1 - Math.exp(lnPre) * h);
}

export interface ErrorDistribution {
  n: number;
  meanUs: number;
  p50AbsUs: number;
  p99AbsUs: number;
  maxAbsUs: number;
  p1Us: number;
  p99Us: number;
}

export function errorDistribution(errorsUs: readonly number[]): ErrorDistribution {
  const abs = errorsUs.map(Math.abs);
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    n: errorsUs.length,
    meanUs: r(mean(errorsUs)),
    p50AbsUs: r(percentile(abs, 50)),
    p99AbsUs: r(percentile(abs, 99)),
    maxAbsUs: r(abs.length === 0 ? NaN : Math.max(...abs)),
    p1Us: r(percentile(errorsUs, 1)),
    p99Us: r(percentile(errorsUs, 99)),
  };
}

/**
 * Achieved rate of a series of send times (s): 1 / the least-squares slope of time against
 * index, so one late send at either end does not skew it the way (n-1)/(last-first) would.
 */
export function fittedRate(times: readonly number[]): number {
  const t = [...times].sort((a, b) => a - b);
  const n = t.length;
  if (n < 2) return NaN;
  const mi = (n - 1) / 2;
  const mt = mean(t);
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (i - mi) * ((t[i] ?? 0) - mt);
    den += (i - mi) ** 2;
  }
  return den / num;
}
