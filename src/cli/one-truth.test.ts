import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { runConformance } from '../index.ts';

// Issue 31: `--expect logprobs` against the mock (which ignores logprobs, and logprobs has no
// requirement of its own) exited 1 while the table said 0 failed, report.html PASSED, junit.xml
// failures="0" and conformance.json fail: 0. The exit code and every file now follow one report.
const tmp = mkdtempSync(join(tmpdir(), 'iari-one-truth-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('an --expect capability the server does not offer', () => {
  it('fails the run in the exit code, the summary table, report.html, junit.xml and conformance.json alike', async () => {
    const dir = join(tmp, 'expect');
    const r = await runCli(['test', '--expect', 'json-schema,logprobs', '--report', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL --expect logprobs: the server ignored it: /m);
    expect(r.stdout).toMatch(/^FAILED: 0 requirement\(s\) failed and 1 failure\(s\) outside the requirements$/m);
    const json = JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as { passed: boolean; runFailures: string[]; summary: { fail: number } };
    expect(json.passed).toBe(false);
    expect(json.runFailures).toEqual([expect.stringMatching(/^--expect logprobs: the server ignored it: /)]);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites [^>]*failures="1"/);
    expect(junit).toContain('classname="iari.run"');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('FAILED: 1 failure outside the requirements');
    expect(html).not.toContain('PASSED');
  });

  it('runConformance: passed is false and the report says why (runFailures), not fail: 0 alone', async () => {
    const { passed, report } = await runConformance({ expect: ['logprobs'], only: ['MODELS-001'] });
    expect(passed).toBe(false);
    expect(report.runFailures).toEqual([expect.stringMatching(/^--expect logprobs: /)]);
  });
});
