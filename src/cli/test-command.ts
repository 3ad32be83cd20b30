import { parseFlags } from './args.ts';
import { conformanceRun } from '../library/conformance.ts';
import { validateTestOptions, type TestOptions } from '../library/test-options.ts';
import { DEFAULT_RUN_TIMEOUT_MS, runDeadlineNotes } from '../library/test-deadlines.ts';
import { testProgress } from './test-progress.ts';
import { runOutcome, type CheckRun } from '../checks/runner/conformance-results.ts';
import { ExitCode } from '../exit-codes.ts';
import { writeConformanceFiles, writeGithubOutputs, conformanceJson } from '../report/conformance-files.ts';
import { formatSummary } from '../report/summary-table.ts';
import { applyBaseline, baselineNotes } from '../checks/runner/apply-baseline.ts';
import { loadBaselineFlags, writeBaselineFile } from './test-baseline.ts';
import { createRunDir, shownPath } from '../report/run-dir.ts';
import { createRedactor } from '../report/redact.ts';
import { testFlagHelp, testFlagName, testFlagSpec, testOptionsFromFlags } from './test-flags.ts';
import { TEST_FLAGS } from '../library/test-flag-table.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import type { MockServer } from '../../mock-server/index.ts';
import { keepYoungGenerationSize } from '../young-generation.ts';

const HELP = `Usage: iari test [options]

Runs the conformance suites against a server (default: the bundled mock, started in-process).
The CLIENT requirements run real clients against it (openai-node, the Vercel AI SDK, LangChain),
which contact no host but the server under test.

${testFlagHelp(TEST_FLAGS)}
Exit codes: 0 passed, 1 a requirement failed, 2 usage or configuration error or the server cannot
be reached (connection refused, DNS, TLS trust), 4 none failed but some were undecided (the run's
deadline passed, or 429s after waiting), or the run sent no token without --no-token (none named,
$IARI_TOKEN unset: AUTH, ME, USAGE, RCPT not tested), 130 interrupted.
`;

export interface TestDeps {
  /** A bundled mock already started by the caller (iari start); it stays open afterwards. */
  mock?: MockServer;
  /** The run id of a caller that owns the run (iari start: one id for its three steps). */
  runId?: string;
}

export async function run(argv: string[], deps: TestDeps = {}): Promise<number> {
  // The run's clock starts now: starting the mock, the preflight and the checks all count.
  const startedAt = Date.now();
  const { values } = parseFlags('test', argv, testFlagSpec);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const valid = validateTestOptions(testOptionsFromFlags(values), 'iari test', testFlagName);
  const baseline = loadBaselineFlags(values.baseline, values['server-version'], values['write-baseline']);

  // iari start (a mock handed in) goes on to a load run in this process: its main thread keeps V8's defaults.
  if (deps.mock === undefined) keepYoungGenerationSize();
  const onSigint = (): void => process.exit(ExitCode.interrupted);
  process.once('SIGINT', onSigint);
  try {
    const runDir = createRunDir({ report: values.report, ...(deps.runId === undefined ? {} : { id: deps.runId }) });
    // Issue 37 item 3: progress on stderr at least every 10 s, on a terminal and in CI logs alike; none with --json.
    const progress =
      values.json === true
        ? undefined
        : testProgress({ write: (text) => process.stderr.write(text), tty: process.stderr.isTTY === true, deadlineAt: startedAt + (valid.timeouts.run ?? DEFAULT_RUN_TIMEOUT_MS) });
    let run;
    try {
      run = await conformanceRun(valid, {
        startedAt,
        runId: runDir.id,
        notice: (line) => process.stderr.write(`iari: ${line}\n`),
        ...(deps.mock === undefined ? {} : { mock: deps.mock }),
        ...(progress === undefined ? {} : { onResult: (r: CheckRun, done: number, total: number) => progress.onResult(r.ids, done, total) }),
      });
    } finally {
      progress?.stop();
    }
    const { report: raw, settings, secrets } = run;
    const redactor = createRedactor(secrets);
    const applied = baseline.file === undefined ? undefined : applyBaseline(raw, baseline.file, new Date().toISOString().slice(0, 10), baseline.serverVersion);
    const report = applied?.report ?? raw;
    const files = writeConformanceFiles(report, runDir, redactor);
    writeGithubOutputs(report, redactor);
    // One truth: the exit code follows from the report the files hold (a baseline applied).
    const outcome = runOutcome(report);
    if (values.json === true) {
      process.stdout.write(conformanceJson(report, redactor));
    } else {
      process.stdout.write(redactor.string(formatSummary(report)));
      for (const note of runDeadlineNotes('after', settings, report)) process.stderr.write(`iari: ${note}\n`);
      for (const note of applied === undefined ? [] : baselineNotes(applied.outcome)) process.stderr.write(`iari: ${redactor.string(note)}\n`);
      process.stdout.write(`\nreport: ${shownPath(values.report, files.reportHtml)}\n`);
    }
    if (baseline.writeTo !== undefined) {
      const written = writeBaselineFile(baseline.writeTo, report, baseline.file, redactor);
      process.stderr.write(`iari: wrote ${written} known failure(s) to ${baseline.writeTo}\n`);
    }
    return outcome === 'failed' ? ExitCode.conformanceFailed : outcome === 'undecided' ? ExitCode.inconclusive : ExitCode.ok;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

export type { ConformanceReport };
