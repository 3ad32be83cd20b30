import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseFlags } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir, newRunId } from '../report/run-dir.ts';
import { createRedactor } from '../report/redact.ts';
import { writeLoadFiles } from '../report/load-files.ts';
import { assertLoadResult, mergeResults } from '../load/results/merge.ts';
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
  const records: RequestRecord[] = [];
  for (const i of inputs) {
    if (i.dir === null) continue;
    const f = join(i.dir, 'requests.ndjson');
    if (!existsSync(f)) continue;
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line) as RequestRecord);
      } catch {
        throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report merge: ${f} has a line that is not JSON`);
      }
    }
  }
  writeLoadFiles(merged, records, dir, createRedactor([]));
  if (values.json === true) process.stdout.write(JSON.stringify(merged, null, 2) + '\n');
  else process.stdout.write(summaryTable(merged) + `\nmerged ${inputs.length} result(s): ${relative(process.cwd(), dir.dir) || '.'}/load.json\n`);
  return merged.slosPassed ? ExitCode.ok : ExitCode.thresholdBreached;
}
