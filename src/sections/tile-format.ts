/** How tiles (section-contract.ts, SectionTile) write figures: the load report's own formats. */

/** A duration in µs as a short readable string ('–' for none). */
export function tileUs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const ms = value / 1000;
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) >= 100) return `${ms.toFixed(0)} ms`;
  if (Math.abs(ms) >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** A number with at most `digits` decimals and thousands separators ('–' for none). */
export function tileNum(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A ratio as a percentage (two decimals under 1%). */
export function tilePct(value: number): string {
  return `${(value * 100).toFixed(value < 0.01 && value > 0 ? 2 : 1)}%`;
}

/** A histogram's percentile in ms for a chart (null: no histogram). */
export function tileMs(h: { percentiles: { p50: number; p95: number } } | null | undefined, p: 'p50' | 'p95'): number | null {
  return h === null || h === undefined ? null : h.percentiles[p] / 1000;
}
