/**
 * The machine-readable files of `iari test`: `conformance.json` (stable key and row order, so two
 * runs with the same seed differ only in timings), `results.ndjson` (one requirement per line),
 * `junit.xml` (one testcase per requirement), `report.html`, and under GitHub Actions the step
 * summary and one annotation per failed requirement. Every byte passes the redactor first.
 */
import { readFileSync } from 'node:fs';
import { CAPABILITY_HEADERS, capabilityCells } from './capability-table.ts';
import { relative } from 'node:path';
import type { Failure, RequirementResult } from '../checks/kernel/verdicts.ts';
import { verdicts } from '../checks/kernel/verdicts.ts';
import { noTokenHeadline, runPassed } from '../checks/runner/conformance-results.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { DEFAULT_REGISTRY_PATH } from '../checks/registry/requirements-registry.ts';
import { usageDayFields } from '../checks/wire/usage-day.ts';
import { renderConformanceReport } from './conformance-html.ts';
import { emitAnnotations, isGitHubActions, markdownTable, writeStepSummary, type Annotation } from './github-actions.ts';
import { junitXml, type JUnitCase, type JUnitSuite } from './junit-xml.ts';
import { sanitize, type Redactor } from './redact.ts';
import type { RunDir } from './run-dir.ts';

function areaOf(id: string): string {
  return id.replace(/-\d+$/, '');
}

/** Requirement IDs in registry order: by area name, then by number (CHAT-2 before CHAT-10). */
export function compareRequirementIds(a: string, b: string): number {
  const aa = areaOf(a);
  const ba = areaOf(b);
  if (aa !== ba) return aa < ba ? -1 : 1;
  return Number(/(\d+)$/.exec(a)?.[1] ?? 0) - Number(/(\d+)$/.exec(b)?.[1] ?? 0);
}

/** A copy with object keys sorted at every depth (evidence values have no meaningful key order). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return out;
}

function pick<T extends object>(source: T, keys: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

const failureKeys = ['message', 'expected', 'received', 'byteOffset', 'pointer', 'requestId', 'curl'] as const;

function orderedFailure(f: Failure): Failure {
  const out = pick(f, failureKeys) as Failure;
  if (out.expected !== undefined) out.expected = sortKeysDeep(out.expected);
  if (out.received !== undefined) out.received = sortKeysDeep(out.received);
  return out;
}

/** One result with its keys in a fixed order: identity, verdict, its evidence, then run facts. */
export function orderedResult(r: RequirementResult): RequirementResult {
  const head = { id: r.id, area: r.area, grade: r.grade, title: r.title };
  const tail = { checks: [...r.checks].sort(), durationMs: r.durationMs };
  switch (r.verdict) {
    case 'pass':
      return { ...head, verdict: r.verdict, ...tail };
    case 'fail':
    case 'non-strict':
      return { ...head, verdict: r.verdict, failures: r.failures.map(orderedFailure), ...tail };
    case 'informational':
      return { ...head, verdict: r.verdict, note: r.note, ...tail };
    case 'skipped':
      return { ...head, verdict: r.verdict, reason: r.reason, ...tail };
    case 'undecided':
      return { ...head, verdict: r.verdict, cause: r.cause, reason: r.reason, ...tail };
    case 'known':
      return { ...head, verdict: r.verdict, known: { ...r.known }, failures: r.failures.map(orderedFailure), ...tail };
  }
}

/** The whole report with fixed key order and results sorted by requirement ID. */
export function orderedReport(report: ConformanceReport): ConformanceReport {
  const run = report.run;
  return {
    tool: { name: report.tool.name, version: report.tool.version },
    run: {
      id: run.id,
      startedAt: run.startedAt,
      durationMs: run.durationMs,
      baseUrl: run.baseUrl,
      target: run.target,
      seed: run.seed,
      grade: run.grade,
      profile: run.profile,
      only: [...run.only].sort(compareRequirementIds),
      skip: [...run.skip].sort(compareRequirementIds),
      ...(run.scope === undefined ? {} : { scope: run.scope }),
      ...(run.noToken === undefined ? {} : { noToken: run.noToken }),
      include: [...run.include].sort(),
    },
    // A report written before the `undecided` verdict (issue 37) has no count for it: 0.
    summary: { ...(Object.fromEntries(verdicts.map((v) => [v, report.summary[v] ?? 0])) as Record<(typeof verdicts)[number], number>), total: report.summary.total },
    passed: runPassed(report),
    runFailures: [...(report.runFailures ?? [])],
    results: [...report.results].sort((a, b) => compareRequirementIds(a.id, b.id)).map(orderedResult),
    coverage: {
      exercised: report.coverage.exercised,
      registry: report.coverage.registry,
      unexercised: [...report.coverage.unexercised].sort(compareRequirementIds),
    },
    usage:
      'unavailable' in report.usage
        ? { unavailable: report.usage.unavailable }
        : {
            days: [...report.usage.days]
              .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
              .map(usageDayFields),
          },
    ...(report.discovered === undefined ? {} : { discovered: report.discovered }),
    ...(report.capabilities === undefined ? {} : { capabilities: report.capabilities }),
    ...(report.baseline === undefined ? {} : { baseline: report.baseline }),
  };
}

export function conformanceJson(report: ConformanceReport, redactor: Redactor): string {
  return sanitize(`${JSON.stringify(orderedReport(redactor.value(report)), null, 2)}\n`, redactor);
}

/** One JSON line per requirement, in ID order. */
export function resultsNdjson(report: ConformanceReport, redactor: Redactor): string {
  return orderedReport(redactor.value(report))
    .results.map((r) => sanitize(JSON.stringify(r), redactor))
    .map((line) => `${line}\n`)
    .join('');
}

export function failureText(r: RequirementResult): string {
  if (r.verdict !== 'fail' && r.verdict !== 'non-strict' && r.verdict !== 'known') return '';
  const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(sortKeysDeep(v)));
  return r.failures
    .map((f) =>
      [
        f.message,
        f.expected === undefined ? undefined : `expected: ${json(f.expected)}`,
        f.received === undefined ? undefined : `received: ${json(f.received)}`,
        f.pointer === undefined ? undefined : `pointer: ${f.pointer}`,
        f.byteOffset === undefined ? undefined : `byte offset: ${f.byteOffset}`,
        f.requestId === undefined ? undefined : `x-request-id: ${f.requestId}`,
        f.curl === undefined ? undefined : `reproduce: ${f.curl}`,
      ]
        .filter((l): l is string => l !== undefined)
        .join('\n'),
    )
    .join('\n\n');
}

/**
 * JUnit XML: a suite per area, a testcase per requirement; only `fail` is a failure. An undecided
 * requirement is an `error` (the test could not complete), so CI shows it apart from failures and
 * never as passed or skipped.
 */
export function conformanceJunit(report: ConformanceReport, redactor: Redactor): string {
  const ordered = orderedReport(redactor.value(report));
  const suites = new Map<string, JUnitCase[]>();
  for (const r of ordered.results) {
    const outcome: JUnitCase['outcome'] =
      r.verdict === 'fail'
        ? { kind: 'failure', message: r.failures[0]?.message ?? 'failed', type: r.grade, details: failureText(r) }
        : r.verdict === 'undecided'
          ? { kind: 'error', message: r.reason, type: `undecided: ${r.cause}` }
          : r.verdict === 'skipped'
          ? { kind: 'skipped', message: r.reason }
          : r.verdict === 'known'
            ? { kind: 'skipped', message: `known failure: ${r.known.reason}${r.known.expires === undefined ? '' : ` (until ${r.known.expires})`}` }
            : { kind: 'passed' };
    const c: JUnitCase = {
      name: `${r.id}: ${r.title}`,
      classname: `iari.${r.area}`,
      timeSeconds: r.durationMs / 1000,
      outcome,
      properties: { requirement: r.id, grade: r.grade, verdict: r.verdict },
      ...(r.verdict === 'non-strict' || r.verdict === 'known' ? { systemOut: failureText(r) } : r.verdict === 'informational' ? { systemOut: r.note } : {}),
    };
    suites.set(r.area, [...(suites.get(r.area) ?? []), c]);
  }
  // A failure outside any requirement (an unmet --expect) is a failed testcase of its own.
  const runCases: JUnitCase[] = (ordered.runFailures ?? []).map((message, i) => ({ name: `run failure ${i + 1}: ${message}`, classname: 'iari.run', timeSeconds: 0, outcome: { kind: 'failure', message, type: 'run', details: message } }));
  // Issue 43: a run without a token records why as a case of its own: an error (undecided) unless --no-token accepted it.
  const tokenless = noTokenHeadline(ordered);
  if (tokenless !== undefined) runCases.push({ name: tokenless, classname: 'iari.run', timeSeconds: 0, outcome: ordered.run.noToken === 'implicit' ? { kind: 'error', message: tokenless, type: 'undecided: no token' } : { kind: 'skipped', message: tokenless } });
  if (runCases.length > 0) suites.set('run', runCases);
  const list: JUnitSuite[] = [...suites.entries()].map(([area, cases]) => ({ name: `iari.${area}`, timestamp: ordered.run.startedAt.replace(/\.\d{3}Z$/, 'Z'), cases }));
  return sanitize(junitXml('iari conformance', list), redactor);
}

/** Line numbers of `- id: X` in the registry file, so annotations point at the requirement. */
function registryLines(path: string): Map<string, number> {
  const lines = new Map<string, number>();
  try {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const m = /^\s*-\s*id:\s*['"]?([A-Z][A-Z-]*-\d{3})/.exec(line);
        if (m?.[1] !== undefined) lines.set(m[1], i + 1);
      });
  } catch {
    // No registry file on disk: annotations go without a line.
  }
  return lines;
}

export function conformanceAnnotations(report: ConformanceReport, redactor: Redactor, registryPath: string = DEFAULT_REGISTRY_PATH): Annotation[] {
  const lines = registryLines(registryPath);
  const file = relative(process.cwd(), registryPath) || registryPath;
  const ordered = orderedReport(redactor.value(report));
  const outside: Annotation[] = (ordered.runFailures ?? []).map((message) => ({ level: 'error', title: 'iari: a failure outside the requirements', message: sanitize(message, redactor) }));
  return ordered
    .results.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict')
    .map((r): Annotation => {
      const line = lines.get(r.id);
      return {
        level: r.verdict === 'fail' ? 'error' : 'warning',
        file,
        ...(line === undefined ? {} : { line }),
        title: `${r.id} (${r.grade}, ${r.verdict}): ${r.title}`,
        message: sanitize(failureText(r), redactor),
      } satisfies Annotation;
    })
    .concat(outside);
}

/** "2 requirements failed; 1 failure outside the requirements": what made a run fail, in words. */
export function failedHeadline(failedRequirements: number, runFailures: readonly string[], undecided = 0): string {
  return [
    failedRequirements > 0 ? `${failedRequirements} requirement${failedRequirements === 1 ? '' : 's'} failed` : '',
    runFailures.length > 0 ? `${runFailures.length} failure${runFailures.length === 1 ? '' : 's'} outside the requirements (${runFailures.join('; ')})` : '',
    undecided > 0 ? `${undecided} requirement${undecided === 1 ? '' : 's'} undecided` : '',
  ]
    .filter((x) => x !== '')
    .join('; ');
}

export function conformanceStepSummary(report: ConformanceReport, redactor: Redactor): string {
  const s = report.summary;
  const failed = orderedReport(redactor.value(report)).results.filter(
    (r): r is Extract<RequirementResult, { failures: Failure[] }> => r.verdict === 'fail' || r.verdict === 'non-strict',
  );
  const md = [
    `## iari conformance: ${runPassed(report) ? 'passed' : failedHeadline(s.fail, report.runFailures ?? [], s.undecided ?? 0) || 'not passed'}`,
    '',
    ...(noTokenHeadline(report) === undefined ? [] : [`**${noTokenHeadline(report) ?? ''}**`, '']),
    `Target \`${report.run.baseUrl}\`, ${s.total} requirements, run \`${report.run.id}\`.`,
    '',
    markdownTable([...verdicts, 'total'], [[...verdicts.map((v) => s[v] ?? 0), s.total]]),
    '',
    ...(report.capabilities === undefined || report.capabilities.length === 0 ? [] : ['### Capabilities beyond the seed', '', markdownTable([...CAPABILITY_HEADERS], capabilityCells(report.capabilities)), '']),
    ...(failed.length === 0
      ? []
      : [
          markdownTable(
            ['requirement', 'grade', 'verdict', 'what failed', 'x-request-id'],
            failed.map((r) => [r.id, r.grade, r.verdict, r.failures[0]?.message ?? '', r.failures[0]?.requestId ?? '']),
          ),
          '',
        ]),
  ].join('\n');
  return sanitize(md, redactor);
}

/** Step summary and annotations, only under GitHub Actions. */
export function writeGithubOutputs(
  report: ConformanceReport,
  redactor: Redactor,
  env: Record<string, string | undefined> = process.env,
  write: (line: string) => void = (l) => process.stdout.write(l),
): boolean {
  if (!isGitHubActions(env)) return false;
  writeStepSummary(conformanceStepSummary(report, redactor), env);
  emitAnnotations(conformanceAnnotations(report, redactor), write);
  return true;
}

export interface WrittenFiles {
  conformanceJson: string;
  resultsNdjson: string;
  junitXml: string;
  reportHtml: string;
}

export function conformanceHtml(report: ConformanceReport, redactor: Redactor): string {
  return sanitize(renderConformanceReport(orderedReport(redactor.value(report))), redactor);
}

/** Writes the four files into the run directory (atomically) and returns their paths. */
export function writeConformanceFiles(report: ConformanceReport, runDir: RunDir, redactor: Redactor): WrittenFiles {
  return {
    conformanceJson: runDir.write('conformance.json', conformanceJson(report, redactor)),
    resultsNdjson: runDir.write('results.ndjson', resultsNdjson(report, redactor)),
    junitXml: runDir.write('junit.xml', conformanceJunit(report, redactor)),
    reportHtml: runDir.write('report.html', conformanceHtml(report, redactor)),
  };
}
