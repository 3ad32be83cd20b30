import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './test-command.ts';
import { isHarnessError } from '../errors.ts';
import { startMockServer } from '../../mock-server/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'iari-test-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function iari(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', ...args], { cwd: root, env: { ...process.env, ...env, GITHUB_ACTIONS: '' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
}

/** conformance.json without the parts that are timings by nature. */
function withoutTimings(text: string): unknown {
  const r = JSON.parse(text) as { run: Record<string, unknown>; results: Record<string, unknown>[] };
  delete r.run['id'];
  delete r.run['startedAt'];
  delete r.run['durationMs'];
  for (const x of r.results) delete x['durationMs'];
  return r;
}

describe('iari test', () => {
  it('rejects unknown requirement IDs in --only/--skip as a usage error (exit 2) before running anything', async () => {
    const error = await run(['--only', 'NOPE-001']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const skip = await run(['--skip', 'AUTH-001,AUTH-999']).catch((e: unknown) => e);
    expect(isHarnessError(skip) && skip.message).toMatch(/AUTH-999/);
  });

  it('rejects a missing token for an external server (exit 2) and never takes it as a flag value', async () => {
    const error = await run(['--base-url', 'http://127.0.0.1:9/v1', '--token-env', 'IARI_TEST_NO_SUCH_VAR']).catch((e: unknown) => e);
    expect(isHarnessError(error) && error.exitCode).toBe(2);
    const flag = await run(['--token', 'x']).catch((e: unknown) => e);
    expect(isHarnessError(flag) && flag.exitCode).toBe(2);
  });

  it('refuses a token too short to be scrubbed from reports (exit 2) instead of mangling them', async () => {
    process.env['IARI_TEST_SHORT_TOKEN'] = 'x';
    try {
      const error = await run(['--base-url', 'http://127.0.0.1:9/v1', '--token-env', 'IARI_TEST_SHORT_TOKEN']).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.code).toBe('IARI_CONFIG_INVALID');
      expect(isHarnessError(error) && error.exitCode).toBe(2);
    } finally {
      delete process.env['IARI_TEST_SHORT_TOKEN'];
    }
  });

  it('prints its deadlines in --help, with the whole run bounded at 5 minutes by default, and rejects a malformed one (exit 2)', async () => {
    let out = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
    try {
      expect(await run(['--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out).toMatch(/--request-timeout D/);
    expect(out).toMatch(/--check-timeout D/);
    expect(out).toMatch(/--run-timeout D\s+deadline of the whole run \(default 5m\)/);
    for (const bad of [['--run-timeout', 'soon'], ['--request-timeout', '0'], ['--check-timeout', '-1s']]) {
      const error = await run(bad).catch((e: unknown) => e);
      expect(isHarnessError(error) && error.exitCode, bad.join(' ')).toBe(2);
    }
  });

  it('writes the same conformance.json for the same seed, apart from timings', async () => {
    const [a, b] = await Promise.all([iari(['--seed', '5', '--report', join(tmp, 'a')]), iari(['--seed', '5', '--report', join(tmp, 'b')])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const f of ['conformance.json', 'results.ndjson', 'junit.xml']) expect(readdirSync(join(tmp, 'a'))).toContain(f);
    expect(withoutTimings(readFileSync(join(tmp, 'a', 'conformance.json'), 'utf8'))).toEqual(withoutTimings(readFileSync(join(tmp, 'b', 'conformance.json'), 'utf8')));
  }, 150_000);

  it('keeps a canary token out of every report file and output line, failures and curl lines included (exit 1)', async () => {
    const canary = 'sk-iari-canary-7f3e9d21c4b84a6e';
    const mock = await startMockServer({ defaultToken: canary, faults: ['error-code-integer', 'usage-not-incremented', 'stream-no-done'], ttftMs: 0, itlMs: 0 });
    try {
      const out = join(tmp, 'canary');
      const r = await iari(['--base-url', mock.url, '--report', out], { IARI_TOKEN: canary });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/FAIL/);
      expect(`${r.stdout}\n${r.stderr}`.includes(canary)).toBe(false);
      const files = filesUnder(out);
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const f of files) expect(readFileSync(f, 'utf8').includes(canary), f).toBe(false);
      const report = readFileSync(join(out, 'conformance.json'), 'utf8');
      expect(report).toContain('$IARI_TOKEN');
    } finally {
      await mock.close();
    }
  }, 150_000);
});
