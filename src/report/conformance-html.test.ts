import { describe, expect, it } from 'vitest';
import { renderConformanceReport, usageTip } from './conformance-html.ts';
import { sampleConformanceReport } from '../../test-support/sample-reports.ts';

describe('conformance-html', () => {
  it('renders one table row per requirement with its area, grade and verdict as filter values', () => {
    const report = sampleConformanceReport({ failRate: 0.1 });
    const page = renderConformanceReport(report);
    expect(page.match(/<tr class="data-row/g)).toHaveLength(report.results.length);
    const fail = report.results.find((r) => r.verdict === 'fail');
    expect(page).toContain(`data-f-area="${fail?.area}" data-f-grade="${fail?.grade}" data-f-verdict="fail"`);
    for (const filter of ['area', 'grade', 'verdict']) expect(page).toContain(`data-filter="${filter}"`);
  });

  it('shows the summary counts and FAILED when a requirement failed, PASSED otherwise', () => {
    const failing = sampleConformanceReport({ failRate: 0.2 });
    expect(renderConformanceReport(failing)).toContain(`FAILED: ${failing.summary.fail} requirement`);
    const passing = sampleConformanceReport({ failRate: 0 });
    expect(passing.summary.fail).toBe(0);
    expect(renderConformanceReport(passing)).toContain('PASSED: no requirement failed');
  });

  it('AUTH-001: a run without a token is NOT PASSED saying why, and under --no-token PASSED still saying auth was not tested', () => {
    const passing = sampleConformanceReport({ failRate: 0 });
    const implicit = renderConformanceReport({ ...passing, run: { ...passing.run, noToken: 'implicit' } });
    expect(implicit).toMatch(/NOT PASSED: no requirement failed; no token: AUTH, ME, USAGE, RCPT[^<]*pass --no-token to accept this/);
    expect(implicit).not.toContain('PASSED: no requirement failed<');
    expect(renderConformanceReport({ ...passing, run: { ...passing.run, noToken: 'accepted' } })).toMatch(/>PASSED: no requirement failed[^<]*; no token: auth not tested \(--no-token\)/);
  });

  it('details every failure with expected and received, byte offset, x-request-id and the curl line', () => {
    const report = sampleConformanceReport({ failRate: 0.3 });
    const page = renderConformanceReport(report);
    const failing = report.results.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict');
    expect(page.match(/<article class="fail-item"/g)).toHaveLength(failing.length);
    const stream = failing.find((r) => r.area === 'CHAT-STREAM');
    if (stream !== undefined && (stream.verdict === 'fail' || stream.verdict === 'non-strict')) {
      expect(page).toContain(`<dt>byte offset</dt><dd>${stream.failures[0]?.byteOffset}</dd>`);
    }
    const f = failing[0];
    if (f?.verdict !== 'fail' && f?.verdict !== 'non-strict') throw new Error('no failure');
    expect(page).toContain(`<dd>${f.failures[0]?.requestId}</dd>`);
    expect(page).toContain('<pre class="curl">curl -sS -N');
    expect(page).toContain('Authorization: Bearer $IARI_TOKEN');
  });

  it('escapes server-controlled text in failures', () => {
    const report = sampleConformanceReport({ failRate: 1 });
    const r = report.results.find((x) => x.verdict === 'fail');
    if (r?.verdict !== 'fail') throw new Error('no failure');
    r.failures[0] = { message: '<img src=x onerror=alert(1)>', received: '</pre><script>alert(2)</script>' };
    const page = renderConformanceReport(report);
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<script>alert(2)');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('draws the usage heatmap with one cell per day and the numbers in each tooltip', () => {
    const report = sampleConformanceReport({ usageDays: 30 });
    const page = renderConformanceReport(report);
    expect(page.match(/class="heat-cell /g)).toHaveLength(30);
    if ('unavailable' in report.usage) throw new Error('expected days');
    const day = report.usage.days[12];
    if (day === undefined) throw new Error('no day');
    expect(page).toContain(`data-tip="${usageTip(day)}"`);
    expect(usageTip(day)).toContain(`${(day.requests ?? Number.NaN).toLocaleString('en-US')} requests`);
  });

  it('says why the heatmap is missing when usage was unavailable', () => {
    const page = renderConformanceReport(sampleConformanceReport({ usageUnavailable: 'GET /v1/me/usage?days=90 answered 404' }));
    expect(page).toContain('Usage heatmap unavailable: GET /v1/me/usage?days=90 answered 404');
    expect(page).not.toContain('class="heat-cell');
  });

  it('lists unexercised requirements under coverage', () => {
    const report = sampleConformanceReport();
    const page = renderConformanceReport(report);
    expect(page).toContain(`<strong>${report.coverage.exercised}</strong> of <strong>${report.coverage.registry}</strong>`);
    for (const id of report.coverage.unexercised) expect(page).toContain(id);
  });
});
