/** A horizontal grouped bar chart (categories, not distributions): TTFT hit vs miss, ITL all vs answer. */
import { html, type Html } from './html-shell.ts';
import { niceTicks } from './svg-charts.ts';
import { figure, fmt, frame, n, noData, W } from './svg-parts.ts';

export interface BarGroup {
  label: string;
  /** One bar per series, in the order of `series`; null: no data for it. */
  values: readonly (number | null)[];
}

export interface BarChartOptions {
  title: string;
  series: readonly string[];
  groups: readonly BarGroup[];
  xLabel: string;
  format?: (value: number) => string;
}

const barH = 14;
const gap = 10;
const left = 150;
const right = 70;

export function barChart(o: BarChartOptions): Html {
  const values = o.groups.flatMap((g) => g.values).filter((v): v is number => v !== null && Number.isFinite(v));
  if (values.length === 0) return noData('bars', o.title, 'no samples');
  const format = o.format ?? fmt;
  const ticks = niceTicks(0, Math.max(...values, 0) || 1, 5).filter((t) => t >= 0);
  const hi = Math.max(ticks.at(-1) ?? 1, ...values) || 1;
  const x = (v: number) => left + (v / hi) * (W - left - right);
  const groupH = o.series.length * barH + gap;
  const top = 10;
  const height = top + o.groups.length * groupH + 40;
  const y0 = top + o.groups.length * groupH;
  const rows = o.groups.map((g, gi) => {
    const gy = top + gi * groupH;
    const bars = g.values.map((v, si) => {
      const by = gy + si * barH;
      const name = o.series[si] ?? '';
      if (v === null || !Number.isFinite(v)) return html`<text x="${left + 4}" y="${by + barH - 3}">${name}: no samples</text>`;
      return html`<rect class="bar-h" style="fill:var(--series${(si % 4) + 1})" x="${left}" y="${by}" width="${n(Math.max(1, x(v) - left))}" height="${barH - 2}" data-tip="${`${g.label}\n${name}: ${format(v)}`}"/><text class="bar-value" x="${n(x(v) + 4)}" y="${by + barH - 3}">${format(v)}</text>`;
    });
    return html`<text class="bar-group" x="${left - 6}" y="${gy + (o.series.length * barH) / 2 + 3}" text-anchor="end">${g.label}</text>${bars}`;
  });
  const axis = html`<g class="axis"><line x1="${left}" x2="${W - right}" y1="${y0}" y2="${y0}"/>${ticks.map(
    (t) => html`<line x1="${n(x(t))}" x2="${n(x(t))}" y1="${y0}" y2="${y0 + 4}"/><text x="${n(x(t))}" y="${y0 + 16}" text-anchor="middle">${format(t)}</text>`,
  )}<text class="axis-label" x="${(left + W - right) / 2}" y="${height - 6}" text-anchor="middle">${o.xLabel}</text></g>`;
  const legend = html`<div class="legend">${o.series.map((s, i) => html`<span><span class="sw" style="background:var(--series${(i % 4) + 1})"></span>${s}</span>`)}</div>`;
  return figure('bars', o.title, frame('bars', o.title, html`${axis}${rows}`, W, height), legend);
}
