/**
 * The files of `iari load`: `load.json`, `requests.ndjson`, `report.html`, and a JUnit file with
 * one testcase per SLO threshold (as k6 users do via handleSummary); under GitHub Actions the
 * step summary and one annotation per breached SLO. Every byte passes the redactor first.
 */
import type { LoadResult, RequestRecord, SloResult } from '../load/results/load-result.ts';
import { percentileKeys } from '../load/results/load-result.ts';
import { emitAnnotations, isGitHubActions, markdownTable, writeStepSummary, type Annotation } from './github-actions.ts';
import { junitXml, type JUnitCase } from './junit-xml.ts';
import { formatUs, loadHtml } from './load-html.ts';
import { sanitize, type Redactor } from './redact.ts';
import type { RunDir } from './run-dir.ts';

export function loadJson(result: LoadResult, redactor: Redactor): string {
  return sanitize(`${JSON.stringify(redactor.value(result), null, 2)}\n`, redactor);
}

/** One line of requests.ndjson, without its newline (the run streams them: results/record-log.ts). */
export function requestLine(r: RequestRecord, redactor: Redactor): string {
  return sanitize(JSON.stringify(redactor.value(r)), redactor);
}

/** requests.ndjson line by line (written as they come: run-dir.ts writePieces). */
export function* requestsNdjson(records: Iterable<RequestRecord>, redactor: Redactor): Generator<string> {
  for (const r of records) yield `${requestLine(r, redactor)}\n`;
}

function observed(s: SloResult): string {
  if (s.observed === null) return 'no samples';
  if (s.unit === 'us') return formatUs(s.observed);
  if (s.unit === 'ratio') return `${(s.observed * 100).toFixed(2)}%`;
  if (s.unit === 'millitokens_per_s') return `${(s.observed / 1000).toFixed(1)} tok/s`;
  return String(Math.round(s.observed * 1000) / 1000);
}

function threshold(s: SloResult): string {
  if (s.unit === 'us') return formatUs(s.threshold);
  if (s.unit === 'ratio') return `${(s.threshold * 100).toFixed(2)}%`;
  if (s.unit === 'millitokens_per_s') return `${(s.threshold / 1000).toFixed(1)} tok/s`;
  return String(s.threshold);
}

/** "observed 950 ms, threshold < 800 ms" */
export function sloMessage(s: SloResult): string {
  return `${s.expr}: observed ${observed(s)}, threshold ${s.op} ${threshold(s)}`;
}

/** One testcase per SLO (failure when breached), plus one for stream conformance under load. */
export function loadJunit(result: LoadResult, redactor: Redactor): string {
  const window = result.throughput.windowS;
  const cases: JUnitCase[] = result.slos.map((s) => ({
    name: `SLO ${s.expr}`,
    classname: 'iari.load.slo',
    timeSeconds: window,
    outcome: s.passed ? { kind: 'passed' } : { kind: 'failure', message: sloMessage(s), type: 'slo' },
    properties: { metric: s.metric, stat: s.stat, observed: s.observed === null ? 'null' : String(s.observed), threshold: String(s.threshold) },
  }));
  const nonconforming = result.errors.byClass.stream_nonconforming;
  cases.push({
    name: 'every stream conforms',
    classname: 'iari.load.streams',
    timeSeconds: window,
    outcome:
      nonconforming === 0
        ? { kind: 'passed' }
        : {
            kind: 'failure',
            message: `${nonconforming} stream(s) broke the SSE format under load`,
            type: 'stream',
            details: Object.entries(result.errors.byFinding)
              .map(([k, n]) => `${k}: ${n}`)
              .join('\n'),
          },
  });
  return sanitize(junitXml('iari load', [{ name: 'iari.load', timestamp: result.meta.startedAt.replace(/\.\d{3}Z$/, 'Z'), cases }]), redactor);
}

export function loadStepSummary(result: LoadResult, redactor: Redactor): string {
  const breached = result.slos.filter((s) => !s.passed);
  const m = result.metrics;
  const row = (name: 'ttft' | 'itl' | 'e2e') => {
    const h = m[name];
    return [name, ...percentileKeys.map((k) => (h === undefined ? '–' : formatUs(h.percentiles[k])))];
  };
  const md = [
    `## iari load: ${result.slos.length === 0 ? 'measured' : breached.length === 0 ? 'SLOs met' : `${breached.length} SLO(s) breached`}`,
    '',
    `Target \`${result.meta.baseUrl}\`, ${result.counts.finished} requests in ${result.throughput.windowS.toFixed(1)} s, ${result.throughput.rps.toFixed(2)} req/s, ${result.throughput.outputTokensPerS.toFixed(0)} output tokens/s, errors ${(result.errors.rate * 100).toFixed(2)}%, goodput ${result.goodput.goodputRps.toFixed(2)} req/s.`,
    '',
    markdownTable(['metric', ...percentileKeys], [row('ttft'), row('itl'), row('e2e')]),
    '',
    ...(result.slos.length === 0 ? [] : [markdownTable(['SLO', 'observed', 'threshold', 'result'], result.slos.map((s) => [s.expr, observed(s), `${s.op} ${threshold(s)}`, s.passed ? 'met' : 'breached'])), '']),
  ].join('\n');
  return sanitize(md, redactor);
}

export function loadAnnotations(result: LoadResult, redactor: Redactor): Annotation[] {
  return result.slos
    .filter((s) => !s.passed)
    .map((s) => ({ level: 'error', title: `SLO ${s.expr}`, message: sanitize(sloMessage(s), redactor) }) satisfies Annotation);
}

export function writeLoadGithubOutputs(
  result: LoadResult,
  redactor: Redactor,
  env: Record<string, string | undefined> = process.env,
  write: (line: string) => void = (l) => process.stdout.write(l),
): boolean {
  if (!isGitHubActions(env)) return false;
  writeStepSummary(loadStepSummary(result, redactor), env);
  emitAnnotations(loadAnnotations(result, redactor), write);
  return true;
}

export interface WrittenLoadFiles {
  loadJson: string;
  requestsNdjson: string | undefined;
  junitXml: string;
  reportHtml: string;
}

/** Writes load.json, requests.ndjson (when records are given), junit.xml and report.html atomically. */
export function writeLoadFiles(result: LoadResult, records: Iterable<RequestRecord> | undefined, runDir: RunDir, redactor: Redactor): WrittenLoadFiles {
  return {
    loadJson: runDir.write('load.json', loadJson(result, redactor)),
    requestsNdjson: records === undefined ? undefined : runDir.writePieces('requests.ndjson', requestsNdjson(records, redactor)),
    junitXml: runDir.write('junit.xml', loadJunit(result, redactor)),
    reportHtml: runDir.write('report.html', loadHtml(result, redactor)),
  };
}
