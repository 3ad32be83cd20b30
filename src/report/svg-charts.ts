/**
 * Server-side rendered inline SVG charts: histogram, CDF, line chart over time, calendar heatmap
 * and sweep curve. No script is needed to draw them; hover tooltips come from `data-tip`
 * attributes read by the page script of html-shell.ts.
 */
import { html, type Html } from './html-shell.ts';
import { figure, fmt, frame, H, M, n, noData, W } from './svg-parts.ts';

export type Format = (value: number) => string;

export interface Bin {
  lo: number;
  hi: number;
  count: number;
}

export interface Marker {
  value: number;
  label: string;
}

/** "Nice" tick values covering [min, max]: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max < min) [min, max] = [max, min];
  if (max === min) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    min -= pad;
    max += pad;
  }
  const rawStep = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rawStep));
  const unit = rawStep / power;
  const step = (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

export function extent(values: readonly number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? [0, 1] : [lo, hi];
}

/** Splits raw values into `count` equal-width bins over their range. */
export function binValues(values: readonly number[], count = 30): Bin[] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return [];
  const [lo, hi] = extent(finite);
  const width = hi > lo ? (hi - lo) / count : 1;
  const bins: Bin[] = Array.from({ length: hi > lo ? count : 1 }, (_, i) => ({ lo: lo + i * width, hi: lo + (i + 1) * width, count: 0 }));
  for (const v of finite) {
    const i = Math.min(bins.length - 1, Math.floor((v - lo) / width));
    const bin = bins[i];
    if (bin !== undefined) bin.count++;
  }
  return bins;
}

/** The empirical CDF of raw values: one point per distinct value, fraction <= value. */
export function cdfFromValues(values: readonly number[]): { value: number; fraction: number }[] {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const out: { value: number; fraction: number }[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i] as number;
    if (i + 1 < sorted.length && sorted[i + 1] === v) continue;
    out.push({ value: v, fraction: (i + 1) / sorted.length });
  }
  return out;
}

interface AxesOptions {
  x: (v: number) => number;
  y: (v: number) => number;
  xTicks: number[];
  yTicks: number[];
  xFormat: Format;
  yFormat: Format;
  xLabel: string;
  yLabel: string;
}

export function axes(o: AxesOptions): Html {
  const x0 = M.left;
  const x1 = W - M.right;
  const y0 = H - M.bottom;
  const y1 = M.top;
  return html`<g class="grid">${o.yTicks.map((t) => html`<line x1="${x0}" x2="${x1}" y1="${n(o.y(t))}" y2="${n(o.y(t))}"/>`)}</g>
<g class="axis"><line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y0}"/><line x1="${x0}" x2="${x0}" y1="${y0}" y2="${y1}"/>
${o.xTicks.map((t) => html`<line x1="${n(o.x(t))}" x2="${n(o.x(t))}" y1="${y0}" y2="${y0 + 4}"/><text x="${n(o.x(t))}" y="${y0 + 16}" text-anchor="middle">${o.xFormat(t)}</text>`)}
${o.yTicks.map((t) => html`<text x="${x0 - 6}" y="${n(o.y(t) + 4)}" text-anchor="end">${o.yFormat(t)}</text>`)}
<text class="axis-label" x="${(x0 + x1) / 2}" y="${H - 6}" text-anchor="middle">${o.xLabel}</text>
<text class="axis-label" transform="translate(14 ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${o.yLabel}</text></g>`;
}

function verticalMarkers(markers: readonly Marker[], x: (v: number) => number, cls: string): Html {
  return html`${markers.map((m, i) => {
    const px = n(x(m.value));
    return html`<line class="${cls}" x1="${px}" x2="${px}" y1="${M.top}" y2="${H - M.bottom}"/><text class="${cls}-label" x="${px}" y="${M.top + 10 + (i % 3) * 11}" dx="3">${m.label}</text>`;
  })}`;
}

export interface HistogramOptions {
  title: string;
  bins: readonly Bin[];
  xLabel: string;
  yLabel?: string;
  format?: Format;
  /** Vertical lines, e.g. p50/p99. */
  percentiles?: readonly Marker[];
}

export function histogramChart(o: HistogramOptions): Html {
  const bins = o.bins.filter((b) => Number.isFinite(b.lo) && Number.isFinite(b.hi));
  if (bins.length === 0) return noData('histogram', o.title, 'no samples');
  const format = o.format ?? fmt;
  const lo = Math.min(...bins.map((b) => b.lo));
  const hi = Math.max(...bins.map((b) => b.hi), ...(o.percentiles ?? []).map((p) => p.value));
  const maxCount = Math.max(1, ...bins.map((b) => b.count));
  const xTicks = niceTicks(lo, hi, 6).filter((t) => t >= lo && t <= hi);
  const yTicks = niceTicks(0, maxCount, 4).filter((t) => t >= 0 && Number.isInteger(t));
  const x = linear(lo, hi, M.left, W - M.right);
  const y = linear(0, Math.max(maxCount, yTicks.at(-1) ?? maxCount), H - M.bottom, M.top);
  const total = bins.reduce((s, b) => s + b.count, 0);
  const bars = bins.map((b) => {
    const bx = x(b.lo);
    const bw = Math.max(1, x(b.hi) - bx - 1);
    const by = y(b.count);
    const tip = `${format(b.lo)} – ${format(b.hi)}\n${b.count} (${total === 0 ? 0 : ((100 * b.count) / total).toFixed(1)}%)`;
    return html`<rect class="bar" x="${n(bx)}" y="${n(by)}" width="${n(bw)}" height="${n(H - M.bottom - by)}" data-tip="${tip}"/>`;
  });
  const body = html`${axes({ x, y, xTicks, yTicks, xFormat: format, yFormat: fmt, xLabel: o.xLabel, yLabel: o.yLabel ?? 'count' })}<g class="bars">${bars}</g>${verticalMarkers(o.percentiles ?? [], x, 'pct')}`;
  return figure('histogram', o.title, frame('histogram', o.title, body));
}

export interface CdfOptions {
  title: string;
  points: readonly { value: number; fraction: number }[];
  xLabel: string;
  format?: Format;
  percentiles?: readonly Marker[];
}

export function cdfChart(o: CdfOptions): Html {
  const pts = o.points.filter((p) => Number.isFinite(p.value) && Number.isFinite(p.fraction));
  if (pts.length === 0) return noData('cdf', o.title, 'no samples');
  const format = o.format ?? fmt;
  const [lo, hi0] = extent(pts.map((p) => p.value));
  const hi = Math.max(hi0, ...(o.percentiles ?? []).map((p) => p.value));
  const x = linear(lo, hi, M.left, W - M.right);
  const y = linear(0, 1, H - M.bottom, M.top);
  let d = `M${n(x(lo))},${n(y(0))}`;
  let prev = 0;
  for (const p of pts) {
    d += `L${n(x(p.value))},${n(y(prev))}L${n(x(p.value))},${n(y(p.fraction))}`;
    prev = p.fraction;
  }
  const step = Math.max(1, Math.floor(pts.length / 120));
  const hovers = pts
    .filter((_, i) => i % step === 0 || i === pts.length - 1)
    .map((p) => html`<circle class="hit" cx="${n(x(p.value))}" cy="${n(y(p.fraction))}" r="4" data-tip="${`${format(p.value)}\n${(p.fraction * 100).toFixed(2)}% at or below`}"/>`);
  const body = html`${axes({
    x,
    y,
    xTicks: niceTicks(lo, hi, 6).filter((t) => t >= lo && t <= hi),
    yTicks: [0, 0.25, 0.5, 0.75, 1],
    xFormat: format,
    yFormat: (v) => `${Math.round(v * 100)}%`,
    xLabel: o.xLabel,
    yLabel: 'fraction ≤ x',
  })}<path class="line s0" d="${d}"/>${hovers}${verticalMarkers(o.percentiles ?? [], x, 'pct')}`;
  return figure('cdf', o.title, frame('cdf', o.title, body));
}

export interface Series {
  name: string;
  /** A semantic colour (ok green, failed red) instead of the palette colour of its position. */
  tone?: 'good' | 'bad' | 'warn';
  points: readonly { x: number; y: number }[];
}

export interface LineChartOptions {
  title: string;
  series: readonly Series[];
  xLabel: string;
  yLabel: string;
  xFormat?: Format;
  yFormat?: Format;
  /** Horizontal reference lines, e.g. an SLO threshold. */
  thresholds?: readonly Marker[];
  /** Start the y axis at zero (default true). */
  zeroBased?: boolean;
  /** Points further apart than this on x are not joined: the line breaks where data is missing (an outage). */
  breakOver?: number;
  /** The x range, when charts side by side share one time axis (default: the points' extent). */
  xDomain?: readonly [number, number];
}

function seriesClass(s: Series, i: number): string {
  return s.tone === undefined ? `s${i % 4}` : `t-${s.tone}`;
}

function legend(series: readonly Series[]): Html {
  return html`<div class="legend">${series.map(
    (s, i) => html`<span><span class="sw" style="background:var(${s.tone === undefined ? `--series${(i % 4) + 1}` : `--${s.tone}`})"></span>${s.name}</span>`,
  )}</div>`;
}

export function lineChart(o: LineChartOptions): Html {
  const all = o.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (all.length === 0) return noData('line', o.title, 'no data points');
  const xFormat = o.xFormat ?? fmt;
  const yFormat = o.yFormat ?? fmt;
  const [xlo, xhi] = o.xDomain ?? extent(all.map((p) => p.x));
  const [ylo0, yhi0] = extent([...all.map((p) => p.y), ...(o.thresholds ?? []).map((t) => t.value)]);
  const yTicks = niceTicks(o.zeroBased === false ? ylo0 : Math.min(0, ylo0), yhi0, 5);
  const ylo = Math.min(yTicks[0] ?? ylo0, o.zeroBased === false ? ylo0 : 0);
  const yhi = Math.max(yTicks.at(-1) ?? yhi0, yhi0);
  const x = linear(xlo, xhi, M.left, W - M.right);
  const y = linear(ylo, yhi, H - M.bottom, M.top);
  const paths = o.series.map((s, i) => {
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    const d = pts.map((p, j) => `${j === 0 || (o.breakOver !== undefined && p.x - (pts[j - 1] as { x: number }).x > o.breakOver) ? 'M' : 'L'}${n(x(p.x))},${n(y(p.y))}`).join('');
    const step = Math.max(1, Math.ceil(pts.length / 150));
    const dots = pts
      .filter((_, j) => j % step === 0 || j === pts.length - 1)
      .map((p) => html`<circle class="hover ${seriesClass(s, i)}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="${pts.length <= 40 ? 3 : 2}" data-tip="${`${s.name}\n${o.xLabel}: ${xFormat(p.x)}\n${o.yLabel}: ${yFormat(p.y)}`}"/>`);
    return html`<g class="series" data-series="${s.name}"><path class="line ${seriesClass(s, i)}" d="${d}"/>${dots}</g>`;
  });
  const thresholds = (o.thresholds ?? []).map(
    (t) => html`<line class="marker" x1="${M.left}" x2="${W - M.right}" y1="${n(y(t.value))}" y2="${n(y(t.value))}"/><text class="marker-label" x="${W - M.right}" y="${n(y(t.value) - 4)}" text-anchor="end">${t.label}</text>`,
  );
  const body = html`${axes({
    x,
    y,
    xTicks: niceTicks(xlo, xhi, 6).filter((t) => t >= xlo && t <= xhi),
    yTicks: yTicks.filter((t) => t >= ylo && t <= yhi),
    xFormat,
    yFormat,
    xLabel: o.xLabel,
    yLabel: o.yLabel,
  })}${paths}${thresholds}`;
  return figure('line', o.title, frame('line', o.title, body), o.series.length > 1 ? legend(o.series) : undefined);
}

export interface SweepPoint {
  /** The offered rate or concurrency of the step. */
  x: number;
  /** The metric the SLO is about (e.g. TTFT p95 in ms). */
  y: number;
  /** Whether the step met every SLO. */
  ok: boolean;
  tip?: string;
}

export interface SweepOptions {
  title: string;
  points: readonly SweepPoint[];
  xLabel: string;
  yLabel: string;
  yFormat?: Format;
  xFormat?: Format;
  /** The SLO threshold on y, drawn as a horizontal line. */
  slo?: Marker;
  /** The highest x that met the SLOs, drawn as a vertical line. */
  best?: Marker;
}

export function sweepChart(o: SweepOptions): Html {
  const pts = o.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).slice().sort((a, b) => a.x - b.x);
  if (pts.length === 0) return noData('sweep', o.title, 'no sweep steps');
  const xFormat = o.xFormat ?? fmt;
  const yFormat = o.yFormat ?? fmt;
  const [xlo, xhi] = extent([...pts.map((p) => p.x), ...(o.best === undefined ? [] : [o.best.value])]);
  const [, yhi0] = extent([...pts.map((p) => p.y), ...(o.slo === undefined ? [] : [o.slo.value])]);
  const yTicks = niceTicks(0, yhi0, 5);
  const yhi = Math.max(yTicks.at(-1) ?? yhi0, yhi0);
  const pad = (xhi - xlo) * 0.04 || 1;
  const x = linear(xlo - pad, xhi + pad, M.left, W - M.right);
  const y = linear(0, yhi, H - M.bottom, M.top);
  const d = pts.map((p, j) => `${j === 0 ? 'M' : 'L'}${n(x(p.x))},${n(y(p.y))}`).join('');
  const dots = pts.map(
    (p) => html`<circle class="step ${p.ok ? 'dot-ok' : 'dot-bad'}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="5" data-ok="${String(p.ok)}" data-tip="${p.tip ?? `${o.xLabel}: ${xFormat(p.x)}\n${o.yLabel}: ${yFormat(p.y)}\n${p.ok ? 'meets SLOs' : 'breaks SLOs'}`}"/>`,
  );
  const slo =
    o.slo === undefined
      ? ''
      : html`<line class="marker" x1="${M.left}" x2="${W - M.right}" y1="${n(y(o.slo.value))}" y2="${n(y(o.slo.value))}"/><text class="marker-label" x="${W - M.right}" y="${n(y(o.slo.value) - 4)}" text-anchor="end">${o.slo.label}</text>`;
  const best = o.best === undefined ? '' : verticalMarkers([o.best], x, 'pct');
  const body = html`${axes({
    x,
    y,
    xTicks: niceTicks(xlo, xhi, 6).filter((t) => t >= xlo - pad && t <= xhi + pad),
    yTicks,
    xFormat,
    yFormat,
    xLabel: o.xLabel,
    yLabel: o.yLabel,
  })}<path class="line s0" d="${d}"/>${slo}${best}${dots}`;
  const legendHtml = html`<div class="legend"><span><span class="sw" style="background:var(--good)"></span>meets SLOs</span><span><span class="sw" style="background:var(--bad)"></span>breaks SLOs</span></div>`;
  return figure('sweep', o.title, frame('sweep', o.title, body), legendHtml);
}

export { calendarHeatmap, heatLevel, type HeatDay, type HeatmapOptions } from './svg-calendar-heatmap.ts';
