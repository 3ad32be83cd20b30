// The Pareto view of a sweep or a capacity search (report.html): aggregate output tokens/s against
// what one user sees (per-request tokens/s, median), one point per run. The frontier joins the runs
// no other run beats on both; the SLO boundary is the capacity level, the highest that met every SLO.
import { html, type Html } from './html-shell.ts';
import { figure, fmt, frame, H, M, n, noData, W } from './svg-parts.ts';
import { axes, extent, linear, niceTicks } from './svg-charts.ts';

export interface ParetoPoint {
  /** Per-user tokens/s (median of the per-request output tokens/s). */
  x: number;
  /** Aggregate output tokens/s. */
  y: number;
  ok: boolean;
  level: number;
  tip: string;
}

/** The points no other point beats on both x and y (higher is better on both), by rising x. */
export function paretoFrontier<P extends { x: number; y: number }>(points: readonly P[]): P[] {
  const sorted = [...points].sort((a, b) => b.x - a.x || b.y - a.y);
  const out: P[] = [];
  let bestY = -Infinity;
  for (const p of sorted) {
    if (p.y > bestY) {
      out.push(p);
      bestY = p.y;
    }
  }
  return out.reverse();
}

export function paretoChart(o: { title: string; points: readonly ParetoPoint[]; boundary?: { x: number; label: string } }): Html {
  const pts = o.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (pts.length === 0) return noData('pareto', o.title, 'no run reported per-request tokens/s');
  const [xlo, xhi] = extent(pts.map((p) => p.x));
  const [, yhi0] = extent(pts.map((p) => p.y));
  const yTicks = niceTicks(0, yhi0, 5);
  const yhi = Math.max(yTicks.at(-1) ?? yhi0, yhi0);
  const pad = (xhi - xlo) * 0.06 || 1;
  const x = linear(xlo - pad, xhi + pad, M.left, W - M.right);
  const y = linear(0, yhi, H - M.bottom, M.top);
  const front = paretoFrontier(pts);
  const d = front.map((p, j) => `${j === 0 ? 'M' : 'L'}${n(x(p.x))},${n(y(p.y))}`).join('');
  const onFront = new Set(front);
  const dots = pts.map(
    (p) =>
      html`<circle class="step ${p.ok ? 'dot-ok' : 'dot-bad'}${onFront.has(p) ? ' frontier' : ''}" cx="${n(x(p.x))}" cy="${n(y(p.y))}" r="${onFront.has(p) ? 6 : 4}" data-ok="${String(p.ok)}" data-frontier="${String(onFront.has(p))}" data-tip="${p.tip}${onFront.has(p) ? '\non the Pareto frontier' : ''}"/>`,
  );
  const b = o.boundary;
  const boundary =
    b === undefined
      ? ''
      : html`<line class="marker slo-boundary" x1="${n(x(b.x))}" x2="${n(x(b.x))}" y1="${M.top}" y2="${H - M.bottom}"/><text class="marker-label" x="${n(x(b.x))}" y="${M.top + 10}" ${x(b.x) > (M.left + W - M.right) / 2 ? html`dx="-3" text-anchor="end"` : html`dx="3"`}>${b.label}</text>`;
  const body = html`${axes({
    x,
    y,
    xTicks: niceTicks(xlo, xhi, 6).filter((t) => t >= xlo - pad && t <= xhi + pad),
    yTicks,
    xFormat: fmt,
    yFormat: fmt,
    xLabel: 'per-user output tokens/s (median request)',
    yLabel: 'aggregate output tokens/s',
  })}<path class="line s0 frontier" d="${d}"/>${boundary}${dots}`;
  const legend = html`<div class="legend"><span><span class="sw" style="background:var(--good)"></span>meets SLOs</span><span><span class="sw" style="background:var(--bad)"></span>breaks SLOs</span><span>line: Pareto frontier</span><span>dashed: SLO boundary</span></div>`;
  return figure('pareto', o.title, frame('pareto', o.title, body), legend);
}
