import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadResult, RequestRecord } from '../load/results/load-result.ts';
import { loadAnnotations, loadJunit, loadStepSummary, sloMessage, writeLoadFiles, writeLoadGithubOutputs } from './load-files.ts';
import { createRedactor } from './redact.ts';
import { createRunDir } from './run-dir.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';

const secret = 'sk-iari-canary-load-5e5e5e5e';
const redactor = createRedactor([secret]);

function record(seq: number, detail: string): RequestRecord {
  return {
    seq,
    shard: null,
    phase: 'measure',
    requestId: `req_${String(seq).padStart(24, '0')}`,
    status: 200,
    intendedUs: seq * 1000,
    sentUs: seq * 1000 + 40,
    ttfbUs: 90_000,
    ttftUs: 200_000,
    e2eUs: 900_000,
    outputTokens: 32,
    tokenSource: 'usage',
    events: 34,
    itlMeanUs: 20_000,
    itlMaxUs: 31_000,
    tpotUs: 21_000,
    error: detail === '' ? null : { class: 'other', detail },
    good: true,
  };
}

function breached(): LoadResult {
  return sampleLoadResult({ durationS: 4, slosBreached: true, stall: false });
}

describe('load-files', () => {
  it('writes one JUnit testcase per SLO, failing exactly the breached ones, plus stream conformance', () => {
    const r = breached();
    const xml = loadJunit(r, redactor);
    expect(xml.match(/<testcase /g)).toHaveLength(r.slos.length + 1);
    const failedSlos = r.slos.filter((s) => !s.passed);
    expect(failedSlos.length).toBeGreaterThan(0);
    const streamFailure = r.errors.byClass.stream_nonconforming > 0 ? 1 : 0;
    expect(xml.match(/<failure /g)).toHaveLength(failedSlos.length + streamFailure);
    expect(xml).toContain('name="SLO ttft.p95&lt;800ms"');
  });

  it('describes a breached SLO with the observed value and threshold in readable units', () => {
    const slo = breached().slos.find((s) => s.metric === 'ttft');
    if (slo === undefined) throw new Error('no ttft SLO');
    expect(sloMessage(slo)).toMatch(/^ttft\.p95<800ms: observed \d+ ms, threshold < 800 ms$/);
  });

  it('annotates each breached SLO and summarises the run under GitHub Actions only', () => {
    const r = breached();
    expect(loadAnnotations(r, redactor)).toHaveLength(r.slos.filter((s) => !s.passed).length);
    const out: string[] = [];
    expect(writeLoadGithubOutputs(r, redactor, {}, (l) => out.push(l))).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), 'iari-load-gha-')), 'summary.md');
    expect(writeLoadGithubOutputs(r, redactor, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file }, (l) => out.push(l))).toBe(true);
    expect(out.every((l) => l.startsWith('::error title=SLO '))).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(loadStepSummary(r, redactor));
    expect(readFileSync(file, 'utf8')).toContain('SLO(s) breached');
  });

  it('writes load.json, requests.ndjson, junit.xml and report.html without the secret', () => {
    const r = sampleLoadResult({ durationS: 3 });
    r.errors.examples.push({ class: 'other', detail: `server said Bearer ${secret}`, requestId: null });
    const run = createRunDir({ report: mkdtempSync(join(tmpdir(), 'iari-load-files-')) });
    const files = writeLoadFiles(r, [record(1, ''), record(2, `echo ${secret}`)], run, redactor);
    expect(readdirSync(run.dir).sort()).toEqual(['junit.xml', 'load.json', 'report.html', 'requests.ndjson']);
    for (const path of Object.values(files)) if (path !== undefined) expect(readFileSync(path, 'utf8'), path).not.toContain(secret);
    const lines = readFileSync(files.requestsNdjson ?? '', 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect((JSON.parse(lines[0] ?? '{}') as RequestRecord).requestId).toBe(record(1, '').requestId);
    expect((JSON.parse(readFileSync(files.loadJson, 'utf8')) as LoadResult).counts.finished).toBe(r.counts.finished);
  });
});
