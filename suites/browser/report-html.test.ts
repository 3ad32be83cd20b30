/**
 * The HTML reports in a real browser: Debian's headless Chromium opens a conformance and a load
 * report.html from disk and checks that the requirement table, its filters, the usage heatmap
 * and the charts render and respond, with no console error, page error or network request.
 * Screenshots go to reports/screenshots/. Without Chromium the suite is skipped, unless
 * IARI_REQUIRE_BROWSER=1 (CI), where that is a failure.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, withReportPage, type ReportSession } from '../../test-support/browser-check.ts';
import { writeConformanceFiles } from '../../src/report/conformance-files.ts';
import { loadHtml } from '../../src/report/load-html.ts';
import { createRedactor } from '../../src/report/redact.ts';
import { createRunDir } from '../../src/report/run-dir.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { sampleConformanceReport } from '../../test-support/sample-reports.ts';

const available = chromiumAvailable();
const required = process.env['IARI_REQUIRE_BROWSER'] === '1';
const shots = resolve('reports/screenshots');

if (!available && !required) {
  process.stderr.write('suites/browser: Chromium not found (apt-get install -y chromium); HTML report browser tests skipped. Set IARI_REQUIRE_BROWSER=1 to make this a failure.\n');
}

describe.runIf(!available && required)('HTML reports in Chromium (required)', () => {
  it('fails because IARI_REQUIRE_BROWSER=1 and Chromium is not installed', () => {
    expect.fail('IARI_REQUIRE_BROWSER=1 but no Chromium at /usr/bin/chromium (or $IARI_CHROMIUM): install Debian\'s package with apt-get install -y chromium');
  });
});

async function visibleRows(page: Page): Promise<string[]> {
  return page.$$eval('[data-table="requirement-table"] tbody tr.data-row', (rows) =>
    rows.filter((r) => !(r as HTMLElement).hidden).map((r) => r.querySelector('td')?.textContent?.trim() ?? ''),
  );
}

async function select(page: Page, filter: string, value: string): Promise<void> {
  await page.selectOption(`[data-table="requirement-table"] select[data-filter="${filter}"]`, value);
}

function noProblems(s: ReportSession): void {
  expect(s.problems.consoleErrors).toEqual([]);
  expect(s.problems.pageErrors).toEqual([]);
  expect(s.problems.networkRequests).toEqual([]);
}

describe.runIf(available)('HTML reports in Chromium', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'iari-browser-'));
  const report = sampleConformanceReport({ seed: 9, failRate: 0.08 });
  const load = sampleLoadResult({ durationS: 20, sweep: true });
  let conformanceFile = '';
  let loadFile = '';
  // Issue 43 item 7: an --ab run's report shows side B beside side A.
  const abLoad = { ...sampleLoadResult({ seed: 3, durationS: 20 }), ab: { schema: 'iari.ab/1', baseUrlB: 'http://127.0.0.1:9/v1', blockS: 5, order: 'ABBA', pairs: [], b: sampleLoadResult({ seed: 4, durationS: 20, errors: false }) } };
  let abFile = '';

  beforeAll(async () => {
    browser = await launchChromium();
    const redactor = createRedactor(['sk-iari-browser-test-token']);
    conformanceFile = writeConformanceFiles(report, createRunDir({ report: join(dir, 'conformance') }), redactor).reportHtml;
    loadFile = join(dir, 'load', 'report.html');
    createRunDir({ report: join(dir, 'load') }).write('report.html', loadHtml(load, redactor));
    abFile = join(dir, 'ab', 'report.html');
    createRunDir({ report: join(dir, 'ab') }).write('report.html', loadHtml(abLoad, redactor));
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('renders one requirement row per result and counts them', async () => {
    await withReportPage(
      conformanceFile,
      async (s) => {
        expect(await s.page.locator('[data-table="requirement-table"] tbody tr.data-row').count()).toBe(report.results.length);
        expect(await visibleRows(s.page)).toHaveLength(report.results.length);
        expect(await s.page.textContent('[data-table="requirement-table"] [data-count]')).toBe(`${report.results.length} of ${report.results.length} rows`);
        await s.screenshot(join(shots, 'conformance-report.png'), false);
        noProblems(s);
      },
      { browser },
    );
  });

  it('renders the capability table: one row per capability, its status and what became of its requirements', async () => {
    await withReportPage(
      conformanceFile,
      async (s) => {
        const rows = await s.page.$$eval('#capabilities tbody tr', (trs) => trs.map((t) => Array.from(t.querySelectorAll('td')).map((td) => td.textContent?.trim() ?? '')));
        expect(rows).toHaveLength(report.capabilities?.length ?? -1);
        const json = rows.find((r) => r[0]?.startsWith('json-object'));
        expect(json?.[0]).toContain('expected');
        expect(json?.[2]).toBe('ignored');
        expect(json?.[3]).toBe('FAIL (--expect): CHAT-034');
        expect(rows.find((r) => r[0] === 'json-schema')?.[3]).toMatch(/^skipped: CHAT-035/);
        expect(rows.find((r) => r[0] === 'stop')?.[2]).toBe('not-probed');
        await s.page.locator('#capabilities').screenshot({ path: join(shots, 'conformance-capabilities.png') });
        noProblems(s);
      },
      { browser },
    );
  });

  it('filters the table by verdict, area, grade and search text, and resets', async () => {
    await withReportPage(
      conformanceFile,
      async (s) => {
        const failIds = report.results.filter((r) => r.verdict === 'fail').map((r) => r.id);
        expect(failIds.length).toBeGreaterThan(0);
        await select(s.page, 'verdict', 'fail');
        expect(await visibleRows(s.page)).toEqual(failIds);
        expect(await s.page.textContent('[data-table="requirement-table"] [data-count]')).toBe(`${failIds.length} of ${report.results.length} rows`);
        await s.page.evaluate(() => document.getElementById('requirements')?.scrollIntoView());
        await s.screenshot(join(shots, 'conformance-filter-fail.png'), false);

        await select(s.page, 'verdict', '');
        await select(s.page, 'area', 'CHAT-STREAM');
        expect(await visibleRows(s.page)).toEqual(report.results.filter((r) => r.area === 'CHAT-STREAM').map((r) => r.id));

        await select(s.page, 'grade', 'SHOULD');
        expect(await visibleRows(s.page)).toEqual(report.results.filter((r) => r.area === 'CHAT-STREAM' && r.grade === 'SHOULD').map((r) => r.id));

        await s.page.click('[data-table="requirement-table"] [data-reset]');
        expect(await visibleRows(s.page)).toHaveLength(report.results.length);

        const target = report.results[Math.floor(report.results.length / 2)];
        await s.page.fill('[data-table="requirement-table"] input[data-search]', target?.title ?? '');
        expect(await visibleRows(s.page)).toContain(target?.id);
        await s.page.fill('[data-table="requirement-table"] input[data-search]', 'no-such-text-anywhere-42');
        expect(await visibleRows(s.page)).toEqual([]);
        expect(await s.page.isVisible('[data-table="requirement-table"] [data-empty]')).toBe(true);
        noProblems(s);
      },
      { browser },
    );
  });

  it('sets the area filter from the by-area table', async () => {
    await withReportPage(
      conformanceFile,
      async (s) => {
        await s.page.click('button[data-set-filter="area"][data-value="AUTH"]');
        expect(await s.page.inputValue('[data-table="requirement-table"] select[data-filter="area"]')).toBe('AUTH');
        expect(await visibleRows(s.page)).toEqual(report.results.filter((r) => r.area === 'AUTH').map((r) => r.id));
        noProblems(s);
      },
      { browser },
    );
  });

  it('renders the usage heatmap with one cell per day and a tooltip with the numbers on hover', async () => {
    if ('unavailable' in report.usage) throw new Error('sample has no usage');
    const days = report.usage.days;
    await withReportPage(
      conformanceFile,
      async (s) => {
        const cells = s.page.locator('svg.chart-heatmap .heat-cell');
        expect(await cells.count()).toBe(days.length);
        const box = await cells.first().boundingBox();
        expect(box?.width ?? 0).toBeGreaterThan(5);
        const day = days.findLast((d) => (d.requests ?? 0) > 0) ?? days[0];
        if (day === undefined) throw new Error('no day');
        const cell = s.page.locator(`svg.chart-heatmap .heat-cell[data-date="${day.date}"]`);
        await cell.scrollIntoViewIfNeeded();
        await cell.hover();
        // The tip follows mousemove: give the page its frame before reading it.
        await s.page.waitForSelector('#tip', { state: 'visible', timeout: 3000 }).catch(() => undefined);
        expect(await s.page.isVisible('#tip')).toBe(true);
        const tip = (await s.page.textContent('#tip')) ?? '';
        expect(tip).toContain(day.date);
        expect(tip).toContain(`${(day.requests ?? Number.NaN).toLocaleString('en-US')} requests`);
        await s.page.evaluate(() => document.getElementById('usage')?.scrollIntoView());
        await s.page.locator(`svg.chart-heatmap .heat-cell[data-date="${day.date}"]`).hover();
        await s.screenshot(join(shots, 'conformance-heatmap.png'), false);
        noProblems(s);
      },
      { browser },
    );
  });

  it('renders the conformance report in the dark scheme too', async () => {
    await withReportPage(
      conformanceFile,
      async (s) => {
        const bg = await s.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(bg).toBe('rgb(15, 18, 23)');
        await s.screenshot(join(shots, 'conformance-report-dark.png'), false);
        noProblems(s);
      },
      { browser, colorScheme: 'dark' },
    );
  });

  it('renders every load chart with visible marks and tooltips, and no errors', async () => {
    await withReportPage(
      loadFile,
      async (s) => {
        const charts = await s.page.$$eval('figure.chart', (figs) =>
          figs.map((f) => {
            const svg = f.querySelector('svg');
            const r = svg?.getBoundingClientRect();
            return { kind: f.getAttribute('data-chart'), width: r?.width ?? 0, height: r?.height ?? 0, marks: svg?.querySelectorAll('rect.bar, path.line, circle').length ?? 0 };
          }),
        );
        expect(charts.map((c) => c.kind).sort()).toEqual(['cdf', 'cdf', 'histogram', 'histogram', 'line', 'line', 'line', 'line', 'pareto', 'sweep', 'sweep']);
        for (const c of charts) {
          expect(c.width, `${c.kind} width`).toBeGreaterThan(200);
          expect(c.height, `${c.kind} height`).toBeGreaterThan(80);
          expect(c.marks, `${c.kind} marks`).toBeGreaterThan(0);
        }
        const bar = s.page.locator('figure[data-chart="histogram"] rect.bar').first();
        await bar.hover();
        expect(await s.page.textContent('#tip')).toMatch(/ms/);
        await s.page.evaluate(() => document.getElementById('sweep')?.scrollIntoView());
        await s.page.locator('figure[data-chart="sweep"] circle.step').last().hover();
        expect(await s.page.textContent('#tip')).toContain('breaks SLOs');
        await s.screenshot(join(shots, 'load-sweep.png'), false);
        // LOAD-PARETO: the frontier joins the runs no other beats on both axes; the SLO boundary is drawn at the best level.
        const pareto = await s.page.$$eval('figure[data-chart="pareto"] circle.step', (cs) => cs.map((c) => ({ frontier: c.getAttribute('data-frontier'), ok: c.getAttribute('data-ok') })));
        expect(pareto).toHaveLength(5);
        expect(pareto.filter((p) => p.frontier === 'true').length).toBeGreaterThanOrEqual(2);
        expect(await s.page.locator('figure[data-chart="pareto"] line.slo-boundary').count()).toBe(1);
        await s.page.locator('figure[data-chart="pareto"]').scrollIntoViewIfNeeded();
        await s.page.locator('figure[data-chart="pareto"] circle.frontier').first().hover();
        expect(await s.page.textContent('#tip')).toContain('on the Pareto frontier');
        await s.screenshot(join(shots, 'load-pareto.png'), false);
        await s.page.evaluate(() => window.scrollTo(0, 0));
        await s.screenshot(join(shots, 'load-report.png'), true);
        noProblems(s);
      },
      { browser },
    );
  });
  it('LOAD-COMPARE: an --ab run\'s report shows side B beside side A, both servers named, the figures in one table', async () => {
    await withReportPage(
      abFile,
      async (s) => {
        const section = s.page.locator('#ab');
        expect(await section.locator('h2').textContent()).toBe('A/B: side B beside side A');
        expect(await section.locator('dl').textContent()).toContain('http://127.0.0.1:9/v1');
        const head = await section.locator('thead th').allTextContents();
        expect(head).toEqual(['figure', 'side A', 'side B']);
        const rows = await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
        const ttft = rows.find((r) => r[0] === 'TTFT p95');
        expect(ttft?.[1]).toMatch(/ms|s$/);
        expect(ttft?.[2]).toMatch(/ms|s$/);
        expect(ttft?.[1]).not.toBe(ttft?.[2]);
        const box = await section.boundingBox();
        expect(box?.height ?? 0).toBeGreaterThan(150);
        expect(await s.page.locator('nav.toc a[href="#ab"]').count()).toBe(1);
        await section.scrollIntoViewIfNeeded();
        await section.screenshot({ path: join(shots, 'load-ab.png') });
        noProblems(s);
      },
      { browser },
    );
  });
});

