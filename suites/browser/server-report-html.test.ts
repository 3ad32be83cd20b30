/**
 * report.html's server section (issue 28) in a real browser: a real run against the mock with
 * --server-metrics, its report opened in Debian's headless Chromium. The server's series must be
 * drawn beside the client's TTFT p95 and received tokens/s on one time axis: every chart of the
 * section maps a second to the same pixel. The screenshot goes to reports/screenshots/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import type { LoadResult } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { loadHtml } from '../../src/report/load-html.ts';
import { createRedactor } from '../../src/report/redact.ts';
import { createRunDir } from '../../src/report/run-dir.ts';
import { chromiumAvailable, withReportPage } from '../../test-support/browser-check.ts';
import { loadConfig, startLoadMock } from '../load/load-fixtures.ts';

const available = chromiumAvailable();
const shots = resolve('reports/screenshots');

interface ChartAxis {
  title: string;
  series: string[];
  /** Each hover mark: the second its tip names and its x pixel. */
  marks: { series: string; t: number; cx: number }[];
  ticks: { label: string; x: number }[];
  width: number;
}

describe.runIf(available)('report.html server section in Chromium', () => {
  let mock: MockServer | undefined;
  let result: LoadResult;
  const dir = mkdtempSync(join(tmpdir(), 'iari-browser-server-'));
  const file = join(dir, 'load', 'report.html');

  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 40, itlMs: 8, completionTokens: [20, 60] });
    ({ result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 6, engine: 'undici' }, { durationS: 4, preWindowMs: 10_000, serverMetrics: { url: null, headers: [], intervalMs: 250 } })));
    createRunDir({ report: join(dir, 'load') }).write('report.html', loadHtml(result, createRedactor([mock.tokens.default])));
  }, 60_000);

  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws running/waiting, KV-cache usage and server-counted tokens/s on the same time axis as the client TTFT p95 and received tokens/s, with the findings table, and no page error', async () => {
    expect(result.server?.status).toBe('ok');
    expect(result.server!.perSecond.length).toBeGreaterThanOrEqual(4);
    await withReportPage(file, async (s) => {
      const charts: ChartAxis[] = await s.page.$$eval('#server figure.chart', (figs) =>
        figs.map((f) => {
          const svg = f.querySelector('svg');
          const marks = [...f.querySelectorAll('g.series circle.hover')].map((c) => {
            const m = /time \(s\): (-?[\d.]+)/.exec(c.getAttribute('data-tip') ?? '');
            return { series: c.closest('g.series')?.getAttribute('data-series') ?? '', t: m === null ? Number.NaN : Number(m[1]), cx: Number(c.getAttribute('cx')) };
          });
          const ticks = [...f.querySelectorAll('g.axis text')].filter((t) => t.getAttribute('text-anchor') === 'middle' && !t.classList.contains('axis-label')).map((t) => ({ label: t.textContent ?? '', x: Number(t.getAttribute('x')) }));
          return {
            title: f.querySelector('figcaption')?.textContent ?? f.getAttribute('aria-label') ?? svg?.getAttribute('aria-label') ?? '',
            series: [...f.querySelectorAll('g.series')].map((g) => g.getAttribute('data-series') ?? ''),
            marks,
            ticks,
            width: svg?.getBoundingClientRect().width ?? 0,
          };
        }),
      );
      expect(charts.map((c) => c.series)).toEqual([['client TTFT p95'], ['running', 'waiting'], ['KV-cache usage'], ['server counted', 'client received (answers ending that second)']]);
      for (const c of charts) {
        expect(c.width, c.title).toBeGreaterThan(200);
        expect(c.marks.length, c.title).toBeGreaterThanOrEqual(3);
        expect(c.marks.every((m) => Number.isFinite(m.t) && Number.isFinite(m.cx)), c.title).toBe(true);
      }
      // One time axis: the x scale fitted on the client's TTFT chart places every mark of every chart
      // (server and client series alike) at its second's pixel, and the tick labels sit at the same x.
      const ttft = charts[0]!.marks;
      const a = ttft[0]!;
      const b = ttft.find((m) => m.t !== a.t)!;
      const pxPerS = (b.cx - a.cx) / (b.t - a.t);
      expect(pxPerS).toBeGreaterThan(0);
      for (const c of charts) {
        for (const m of c.marks) expect(Math.abs(m.cx - (a.cx + (m.t - a.t) * pxPerS)), `${c.title}: mark at ${m.t} s`).toBeLessThan(0.6);
        expect(c.ticks, c.title).toEqual(charts[0]!.ticks);
      }
      expect(charts[0]!.ticks.length).toBeGreaterThanOrEqual(2);
      // The server's and the client's tokens/s cover the same seconds of the run on that axis.
      const seconds = (series: string): Set<number> => new Set(charts[3]!.marks.filter((m) => m.series === series).map((m) => m.t));
      const client = seconds('client received (answers ending that second)');
      expect([...seconds('server counted')].filter((t) => client.has(t)).length).toBeGreaterThanOrEqual(3);
      expect(await s.page.locator('#server table tbody tr').count()).toBe(result.server!.reconciliation.length);
      expect(await s.page.textContent('#server')).toMatch(/server counted [\d,]+ generated tokens; the answers' usage says [\d,]+/);
      mkdirSync(shots, { recursive: true });
      await s.page.locator('#server').scrollIntoViewIfNeeded();
      await s.page.locator('#server').screenshot({ path: join(shots, 'load-report-server.png'), timeout: 20_000 });
      expect(s.problems).toEqual({ consoleErrors: [], pageErrors: [], networkRequests: [] });
    });
  }, 60_000);
});
