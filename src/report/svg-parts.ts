/** Shared pieces of the server-side SVG charts: sizes, number formats, the frame and the figure. */
import { html, type Html } from './html-shell.ts';

export const W = 640;
export const H = 260;
export const M = { top: 16, right: 18, bottom: 42, left: 66 };

export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const a = Math.abs(value);
  if (a >= 1e9) return `${trim(value / 1e9)}G`;
  if (a >= 1e6) return `${trim(value / 1e6)}M`;
  if (a >= 1e4) return `${trim(value / 1e3)}k`;
  if (a >= 100 || Number.isInteger(value)) return String(Math.round(value * 100) / 100);
  return trim(value);
}

export function trim(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** A number with at most 2 decimals, for SVG coordinates. */
export function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export function frame(kind: string, label: string, body: Html, width = W, height = H): Html {
  return html`<svg class="chart chart-${kind}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${label}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`;
}

export function figure(kind: string, title: string, svg: Html, legend?: Html): Html {
  return html`<figure class="chart" data-chart="${kind}"><figcaption>${title}</figcaption>${svg}${legend ?? ''}</figure>`;
}

export function noData(kind: string, title: string, message: string): Html {
  return figure(
    kind,
    title,
    frame(kind, `${title}: no data`, html`<text class="no-data" x="${W / 2}" y="${H / 2}" text-anchor="middle">${message}</text>`),
  );
}
