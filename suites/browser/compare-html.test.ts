/**
 * compare.html in a real browser: Debian's headless Chromium opens the comparison of a run with the
 * same run made 20% slower in TTFT, and checks the overlaid CDFs (two series each), the timeslice
 * charts and the failed gate render, with no console error, page error or network request.
 * The screenshot goes to reports/screenshots/compare.png. Skipped without Chromium.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, withReportPage } from '../../test-support/browser-check.ts';
import { renderCompareReport } from '../../src/compare/compare-html.ts';
import { buildComparison } from '../../src/compare/compare-report.ts';
import { parseGate } from '../../src/compare/gates.ts';
import { evaluateGates } from '../../src/compare/gate-outcome.ts';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';

describe.runIf(chromiumAvailable())('compare.html in Chromium', () => {
  it('shows overlaid base/new TTFT and ITL CDFs, three timeslice charts and the failed gate, with no page error or request', async () => {
    const base = sampleLoadResult({ seed: 3, stall: false, errors: false });
    const next = withSlowerTtft(base, 1.2);
    const { report, notes } = buildComparison({ source: 'base', load: base, conformance: null }, { source: 'new', load: next, conformance: null });
    report.gates = evaluateGates([parseGate('ttft.p50>+10%', new Set(report.load?.rows.map((r) => r.key)))], report.load?.rows ?? null, null);
    const file = join(mkdtempSync(join(tmpdir(), 'iari-compare-html-')), 'compare.html');
    writeFileSync(file, renderCompareReport(report, base, next, notes));
    const seen = await withReportPage(file, async (s) => {
      await s.screenshot(resolve('reports/screenshots/compare.png'));
      const charts = await s.page.$$eval('figure', (fs) => fs.map((f) => ({ title: f.querySelector('figcaption')?.textContent ?? f.getAttribute('aria-label') ?? '', series: f.querySelectorAll('g.series').length })));
      const status = await s.page.textContent('.status');
      const bad = await s.page.$$eval('.badge.tone-bad', (b) => b.length);
      return { charts, status, bad, problems: s.problems };
    });
    expect(seen.problems).toEqual({ consoleErrors: [], pageErrors: [], networkRequests: [] });
    expect(seen.status).toMatch(/1 gate\(s\) failed: ttft\.p50 changed \+\d+\.\d%/);
    expect(seen.charts.filter((c) => c.series === 2)).toHaveLength(5);
    expect(seen.bad).toBeGreaterThan(0);
  }, 60_000);
});
