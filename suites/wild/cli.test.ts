import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.ts';
import { loadCorpus } from './corpus.ts';
import { startReplayFor, startWildMock } from './wild-run.ts';

// The replay server is a server like any other to the CLI: `iari test --base-url ... --only IDS`
// against a recording gives the verdicts the library run gives (and the exit code that follows).

const root = packagePath('');
const tmp = mkdtempSync(join(tmpdir(), 'iari-wild-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function iari(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', ...args], { cwd: root, env: { ...process.env, ...env, GITHUB_ACTIONS: '' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

describe('iari test against the replay server', () => {
  it('CHAT-STREAM-002, CHAT-STREAM-008, CHAT-STREAM-014: llama.cpp b2330\'s stream fails them through the CLI (exit 1) as in the library run', async () => {
    const ex = loadCorpus().find((e) => e.id === 'llamacpp-stream-new-id-per-chunk');
    if (ex === undefined) throw new Error('exchange missing');
    const ids = Object.keys(ex.verdicts).sort();
    const mock = await startWildMock();
    const replay = await startReplayFor(mock, [ex]);
    try {
      const out = await iari(['--base-url', `${replay.origin}/v1`, '--only', ids.join(','), '--json', '--report', join(tmp, 'llamacpp')], { IARI_TOKEN: mock.tokens.default });
      expect(out.code, out.stderr).toBe(1);
      const report = JSON.parse(readFileSync(join(tmp, 'llamacpp', 'conformance.json'), 'utf8')) as { results: { id: string; verdict: string }[] };
      const got = Object.fromEntries(report.results.filter((r) => ids.includes(r.id)).map((r) => [r.id, r.verdict]));
      expect(got).toEqual(Object.fromEntries(ids.map((id) => [id, ex.verdicts[id]?.verdict])));
      expect(replay.served(ex.id)).toBeGreaterThan(0);
      // The run's token never reaches the report.
      expect(readFileSync(join(tmp, 'llamacpp', 'conformance.json'), 'utf8')).not.toContain(mock.tokens.default);
    } finally {
      await replay.close();
      await mock.close();
    }
  }, 150_000);
});
