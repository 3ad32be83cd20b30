import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequirementResult } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { loadRequirements } from '../checks/registry/requirements-registry.ts';
import {
  compareRequirementIds,
  conformanceAnnotations,
  conformanceJson,
  conformanceJunit,
  conformanceStepSummary,
  resultsNdjson,
  writeConformanceFiles,
  writeGithubOutputs,
} from './conformance-files.ts';
import { createRedactor } from './redact.ts';
import { createRunDir } from './run-dir.ts';
import { sampleConformanceReport, tinyConformanceReport } from '../../test-support/sample-reports.ts';

const canary = 'sk-iari-canary-0123456789abcdef';
const redactor = createRedactor([canary]);

/** A sample whose failures leak the canary in every field a server or check could echo. */
function leakySample(): ConformanceReport {
  const report = sampleConformanceReport({ seed: 3, failRate: 0.1 });
  const failing = report.results.find((r) => r.verdict === 'fail');
  if (failing === undefined || failing.verdict !== 'fail') throw new Error('sample has no failure');
  failing.failures.push({
    message: `server echoed Bearer ${canary}`,
    expected: { token: canary },
    received: `Authorization: Bearer ${canary}`,
    curl: `curl -H "Authorization: Bearer ${canary}" http://user:pw@127.0.0.1/v1/me`,
  });
  return report;
}

function shuffled(report: ConformanceReport): ConformanceReport {
  const results = [...report.results].reverse().map((r) => Object.fromEntries(Object.entries(r).reverse()) as unknown as RequirementResult);
  return { ...(report.capabilities === undefined ? {} : { capabilities: report.capabilities }), usage: report.usage, coverage: report.coverage, results, summary: report.summary, run: report.run, tool: report.tool };
}

describe('conformance-files', () => {
  it('orders requirement IDs by area, then numerically', () => {
    expect(['CHAT-010', 'AUTH-002', 'CHAT-002', 'CHAT-STREAM-001'].sort(compareRequirementIds)).toEqual(['AUTH-002', 'CHAT-002', 'CHAT-010', 'CHAT-STREAM-001']);
  });

  it('writes conformance.json with stable key and row order whatever order the report was built in', () => {
    const report = sampleConformanceReport({ seed: 11 });
    const a = conformanceJson(report, redactor);
    expect(conformanceJson(shuffled(report), redactor)).toBe(a);
    const parsed = JSON.parse(a) as ConformanceReport;
    expect(Object.keys(parsed)).toEqual(['tool', 'run', 'summary', 'passed', 'runFailures', 'results', 'coverage', 'usage', 'capabilities']);
    expect(parsed.capabilities?.find((c) => c.name === 'json-object')).toMatchObject({ status: 'ignored', expected: true, outcome: 'fail', requirementIds: ['CHAT-034'] });
    const ids = parsed.results.map((r) => r.id);
    expect(ids).toEqual([...ids].sort(compareRequirementIds));
    expect(ids).toHaveLength(loadRequirements().length);
    expect(Object.keys(parsed.results[0] ?? {}).slice(0, 5)).toEqual(['id', 'area', 'grade', 'title', 'verdict']);
  });

  it('writes one results.ndjson line per requirement that parses back to the result', () => {
    const report = sampleConformanceReport();
    const lines = resultsNdjson(report, redactor).trimEnd().split('\n');
    expect(lines).toHaveLength(report.results.length);
    const first = JSON.parse(lines[0] ?? '') as RequirementResult;
    expect(first.id).toBe(report.results[0]?.id);
    expect(first.verdict).toBe(report.results[0]?.verdict);
  });

  it('writes one JUnit testcase per requirement: fail as failure, skipped as skipped, the rest passed', () => {
    const report = sampleConformanceReport({ seed: 5, failRate: 0.1 });
    const xml = conformanceJunit(report, redactor);
    expect(xml.match(/<testcase /g)).toHaveLength(report.results.length);
    expect(xml.match(/<failure /g)?.length ?? 0).toBe(report.summary.fail);
    expect(xml.match(/<skipped /g)?.length ?? 0).toBe(report.summary.skipped);
    expect(xml).toContain(`<testsuites name="iari conformance" tests="${report.summary.total}" failures="${report.summary.fail}"`);
    const failing = report.results.find((r) => r.verdict === 'fail');
    expect(xml).toContain(`name="${failing?.id}: `);
  });

  it('never writes the secret, a real Authorization value or URL credentials into any file, and keeps $IARI_TOKEN', () => {
    const report = leakySample();
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-files-')) });
    const files = writeConformanceFiles(report, run, redactor);
    expect(readdirSync(run.dir).sort()).toEqual(['conformance.json', 'junit.xml', 'report.html', 'results.ndjson']);
    for (const path of Object.values(files)) {
      const text = readFileSync(path, 'utf8');
      expect(text, path).not.toContain(canary);
      expect(text, path).not.toContain('user:pw@');
    }
    expect(readFileSync(files.conformanceJson, 'utf8')).toContain('Bearer $IARI_TOKEN');
    expect(readFileSync(files.reportHtml, 'utf8')).toContain('Bearer $IARI_TOKEN');
  });

  it('replaces a bare token with [REDACTED] in conformance.json, results.ndjson and junit.xml', () => {
    const token = 'sk-report-files-secret-123456';
    const report = tinyConformanceReport(token);
    const tokenRedactor = createRedactor([token]);
    for (const text of [conformanceJson(report, tokenRedactor), resultsNdjson(report, tokenRedactor), conformanceJunit(report, tokenRedactor)]) {
      expect(text.includes(token)).toBe(false);
      expect(text).toContain('[REDACTED]');
    }
  });

  it('counts JUnit tests, failures and skips per verdict and passes a non-strict result with its finding as system-out', () => {
    const xml = conformanceJunit(tinyConformanceReport('sk-unused-0000000000'), redactor);
    expect(xml.match(/<testcase /g)?.length).toBe(4);
    expect(xml).toMatch(/<testsuites name="iari conformance" tests="4" failures="1" errors="0" skipped="1"/);
    expect(xml).toMatch(/name="CHAT-012: c"[\s\S]*?<system-out>refusal missing<\/system-out>/);
  });

  it('AUTH-001: a run without a token records why in junit.xml: an error (undecided) case unless --no-token accepted it (a skipped case)', () => {
    const base = tinyConformanceReport('sk-unused-0000000000');
    expect(conformanceJunit(base, redactor)).not.toContain('no token');
    const implicit = conformanceJunit({ ...base, run: { ...base.run, noToken: 'implicit' } }, redactor);
    expect(implicit).toMatch(/<testsuites name="iari conformance" tests="5" failures="1" errors="1" skipped="1"/);
    expect(implicit).toMatch(/<testcase name="no token: AUTH, ME, USAGE, RCPT[^"]*pass --no-token to accept this" classname="iari.run"[\s\S]*?<error /);
    const accepted = conformanceJunit({ ...base, run: { ...base.run, noToken: 'accepted' } }, redactor);
    expect(accepted).toMatch(/<testsuites name="iari conformance" tests="5" failures="1" errors="0" skipped="2"/);
    expect(accepted).toMatch(/<testcase name="no token: auth not tested \(--no-token\)/);
    // The GitHub step summary: never "passed" for an implicit run, and the reason under the heading either way.
    const passing = { ...base, summary: { ...base.summary, fail: 0 }, results: base.results.filter((r) => r.verdict !== 'fail') };
    expect(conformanceStepSummary({ ...passing, run: { ...passing.run, noToken: 'implicit' } }, redactor)).toMatch(/^## iari conformance: not passed\n\n\*\*no token: AUTH, ME, USAGE, RCPT/);
    expect(conformanceStepSummary({ ...passing, run: { ...passing.run, noToken: 'accepted' } }, redactor)).toMatch(/^## iari conformance: passed\n\n\*\*no token: auth not tested \(--no-token\)/);
  });

  it('annotates each failed requirement as an error and each non-strict one as a warning, pointing at its registry line', () => {
    const report = sampleConformanceReport({ seed: 5, failRate: 0.1 });
    const annotations = conformanceAnnotations(report, redactor);
    expect(annotations.filter((a) => a.level === 'error')).toHaveLength(report.summary.fail);
    expect(annotations.filter((a) => a.level === 'warning')).toHaveLength(report.summary['non-strict']);
    const first = annotations[0];
    const registry = readFileSync('spec/requirements.yaml', 'utf8').split('\n');
    expect(first?.file).toBe('spec/requirements.yaml');
    expect(registry[(first?.line ?? 0) - 1]).toContain(first?.title?.split(' ')[0]);
  });

  it('writes the step summary and annotations only under GitHub Actions, without the secret', () => {
    const report = leakySample();
    const dir = mkdtempSync(join(tmpdir(), 'iari-gha-'));
    const summary = join(dir, 'summary.md');
    const out: string[] = [];
    expect(writeGithubOutputs(report, redactor, {}, (l) => out.push(l))).toBe(false);
    expect(out).toEqual([]);
    expect(writeGithubOutputs(report, redactor, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }, (l) => out.push(l))).toBe(true);
    const md = readFileSync(summary, 'utf8');
    expect(md).toBe(conformanceStepSummary(report, redactor));
    expect(md).toContain('requirement');
    // The capability table: which features beyond the seed the server offers, and what became of their requirements.
    expect(md).toContain('### Capabilities beyond the seed');
    expect(md).toMatch(/\| json-object \(expected\) \| .* \| ignored \| FAIL \(--expect\): CHAT-034 \|/);
    expect(out.some((l) => l.startsWith('::error file=spec/requirements.yaml,line='))).toBe(true);
    expect(md + out.join('')).not.toContain(canary);
  });
});
