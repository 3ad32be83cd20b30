import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { codeUrl } from '../package-root.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';

// Issue 31: the baseline example in docs/conformance.md did not produce the output shown there.
// This runs it: the YAML file, the commands and both transcripts come from the doc itself.
const doc = readFileSync(codeUrl('docs/conformance.md'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'iari-baseline-example-'));
let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ faults: ['completion-no-id'] });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The first fenced block after `marker`. */
function blockAfter(marker: string): string {
  const at = doc.indexOf(marker);
  if (at < 0) throw new Error(`docs/conformance.md no longer has "${marker}"`);
  const m = /```[a-z]*\n([^]*?)```/.exec(doc.slice(at));
  if (m?.[1] === undefined) throw new Error(`no code block after "${marker}"`);
  return m[1];
}

/** A transcript's parts: the `iari test` arguments, stdout and stderr lines (stderr lines start with "iari:"), exit code. */
function transcript(block: string): { args: string[]; stdout: string[]; stderr: string[]; code: number } {
  const lines = block.trimEnd().split('\n');
  const cmd = lines.find((l) => l.startsWith('$ iari test '));
  const echo = lines.indexOf('$ echo $?');
  const output = lines.filter((l, i) => !l.startsWith('$ ') && (echo < 0 || i < echo));
  return {
    args: (cmd ?? '').replace('$ iari test ', '').split(' '),
    stdout: output.filter((l) => !l.startsWith('iari: ')),
    stderr: output.filter((l) => l.startsWith('iari: ')),
    code: echo < 0 ? NaN : Number(lines[echo + 1]),
  };
}

/** What differs between runs and the doc: durations, the report path, and what the doc leaves out (area rows with nothing to show, the capability table). */
function normal(lines: readonly string[], header: string | undefined): string[] {
  const cols = header?.trim().split(/\s+/) ?? [];
  const caps = lines.indexOf('capabilities beyond the seed (* = --expect):');
  const end = caps < 0 ? -1 : lines.indexOf('', caps);
  return lines
    .filter((_, i) => caps < 0 || i < caps || i > end)
    .filter((l) => {
      const cells = l.trim().split(/\s+/);
      if (cols.length === 0 || cells.length !== cols.length || !/^[A-Z][A-Z-]*$/.test(cells[0] ?? '')) return true;
      return cols.some((c, i) => c !== 'area' && c !== 'skipped' && cells[i] !== '0');
    })
    .map((l) => l.replace(/seed (\d+), [\d.]+ s$/, 'seed $1, N s').replace(/^report: .*$/, 'report: reports/…/report.html'));
}

async function runExample(block: string, yaml: string, fileName: string): Promise<void> {
  const t = transcript(block);
  const known = join(tmp, fileName);
  writeFileSync(known, yaml);
  const args = t.args.map((a) => (a.startsWith('http://127.0.0.1:') ? mock.url : a.endsWith('.yaml') ? known : a));
  const r = await runCli(['test', ...args, '--report', join(tmp, fileName.replace('.yaml', ''))], { IARI_TOKEN: mock.tokens.default });
  const header = t.stdout.find((l) => l.startsWith('area '));
  const paths = (s: string): string => s.replaceAll(known, fileName);
  expect(normal(r.stdout.trimEnd().split('\n').map(paths), header)).toEqual(normal(t.stdout, header));
  expect(r.stderr.trimEnd().split('\n').map(paths)).toEqual(t.stderr);
  expect(r.code).toBe(t.code);
}

describe("docs/conformance.md's known-failures example, run as written", () => {
  // The example's entry holds through a date; the run moves it a year ahead of today, so the example stays true after that date.
  const yaml = blockAfter('known failures, each with a reason');
  const documented = /expires: (\d{4}-\d{2}-\d{2})/.exec(yaml)?.[1] ?? '';
  const ahead = `${new Date().getUTCFullYear() + 1}-12-31`;

  it('with the file above: CHAT-002 known, exit 0, and the output shown', async () => {
    const block = blockAfter('Against the mock with fault `completion-no-id`').replaceAll(documented, ahead);
    await runExample(block, yaml.replaceAll(documented, ahead), 'known.yaml');
  }, 150_000);

  it("with the entry's expires in the past: CHAT-002 fails again, exit 1, and the output shown", async () => {
    const block = blockAfter("With the entry's `expires: ");
    const past = /With the entry's `expires: (\d{4}-\d{2}-\d{2})`/.exec(doc)?.[1] ?? 'missing';
    await runExample(`$ iari test ${transcript(blockAfter('Against the mock with fault `completion-no-id`')).args.join(' ').replace('known.yaml', 'expired.yaml')}\n${block}`, yaml.replaceAll(documented, past), 'expired.yaml');
  }, 150_000);
});
