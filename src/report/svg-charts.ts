/**
 * Server-side rendered inline SVG charts: histogram, CDF, line chart over time, calendar heatmap
 * and sweep curve. No script is needed to draw them; hover tooltips come from `data-tip`
 * attributes read by the page script of html-shell.ts.
 */
import { html, raw, type Html } from './html-shell.ts';

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

const W = 640;
const H = 260;
const M = { top: 16, right: 18, bottom: 42, left: 66 };

function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const a = Math.abs(value);
  if (a >= 1e9) return `${trim(value / 1e9)}G`;
  if (a >= 1e6) return `${trim(value / 1e6)}M`;
  if (a >= 1e4) return `${trim(value / 1e3)}k`;
  if (a >= 100 || Number.isInteger(value)) return String(Math.round(value * 100) / 100);
  return trim(value);
}

function trim(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** A number with at most 2 decimals, for SVG coordinates. */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
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

function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

function extent(values: readonly number[]): [number, number] {
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

function frame(kind: string, label: string, body: Html, width = W, height = H): Html {
  return html`<svg class="chart chart-${kind}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;
}

function figure(kind: string, title: string, svg: Html, legend?: Html): Html {
  return html`<figure class="chart" data-chart="${kind}"><figcaption>${title}</figcaption>${svg}${legend ?? ''}</figure>`;
}

function noData(kind: string, title: string, message: string): Html {
  return figure(
    kind,
    title,
    frame(kind, `${title}: no data`, html`<text class="no-data" x="${W / 2}" y="${H / 2}" text-anchor="middle">${message}</text>`),
  );
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

function axes(o: AxesOptions): Html {
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
}

function legend(series: readonly { name: string }[]): Html {
  return html`<div class="legend">${series.map((s, i) => html`<span><span class="sw" style="background:var(--series${(i % 4) + 1})"></span>${s.name}</span>`)}</div>`;
}

export function lineChart(o: LineChartOptions): Html {
  const all = o.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (all.length === 0) return noData('line', o.title, 'no data points');
  const xFormat = o.xFormat ?? fmt;
  const yFormat = o.yFormat ?? fmt;
  const [xlo, xhi] = extent(all.map((p) => p.x));
  const [ylo0, yhi0] = extent([...all.map((p) => p.y), ...(o.thresholds ?? []).map((t) => t.value)]);
  const yTicks = niceTicks(o.zeroBased === false ? ylo0 : Math.min(0, ylo0), yhi0, 5);
  const ylo = Math.min(yTicks[0] ?? ylo0, o.zeroBased === false ? ylo0 : 0);
  const yhi = Math.max(yTicks.at(-1) ?? yhi0, yhi0);
  const x = linear(xlo, xhi, M.left, W - M.right);
  const y = linear(ylo, yhi, H - M.bottom, M.top);
  const paths = o.series.map((s, i) => {
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    const d = pts.map((p, j) => `${j === 0 ? 'M' : 'L'}${n(x(p.x))},${n(y(p.y))}`).join('');
    const step = Math.max(1, Math.ceil(pts.length / 150));
    const dots = pts
      .filter((_, j) => j % step === 0 || j === pts.length - 1)
      .map((p) => html`<circle class="hover s${i % 4}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="${pts.length <= 40 ? 3 : 2}" data-tip="${`${s.name}\n${o.xLabel}: ${xFormat(p.x)}\n${o.yLabel}: ${yFormat(p.y)}`}"/>`);
    return html`<g class="series" data-series="${s.name}"><path class="line s${i % 4}" d="${d}"/>${dots}</g>`;
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

export interface HeatDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  value: number;
  /** Tooltip text (the numbers of that day). */
  tip: string;
}

export interface HeatmapOptions {
  title: string;
  days: readonly HeatDay[];
  /** What the intensity measures, e.g. "tokens". */
  metric: string;
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Intensity level 0..4 of a value against the maximum: 0 only for zero, then quarters of the max. */
export function heatLevel(value: number, max: number): number {
  if (!(value > 0) || !(max > 0)) return 0;
  return Math.min(4, Math.max(1, Math.ceil((4 * value) / max)));
}

/**
 * A calendar heatmap like GitHub's contribution graph: one column per week (Sunday first),
 * one cell per day, intensity by `value`, a tooltip with the day's numbers.
 */
export function calendarHeatmap(o: HeatmapOptions): Html {
  const days = o.days.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.date) && !Number.isNaN(Date.parse(`${d.date}T00:00:00Z`)));
  if (days.length === 0) return noData('heatmap', o.title, 'no usage data');
  const sorted = days.slice().sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const cell = 15;
  const gap = 3;
  const left = 30;
  const top = 20;
  const first = Date.parse(`${(sorted[0] as HeatDay).date}T00:00:00Z`);
  const firstDow = new Date(first).getUTCDay();
  const max = Math.max(0, ...sorted.map((d) => d.value));
  const dayMs = 86_400_000;
  let weeks = 1;
  // Month labels sit over the first week column whose first day is in a new month (GitHub's
  // rule); a label closer than 3 columns to the next one is dropped so none overlap.
  const columnMonth = new Map<number, number>();
  const cells = sorted.map((d) => {
    const t = Date.parse(`${d.date}T00:00:00Z`);
    const index = Math.round((t - first) / dayMs) + firstDow;
    const col = Math.floor(index / 7);
    const row = index % 7;
    weeks = Math.max(weeks, col + 1);
    if (!columnMonth.has(col)) columnMonth.set(col, new Date(t).getUTCMonth());
    const level = heatLevel(d.value, max);
    return html`<rect class="heat-cell h${level}" x="${left + col * (cell + gap)}" y="${top + row * (cell + gap)}" width="${cell}" height="${cell}" rx="2" data-date="${d.date}" data-level="${level}" data-value="${d.value}" data-tip="${d.tip}" aria-label="${d.tip.replace(/\n/g, ', ')}"/>`;
  });
  const starts: { col: number; month: number }[] = [];
  for (const [col, month] of [...columnMonth.entries()].sort((a, b) => a[0] - b[0])) {
    if (starts.at(-1)?.month !== month) starts.push({ col, month });
  }
  const monthLabels = starts
    .filter((m, i) => (starts[i + 1]?.col ?? weeks + 3) - m.col >= 3)
    .map((m) => html`<text class="month" x="${left + m.col * (cell + gap)}" y="${top - 7}">${monthNames[m.month] ?? ''}</text>`);
  const width = Math.max(left + weeks * (cell + gap) + 8, 200);
  const height = top + 7 * (cell + gap) + 26;
  const dow = ['Mon', 'Wed', 'Fri'].map((name, i) => html`<text class="dow" x="0" y="${top + (1 + i * 2) * (cell + gap) + cell - 3}">${name}</text>`);
  const legendY = top + 7 * (cell + gap) + 8;
  const legendX = width - 5 * (cell + gap) - 70;
  const legendCells = [0, 1, 2, 3, 4].map((l) => html`<rect class="h${l}" x="${legendX + 34 + l * (cell + gap)}" y="${legendY}" width="${cell}" height="${cell}" rx="2"/>`);
  const body = html`${monthLabels}${dow}<g class="cells">${cells}</g><text x="${legendX}" y="${legendY + 10}">Less</text>${legendCells}<text x="${legendX + 34 + 5 * (cell + gap) + 2}" y="${legendY + 10}">More</text>`;
  const svg = raw(
    frame('heatmap', `${o.title}: ${sorted.length} days, intensity by ${o.metric}`, body, width, height).value.replace(
      '<svg ',
      `<svg style="max-width:${width}px" `,
    ),
  );
  return figure('heatmap', o.title, svg, html`<div class="legend">Intensity by ${o.metric}; ${sorted.length} days, busiest ${fmt(max)}.</div>`);
}
