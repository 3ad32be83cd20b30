import { describe, expect, it } from 'vitest';
import { binValues, calendarHeatmap, cdfChart, cdfFromValues, heatLevel, histogramChart, lineChart, niceTicks, sweepChart } from './svg-charts.ts';

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

describe('svg-charts', () => {
  it('picks nice ticks in steps of 1, 2 or 5 that cover the range', () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0.3, 2.7, 5)).toEqual([0.5, 1, 1.5, 2, 2.5]);
    expect(niceTicks(5, 5, 4).length).toBeGreaterThan(1);
  });

  it('bins values into equal-width bins that hold every sample', () => {
    const values = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 997);
    const bins = binValues(values, 10);
    expect(bins).toHaveLength(10);
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(1000);
    expect(bins[0]?.lo).toBe(Math.min(...values));
    expect(bins.at(-1)?.hi).toBeCloseTo(Math.max(...values));
  });

  it('computes an empirical CDF that ends at 1 and merges ties', () => {
    expect(cdfFromValues([3, 1, 2, 2])).toEqual([
      { value: 1, fraction: 0.25 },
      { value: 2, fraction: 0.75 },
      { value: 3, fraction: 1 },
    ]);
  });

  it('draws one bar per bin with a tooltip and percentile markers', () => {
    const svg = histogramChart({ title: 'TTFT', bins: binValues([1, 2, 3, 4, 5, 6], 3), xLabel: 'ms', percentiles: [{ value: 5, label: 'p99' }] }).value;
    expect(count(svg, /<rect class="bar"/g)).toBe(3);
    expect(svg).toContain('data-tip="1 – 2.67&#10;2 (33.3%)"'.replace('&#10;', '\n'));
    expect(svg).toContain('>p99</text>');
  });

  it('says so when a chart has no data instead of drawing an empty frame', () => {
    expect(histogramChart({ title: 'x', bins: [], xLabel: 'ms' }).value).toContain('no samples');
    expect(lineChart({ title: 'x', series: [], xLabel: 't', yLabel: 'y' }).value).toContain('no data points');
    expect(calendarHeatmap({ title: 'u', days: [], metric: 'tokens' }).value).toContain('no usage data');
  });

  it('draws a CDF step path and a line chart with one path per series and a legend', () => {
    expect(cdfChart({ title: 'c', points: cdfFromValues([1, 2, 3]), xLabel: 'ms' }).value).toMatch(/<path class="line s0" d="M/);
    const svg = lineChart({
      title: 'rps',
      series: [
        { name: 'ok', points: [{ x: 0, y: 1 }, { x: 1, y: 3 }] },
        { name: 'errors', points: [{ x: 0, y: 0 }, { x: 1, y: 1 }] },
      ],
      xLabel: 's',
      yLabel: 'req/s',
      thresholds: [{ value: 2, label: 'SLO' }],
    }).value;
    expect(count(svg, /<path class="line/g)).toBe(2);
    expect(svg).toContain('class="legend"');
    expect(svg).toContain('>SLO</text>');
  });

  it('maps heat levels: 0 only for zero, 4 at the maximum, monotone between', () => {
    expect(heatLevel(0, 100)).toBe(0);
    expect(heatLevel(1, 100)).toBe(1);
    expect(heatLevel(50, 100)).toBe(2);
    expect(heatLevel(51, 100)).toBe(3);
    expect(heatLevel(100, 100)).toBe(4);
    expect(heatLevel(5, 0)).toBe(0);
  });

  it('draws one heatmap cell per day in week columns with weekday rows and a tooltip', () => {
    // 2026-11-01 is a Sunday: row 0 of the first column; 2026-11-08 is row 0 of the second.
    const days = Array.from({ length: 30 }, (_, i) => {
      const date = new Date(Date.UTC(2026, 10, 1 + i)).toISOString().slice(0, 10);
      return { date, value: i, tip: `${date}\n${i} tokens` };
    });
    const svg = calendarHeatmap({ title: 'Usage', days, metric: 'tokens' }).value;
    expect(count(svg, /class="heat-cell/g)).toBe(30);
    const cell = (date: string) => new RegExp(`x="(\\d+)" y="(\\d+)"[^>]*data-date="${date}"`).exec(svg);
    const first = cell('2026-11-01');
    const week2 = cell('2026-11-08');
    const monday = cell('2026-11-02');
    expect(first?.[2]).toBe(week2?.[2]);
    expect(Number(week2?.[1])).toBeGreaterThan(Number(first?.[1]));
    expect(monday?.[1]).toBe(first?.[1]);
    expect(Number(monday?.[2])).toBeGreaterThan(Number(first?.[2]));
    expect(svg).toContain('data-tip="2026-11-05\n4 tokens"');
    expect(svg).toMatch(/data-date="2026-11-01" data-level="0"/);
    expect(svg).toMatch(/data-date="2026-11-30" data-level="4"/);
    expect(svg).toContain('>Nov</text>');
  });

  it('marks sweep steps that meet or break the SLOs and draws the SLO and best-rate lines', () => {
    const svg = sweepChart({
      title: 'sweep',
      points: [
        { x: 10, y: 100, ok: true },
        { x: 20, y: 300, ok: true },
        { x: 40, y: 900, ok: false },
      ],
      xLabel: 'rate',
      yLabel: 'TTFT p95',
      slo: { value: 800, label: 'SLO 800 ms' },
      best: { value: 20, label: 'best 20/s' },
    }).value;
    expect(count(svg, /class="step dot-ok"/g)).toBe(2);
    expect(count(svg, /class="step dot-bad"/g)).toBe(1);
    expect(svg).toContain('SLO 800 ms');
    expect(svg).toContain('best 20/s');
  });
});
