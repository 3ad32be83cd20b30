import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-baseline-'));
let mock: MockServer;
beforeAll(async () => {
  // completion-no-id breaks CHAT-002 (mock-server/faults.ts); CHAT-001 and CHAT-004 keep passing.
  mock = await startMockServer({ ttftMs: 0, itlMs: 0, faults: ['completion-no-id'] });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** `iari test` on the mock in this process (cli-in-process.ts). */
function iariTest(args: string[]): Promise<CliRun> {
  return runCli(['test', '--base-url', mock.url, '--only', 'CHAT-001,CHAT-002,CHAT-004', ...args], { IARI_TOKEN: mock.tokens.default });
}

function file(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}

const today = new Date().toISOString().slice(0, 10);

describe('iari test --baseline on the mock with fault completion-no-id', () => {
  it('CHAT-002 listed: reported known, the run passes (exit 0); --write-baseline writes the failing ID', async () => {
    const known = file('known.yaml', `known:\n  - id: CHAT-002\n    reason: ids missing, tracked upstream\n    expires: ${today}\n`);
    const written = join(tmp, 'written.yaml');
    const r = await iariTest(['--baseline', known, '--write-baseline', written, '--report', join(tmp, 'r1')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^KNOWN CHAT-002 \(MUST\) ids missing, tracked upstream \[until \d{4}-\d{2}-\d{2}\]: /m);
    const report = JSON.parse(readFileSync(join(tmp, 'r1', 'conformance.json'), 'utf8')) as { summary: Record<string, number>; baseline: { known: string[] } };
    expect(report.summary).toMatchObject({ fail: 0, known: 1 });
    expect(report.baseline.known).toEqual(['CHAT-002']);
    expect(readFileSync(written, 'utf8')).toMatch(/^known:\n {2}- id: CHAT-002\n {4}reason: ids missing, tracked upstream\n {4}expires: /m);
  }, 150_000);

  it('nothing listed: CHAT-002 is a new failure and fails the run (exit 1); a listed CHAT-001 that passes is reported fixed', async () => {
    const known = file('other.yaml', 'known:\n  - id: CHAT-001\n    reason: was broken\n');
    const r = await iariTest(['--baseline', known, '--report', join(tmp, 'r2')]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^FAIL CHAT-002 /m);
    expect(r.stderr).toContain(`iari: baseline: fixed: CHAT-001 now passes: remove it from ${known} (line 2)`);
    expect(r.stderr).toContain(`iari: baseline: 1 new failure(s) not in ${known}: CHAT-002`);
  }, 150_000);

  it('an expired entry fails the run again (exit 1), saying it expired', async () => {
    const known = file('expired.yaml', 'known:\n  - id: CHAT-002\n    reason: ids missing\n    expires: 2020-01-01\n');
    const r = await iariTest(['--baseline', known, '--report', join(tmp, 'r3')]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL CHAT-002 (MUST) known-failure entry expired on 2020-01-01');
    expect(r.stderr).toContain("iari: baseline: expired: CHAT-002's entry (line 2) expired on 2020-01-01; it counts as a failure again");
  }, 150_000);

  it('a malformed baseline is a configuration error (exit 2) naming file and line, before any request', async () => {
    let requests = 0;
    const count = (): void => void (requests += 1);
    mock.httpServer.on('request', count);
    const bad = file('bad.yaml', 'known:\n  - id: CHAT-002\n');
    const r = await iariTest(['--baseline', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:2: entry has no "reason"`);
    mock.httpServer.off('request', count);
    expect(requests).toBe(0);
  }, 60_000);

  it('--write-baseline keeps the entries of --baseline that apply to another --server-version, whatever the run found', async () => {
    const known = file('versions.yaml', 'known:\n  - id: CHAT-002\n    reason: ids missing\n  - id: CHAT-004\n    reason: object field was wrong before 1.4\n    server-version: "1.3"\n');
    const written = join(tmp, 'versions-written.yaml');
    const r = await iariTest(['--baseline', known, '--server-version', '1.4', '--write-baseline', written, '--report', join(tmp, 'r5')]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(written, 'utf8');
    expect(text).toMatch(/^ {2}- id: CHAT-002\n {4}reason: ids missing\n/m);
    // CHAT-004 passes against 1.4; its 1.3 entry says nothing about 1.4 and stays.
    expect(text).toMatch(/^ {2}- id: CHAT-004\n {4}reason: object field was wrong before 1.4\n {4}server-version: "?1\.3"?\n/m);
  }, 150_000);
});
