// `iari report noise RUN...`: the run-to-run noise of one configuration on this machine, for
// `iari report compare --noise-floors` (src/compare/noise-calibration.ts).
import { relative } from 'node:path';
import { parseFlags } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir } from '../report/run-dir.ts';
import { readSide } from '../compare/compare-inputs.ts';
import { calibrate, type NoiseCalibration } from '../compare/noise-calibration.ts';

export const NOISE_HELP = `Usage: iari report noise RUN... [--report DIR] [--json]

Measures run-to-run noise where you run: give 3 or more runs of one configuration against one
server (run directories or load.json files; an iari load --repeat run counts as all its runs;
5 or more measure the spread far better). Writes noise.json: per row key (ttft.p95,
throughput.rps, ...) the standard deviation of one run's value (of its logarithm, a relative
spread, for durations and rates) and the 95% half-width of the difference of two single runs.
iari report compare --noise-floors noise.json widens each row's within-run interval to it, so
a gate can hold, or trip, with the machine's drift between runs accounted for. Calibrate again
when the machine, the server or the load changes.

Options:
  --report DIR   write noise.json there (default reports/<run-id>/)
  --json         print noise.json to stdout instead of the table

Exit codes: 0 written, 2 usage or unreadable input (fewer than 3 runs, runs of different loads).
`;

const options = {
  report: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SHOWN = ['ttft.p50', 'ttft.p95', 'ttft.p99', 'itl.p50', 'itl.p95', 'itl.p99', 'e2e.p50', 'e2e.p95', 'tpot.p95', 'throughput.rps', 'throughput.output_tokens_per_s', 'errors.rate'];

function table(c: NoiseCalibration): string {
  const lines = [`run-to-run noise over ${c.runs} runs at ${c.config.mode}, max_tokens ${c.config.maxTokens}, ${c.config.windowS.toFixed(0)} s windows:`];
  lines.push(`${'metric'.padEnd(32)}  two runs differ by (95%)`);
  for (const k of SHOWN) {
    const x = c.keys[k];
    if (x === undefined) continue;
    const spread = x.scale === 'log' ? `×/÷ ${Math.exp(x.halfWidth).toFixed(3)} (±${((Math.exp(x.halfWidth) - 1) * 100).toFixed(1)}%)` : `±${(x.halfWidth * 100).toFixed(2)}pp`;
    lines.push(`${k.padEnd(32)}  ${spread}`);
  }
  lines.push(`(${Object.keys(c.keys).length} keys in noise.json)`);
  return lines.join('\n');
}

export async function runNoise(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('report noise', argv, options, true);
  if (values.help === true) {
    process.stdout.write(NOISE_HELP);
    return ExitCode.ok;
  }
  if (positionals.length === 0) throw new HarnessError(HarnessErrorCode.USAGE, 'iari report noise: give 3 or more runs of one configuration (run directories or load.json files)');
  const results = positionals.map((p) => {
    const side = readSide(p);
    if (side.load === null) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report noise: ${p} holds no load.json`);
    return side.load;
  });
  const calibration = calibrate(results);
  const dir = createRunDir({ report: values.report });
  const json = `${JSON.stringify(calibration, null, 2)}\n`;
  const file = dir.write('noise.json', json);
  if (values.json === true) process.stdout.write(json);
  else process.stdout.write(`${table(calibration)}\nwritten: ${relative(process.cwd(), file)} (use: iari report compare BASE NEW --noise-floors ${relative(process.cwd(), file)})\n`);
  return ExitCode.ok;
}
