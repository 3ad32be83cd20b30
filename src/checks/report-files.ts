import type { ConformanceReport, RequirementResult } from './verdicts.ts';
import type { RunDir } from '../report/run-dir.ts';
import type { Redactor } from '../report/redact.ts';
import { sanitize } from '../report/redact.ts';
import { junitXml, type JUnitCase } from '../report/junit-xml.ts';
import { emitAnnotations, isGitHubActions, markdownTable, writeStepSummary, type Annotation } from '../report/github-actions.ts';

/** Serialises with the report's own key order (built deterministically), redacted, two-space indented. */
export function conformanceJson(report: ConformanceReport, redactor: Redactor): string {
  return sanitize(`${JSON.stringify(redactor.value(report), null, 2)}\n`, redactor);
}

/** One JSON line per requirement, in the report's (ID) order. */
export function resultsNdjson(report: ConformanceReport, redactor: Redactor): string {
  return report.results.map((r) => sanitize(JSON.stringify(redactor.value(r)), redactor)).join('\n') + '\n';
}

function failureText(r: RequirementResult): string {
  if (r.verdict !== 'fail' && r.verdict !== 'non-strict') return '';
  return r.failures
    .map((f) =>
      [
        f.message,
        f.expected === undefined ? undefined : `expected: ${JSON.stringify(f.expected)}`,
        f.received === undefined ? undefined : `received: ${JSON.stringify(f.received)}`,
        f.pointer === undefined ? undefined : `pointer: ${f.pointer}`,
        f.byteOffset === undefined ? undefined : `byte offset: ${f.byteOffset}`,
        f.requestId === undefined ? undefined : `x-request-id: ${f.requestId}`,
        f.curl === undefined ? undefined : `reproduce: ${f.curl}`,
      ]
        .filter((l) => l !== undefined)
        .join('\n'),
    )
    .join('\n\n');
}

/** JUnit XML, one testcase per requirement; `non-strict` and `informational` pass with a property. */
export function conformanceJunit(report: ConformanceReport, redactor: Redactor): string {
  const byArea = new Map<string, JUnitCase[]>();
  for (const r of report.results) {
    const outcome: JUnitCase['outcome'] =
      r.verdict === 'fail'
        ? { kind: 'failure', message: r.failures[0]?.message ?? 'failed', type: r.grade, details: failureText(r) }
        : r.verdict === 'skipped'
          ? { kind: 'skipped', message: r.reason }
          : { kind: 'passed' };
    const c: JUnitCase = {
      name: `${r.id}: ${r.title}`,
      classname: `iari.${r.area}`,
      timeSeconds: r.durationMs / 1000,
      outcome,
      properties: { verdict: r.verdict, grade: r.grade },
      ...(r.verdict === 'non-strict' ? { systemOut: failureText(r) } : r.verdict === 'informational' ? { systemOut: r.note } : {}),
    };
    const list = byArea.get(r.area) ?? [];
    list.push(c);
    byArea.set(r.area, list);
  }
  const suites = [...byArea.entries()].map(([area, cases]) => ({ name: area, timestamp: report.run.startedAt, cases }));
  return sanitize(junitXml('iari conformance', suites), redactor);
}

/** Step summary markdown and one error annotation per failed requirement (GitHub Actions only). */
export function writeGithubOutputs(report: ConformanceReport, redactor: Redactor, env: Record<string, string | undefined> = process.env): void {
  if (!isGitHubActions(env)) return;
  const s = report.summary;
  const failed = report.results.filter((r): r is Extract<RequirementResult, { verdict: 'fail' | 'non-strict' }> => r.verdict === 'fail');
  const md = [
    `## iari conformance: ${failed.length === 0 ? 'passed' : `${failed.length} requirement(s) failed`}`,
    '',
    markdownTable(['pass', 'fail', 'non-strict', 'informational', 'skipped', 'total'], [[s.pass, s.fail, s['non-strict'], s.informational, s.skipped, s.total]]),
    '',
    ...(failed.length === 0
      ? []
      : [markdownTable(['requirement', 'grade', 'what failed', 'x-request-id'], failed.map((r) => [r.id, r.grade, r.failures[0]?.message ?? '', r.failures[0]?.requestId ?? '']))]),
    '',
  ].join('\n');
  writeStepSummary(sanitize(md, redactor), env);
  const nonStrict = report.results.filter((r): r is Extract<RequirementResult, { verdict: 'fail' | 'non-strict' }> => r.verdict === 'non-strict');
  const annotations: Annotation[] = [...failed, ...nonStrict].map((r) => ({
    level: r.verdict === 'fail' ? 'error' : 'warning',
    title: `${r.id} (${r.grade}${r.verdict === 'non-strict' ? ', non-strict' : ''})`,
    message: sanitize(failureText(r), redactor),
  }));
  emitAnnotations(annotations);
}

export interface WrittenFiles {
  conformanceJson: string;
  resultsNdjson: string;
  junitXml: string;
  reportHtml: string | undefined;
}

export async function writeConformanceFiles(report: ConformanceReport, runDir: RunDir, redactor: Redactor): Promise<WrittenFiles> {
  const files: WrittenFiles = {
    conformanceJson: runDir.write('conformance.json', conformanceJson(report, redactor)),
    resultsNdjson: runDir.write('results.ndjson', resultsNdjson(report, redactor)),
    junitXml: runDir.write('junit.xml', conformanceJunit(report, redactor)),
    reportHtml: undefined,
  };
  files.reportHtml = await writeHtml(report, runDir, redactor);
  return files;
}

async function writeHtml(report: ConformanceReport, runDir: RunDir, redactor: Redactor): Promise<string | undefined> {
  const mod = (await import('../report/conformance-html.ts').catch(() => undefined)) as
    | { renderConformanceReport?: (r: ConformanceReport) => string }
    | undefined;
  const render = mod?.renderConformanceReport;
  if (render === undefined) return undefined;
  return runDir.write('report.html', sanitize(render(redactor.value(report)), redactor));
}
