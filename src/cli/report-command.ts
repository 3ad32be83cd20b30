import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseFlags } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir, newRunId } from '../report/run-dir.ts';
import { createRedactor } from '../report/redact.ts';
import { writeLoadFiles } from '../report/load-files.ts';
import { assertLoadResult, mergeResults } from '../load/results/merge.ts';
import { readRecordFile } from '../load/results/record-log.ts';
import type { LoadResult, RequestRecord } from '../load/results/load-result.ts';
import { summaryTable } from '../load/results/summary.ts';
import { COMPARE_HELP, runCompare } from './compare-command.ts';
import { NOISE_HELP, runNoise } from './noise-command.ts';

const HELP = `Usage: iari report merge DIR|FILE... [--report OUT] [--json]

Merges the load results of shards (iari load --shard i/n) exactly: HDR histograms add bucket by
bucket, counts and error classes add, timeslices add by second, SLOs are evaluated again on the
merged figures. Each argument is a run directory holding load.json, or a load.json file.

Options:
  --report DIR   write the merged load.json, requests.ndjson, junit.xml and report.html there
                 (default reports/<run-id>/)
  --json         print the merged load.json to stdout instead of the summary table

Exit codes: 0 merged and SLOs met, 2 usage or unreadable input, 3 an SLO is breached on the merge.
`;

const options = {
  report: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function readResult(arg: string): { result: LoadResult; dir: string | null } {
  const isDir = existsSync(arg) && statSync(arg).isDirectory();
  const file = isDir ? join(arg, 'load.json') : arg;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report merge: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report merge: ${file} is not JSON`);
  }
  return { result: assertLoadResult(parsed, file), dir: isDir ? arg : null };
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(`${HELP}\n${COMPARE_HELP}\n${NOISE_HELP}`);
    return sub === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (sub === 'compare') return runCompare(rest);
  if (sub === 'noise') return runNoise(rest);
  if (sub !== 'merge') throw new HarnessError(HarnessErrorCode.USAGE, `iari report: unknown subcommand "${sub}"`, { hint: 'iari report merge DIR... | iari report compare BASE NEW | iari report noise RUN...' });
  const { values, positionals } = parseFlags('report merge', rest, options, true);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  if (positionals.length === 0) throw new HarnessError(HarnessErrorCode.USAGE, 'iari report merge: give at least one run directory or load.json');
  const inputs = positionals.map(readResult);
  const runId = newRunId();
  const merged = mergeResults(inputs.map((i) => i.result), runId);
  const dir = createRunDir({ report: values.report, id: runId });
  // Read one line at a time and written as read: shards of a day-long run never sit in memory (issue 43).
  const records = shardRecords(inputs.flatMap((i) => (i.dir === null || !existsSync(join(i.dir, 'requests.ndjson')) ? [] : [join(i.dir, 'requests.ndjson')])));
  // A bad line is refused before anything is written.
  for (const f of records.files) for (const _ of readRecordFile(f)) void _;
  writeLoadFiles(merged, records.all(), dir, createRedactor([]));
  if (values.json === true) process.stdout.write(JSON.stringify(merged, null, 2) + '\n');
  else process.stdout.write(summaryTable(merged) + `\nmerged ${inputs.length} result(s): ${relative(process.cwd(), dir.dir) || '.'}/load.json\n`);
  return merged.slosPassed ? ExitCode.ok : ExitCode.thresholdBreached;
}

/** The shards' requests.ndjson files, read back one after the other. */
function shardRecords(files: readonly string[]): { files: readonly string[]; all: () => Iterable<RequestRecord> } {
  return {
    files,
    all: function* () {
      for (const f of files) yield* readRecordFile(f);
    },
  };
}
