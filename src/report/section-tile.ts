/**
 * Renders a load result section's tile (src/sections/section-contract.ts, SectionTile): the data a
 * section gives becomes its card in the load report.html (stats, caption, table, charts), its
 * status lines and its rows of the run's configuration.
 */
import type { SectionTile, TileCell, TileChart, TileNote } from '../sections/section-contract.ts';
import { badge, html, section, simpleTable, statGrid, type Html } from './html-shell.ts';
import { barChart } from './svg-bars.ts';
import { lineChart } from './svg-charts.ts';

const msLabel = (value: number): string => `${Number(value.toPrecision(3))} ms`;
const percentLabel = (value: number): string => `${Number(value.toPrecision(3))}%`;

function cell(c: TileCell): Html | string {
  if (typeof c === 'string') return c;
  if ('code' in c) return html`<code>${c.code}</code> <span class="muted">${c.note}</span>`;
  if ('badge' in c) return badge(c.badge, c.tone);
  return html`<strong>${c.strong}</strong>`;
}

function chart(c: TileChart): Html {
  if (c.kind === 'bars') {
    return barChart({
      title: c.title,
      series: [...c.series],
      groups: c.groups.map((g) => ({ label: g.label, values: [...g.values] })),
      xLabel: c.xLabel,
      ...(c.format === 'ms' ? { format: msLabel } : c.format === 'percent' ? { format: percentLabel } : {}),
    });
  }
  return lineChart({
    title: c.title,
    series: c.series.map((s) => ({ name: s.name, ...(s.tone === undefined ? {} : { tone: s.tone }), points: [...s.points] })),
    xLabel: c.xLabel,
    ...(c.xDomain === undefined ? {} : { xDomain: c.xDomain }),
    ...(c.breakOver === undefined ? {} : { breakOver: c.breakOver }),
    ...(c.xIntegers ? { xFormat: (v: number) => (Number.isInteger(v) ? String(v) : '') } : {}),
    yLabel: c.yLabel,
    ...(c.format === 'ms' ? { yFormat: msLabel } : {}),
    zeroBased: true,
  });
}

/** The tile's card ('' when it has nothing for a card: notes and configuration rows only). */
export function tileCard(t: SectionTile): Html | string {
  if (t.stats === undefined && t.caption === undefined && t.table === undefined && t.charts === undefined) return '';
  const table = t.table === undefined ? '' : simpleTable(t.table.head, t.table.rows.map((r) => r.map(cell)), t.table.numeric);
  const charts = t.charts?.map(chart) ?? [];
  const after = t.table?.after;
  if (after !== undefined) {
    // The charts lead; the table is the verdicts on them, under its own heading.
    return section(
      t.title,
      html`${t.stats === undefined ? '' : statGrid(t.stats)}${t.caption === undefined ? '' : html`<p class="muted">${t.caption}</p>`}${charts.length === 0 ? '' : html`<div class="charts">${charts}</div>`}<h3>${after.title}</h3>${table}`,
      t.id,
    );
  }
  // One chart sits beside the table; two or more fill the grid below a full-width table.
  const beside = charts.length <= 1;
  const grid = beside ? html`${table}${charts}` : html`${charts}`;
  return section(
    t.title,
    html`${t.stats === undefined ? '' : statGrid(t.stats)}${t.caption === undefined ? '' : html`<p class="muted">${t.caption}</p>`}${beside ? '' : table}${table === '' && charts.length === 0 ? '' : html`<div class="charts" style="margin-top:14px">${grid}</div>`}`,
    t.id,
  );
}

/** The tile's status lines for the top of the report. */
export function tileNotes(t: SectionTile): Html[] {
  return (t.notes ?? []).map((n: TileNote) => html`<p class="status status-${n.tone}">${n.text}</p>`);
}
