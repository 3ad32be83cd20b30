/**
 * A calendar heatmap like GitHub's contribution graph, server-side SVG: one column per week
 * (Sunday on top), one cell per day, intensity by value, a tooltip with the day's numbers.
 */
import { html, raw, type Html } from './html-shell.ts';
import { figure, fmt, frame, noData } from './svg-parts.ts';

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
