import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { BUILD_TIMEOUT_MS, engineBuild, startEngine, type Engine, type RunningEngine } from './llama-server-fixture.ts';

// Issue 43 item 4: "Verdicts drift between identical runs (4 runs, same server): TOOLS-019 was NS three
// times and passed once; the capability row said a named tool_choice was 'honoured' in the very run whose
// TOOLS-019 saw get_time called; CLIENT-013 (MUST) failed once, on iari's max_tokens 48; TOOLS-020 flipped
// once." Done when: "run the same server 5 times and show the verdicts identical".
// Bounded to the affected areas: the tool_choice requirements and their capability rows, TOOLS-020 and
// CLIENT-013 (the AI SDK's streamed tool round trip); 5 runs against one llama-server with the designed
// model, no --api-key and no token (issue 43 item 6). Measured 29 Nov 06:25-06:45: 5 runs in 19.2 min (5.3, 4.0,
// 4.0, 3.2, 2.5 min a run as the load average fell from 22 to 10), all five identical; slower when the machine is: see DEADLINES.

const RUNS = 5;
const IDS = ['TOOLS-018', 'TOOLS-019', 'TOOLS-020', 'TOOLS-023', 'CLIENT-013'];
const ROWS = ['tool-choice', 'parallel-tool-calls-false'];
// The tool-choice probe's "Say hello." turns run to the -n 96 bound under the tool grammar: 209 s each, two at once at load 22
// (measured 29 Nov); inside a run beside other checks one passed the 5 min deadline twice. A deadline must not decide a run here.
const DEADLINES = ['--request-timeout', '12m', '--check-timeout', '25m', '--run-timeout', '40m'];
const RUN_TIMEOUT_MS = 41 * 60_000;

interface Report {
  results: { id: string; verdict: string; reason?: string; failures?: { message: string }[] }[];
  capabilities: { name: string; status: string; detail: string }[];
}

/** What must not change between runs: each requirement's verdict and each capability row's status and detail. */
function fingerprint(report: Report): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of IDS) out[id] = report.results.find((r) => r.id === id)?.verdict ?? 'absent';
  for (const name of ROWS) {
    const row = report.capabilities.find((c) => c.name === name);
    out[`capability ${name}`] = row === undefined ? 'absent' : `${row.status}: ${row.detail}`;
  }
  return out;
}

let engine: Engine;
let running: RunningEngine | undefined;
beforeAll(async () => {
  engine = await engineBuild();
  if (engine.build !== undefined) running = await startEngine(engine.build, 'designed');
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await running?.close();
});

describe('llama-server, the same server judged 5 times', () => {
  const seen: Record<string, string>[] = [];
  for (let n = 1; n <= RUNS; n++) {
    it(
      `TOOLS-019, TOOLS-020, CLIENT-013: run ${n} of ${RUNS} gives the verdicts and capability rows of run 1, and the tool-choice row agrees with its requirements`,
      async (ctx) => {
        if (engine.skip !== undefined) return ctx.skip(engine.skip);
        if (n > 1 && seen.length === 0) return ctx.skip('run 1 did not finish');
        // llama-server started without --api-key: a server without auth, said so (--no-token; without it the run exits 4).
        const run = await runCli(['test', '--base-url', running!.server.url, '--no-token', '--only', IDS.join(','), '--pace', '100/s', ...DEADLINES, '--json'], { IARI_TOKEN: '', GITHUB_STEP_SUMMARY: '' });
        const report = JSON.parse(run.stdout) as Report;
        const print = fingerprint(report);
        process.stderr.write(`engines: determinism run ${n}: ${JSON.stringify(print)}\n`);
        // Nothing the run could not decide: a deadline would make two runs differ for the machine's sake.
        const undecided = report.results.filter((r) => IDS.includes(r.id) && r.verdict === 'undecided');
        expect(undecided.map((r) => `${r.id}: ${r.reason ?? ''}`)).toEqual([]);
        // Fail closed: a row the probe could not decide (a deadline on a loaded machine) shows nothing about determinism.
        for (const name of ROWS) expect(print[`capability ${name}`], name).not.toMatch(/^(undecided: the probe could not run|not-probed|absent)/);
        // The row never contradicts its checks: a named tool_choice that had no effect is TOOLS-019's failure.
        const row = report.capabilities.find((c) => c.name === 'tool-choice');
        // (TOOLS-019 is a compat SHOULD: its failure reads non-strict; under --profile strict or a MUST grade, fail.)
        if (row !== undefined && /a named function: (no effect|wrong)/.test(row.detail)) expect(['fail', 'non-strict'], `TOOLS-019 ${print['TOOLS-019'] ?? ''}: ${row.detail}`).toContain(print['TOOLS-019']);
        if (row?.status === 'honoured') expect(print['TOOLS-019'], row.detail).toBe('pass');
        if (seen.length > 0) expect(print).toEqual(seen[0]);
        seen.push(print);
      },
      RUN_TIMEOUT_MS,
    );
  }
});
