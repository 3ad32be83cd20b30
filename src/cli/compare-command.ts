import { parseFlags } from './args.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { createRunDir, shownPath } from '../report/run-dir.ts';
import { createRedactor, sanitize } from '../report/redact.ts';
import { buildComparison, compareTable } from '../compare/compare-report.ts';
import { parseGate } from '../compare/gates.ts';
import { evaluateGates, runContext } from '../compare/gate-outcome.ts';
import { readAbSides, readNoiseCalibration, readSide } from '../compare/compare-inputs.ts';
import { comparedMetrics } from '../compare/load-compare.ts';
import { renderCompareReport } from '../compare/compare-html.ts';
import { percentileKeys } from '../load/results/load-result.ts';

export const COMPARE_HELP = `Usage: iari report compare BASE NEW|ABRUN [--fail-on GATE]... [--noise-floors FILE] [--inconclusive fail|pass]
                           [--min-effect 5%] [--seed N] [--report DIR] [--json]
       iari report noise RUN... [--report DIR] [--json]

Compares two runs. BASE and NEW are run directories (load.json and/or conformance.json, also under
load/ and conformance/ as the GitHub Action writes them) or single JSON files. One A/B run
(iari load --ab URL_B) compares its B side with its A side over the paired blocks.

Load: every metric and percentile (ttft, itl, tpot, e2e, ttfb, output_tps x p50..p99.9), throughput,
goodput and error rate, with both values, the change, a 95% interval of the change, a p-value and
whether it is significant, by a named test:
  blocks        percentiles: block bootstrap over the 1 s timeslices (whole seconds of requests
                resampled, 2000 seeded draws); needs 5 samples beyond the percentile per side
                (p95: 100 requests) and 4 whole seconds
  timeslices    throughput: Welch's t-test over the 1 s timeslices
  proportions   error rate, goodput: two-proportion z-test over the requests
  repeats       any metric, when both sides were run with iari load --repeat: Welch's t over the runs
  paired        an A/B run: one percentile difference per pair of blocks (windows with --ab-assign
                random), sign-test interval of their median (of the relative changes for % gates);
                rates: paired t over the blocks
blocks and timeslices are within each run: they do not see run-to-run noise (the machine's drift
between two runs). It comes from --repeat on both sides, from --noise-floors, or from an A/B run.
Conformance: new failures, fixed requirements and every changed verdict, by ID (known counts as
failing: fail -> known is not fixed).

Each gate trips (the change's 95% interval lies wholly beyond the threshold), holds (wholly on the
safe side) or is inconclusive, printed with its reason and what would decide it: too few samples or
seconds, an interval straddling the threshold, a within-run interval on the safe side with no
estimate of run-to-run noise (such an interval can trip a gate, never hold it), or a run flagged
invalid (its client could not keep up: no timing gate is decided on it).

Options:
  --fail-on GATE   regression gate (repeatable, or comma-separated):
                     ttft.p95>+10%          relative change of a metric (throughput.rps<-5% for drops)
                     e2e.p99>+200ms         absolute change of a duration
                     errors.rate>+0.5pp     change of a ratio in percentage points
                     conformance.new_fail>0 new failures (also conformance.fixed, conformance.changed);
                                            inconclusive when a requirement was tested on one side only
  --noise-floors FILE  run-to-run noise measured on your machine: noise.json written by
                   iari report noise over 3 or more identical runs (or one iari load --repeat run);
                   each row's interval becomes the wider of the within-run one and that spread
  --inconclusive fail|pass  fail (default): an inconclusive gate exits 4; pass: it exits 0 (still printed)
  --min-effect PCT smallest relative change the significant column calls significant (default 5%;
                   ratios use the test alone); gates use their own thresholds
  --seed N         seed of the bootstrap draws (default 1)
  --report DIR     write compare.json and compare.html there (default reports/<run-id>/)
  --json           print compare.json to stdout instead of the table

Exit codes: 0 every gate holds, 1 a conformance gate tripped, 2 usage or unreadable input,
3 a load gate tripped, 4 a gate is inconclusive (none tripped; --inconclusive pass makes it 0).
1 wins over 3, 3 over 4.
`;

const options = {
  'fail-on': { type: 'string', multiple: true },
  seed: { type: 'string' },
  'min-effect': { type: 'string' },
  'noise-floors': { type: 'string' },
  inconclusive: { type: 'string' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCompare(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('report compare', argv, options, true);
  if (values.help === true) {
    process.stdout.write(COMPARE_HELP);
    return ExitCode.ok;
  }
  const abRun = positionals.length === 1 ? readAbSides(positionals[0] as string) : null;
  if (positionals.length !== 2 && abRun === null) throw new HarnessError(HarnessErrorCode.USAGE, `iari report compare: give exactly two runs, BASE and NEW, or one A/B run (iari load --ab) (got ${positionals.length}${positionals.length === 1 ? ', not an A/B run' : ''})`);
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new HarnessError(HarnessErrorCode.USAGE, `iari report compare: --seed must be a non-negative integer, got "${values.seed}"`);
  const minEffectText = values['min-effect'] ?? '5%';
  const minEffectMatch = /^([0-9]+(?:\.[0-9]+)?)%$/.exec(minEffectText.trim());
  if (minEffectMatch === null || Number(minEffectMatch[1]) > 100) throw new HarnessError(HarnessErrorCode.USAGE, `iari report compare: --min-effect must be a percentage from 0% to 100%, e.g. 5%, got "${minEffectText}"`);
  const minEffect = Number(minEffectMatch[1]) / 100;
  const onInconclusive = values.inconclusive ?? 'fail';
  if (onInconclusive !== 'fail' && onInconclusive !== 'pass') throw new HarnessError(HarnessErrorCode.USAGE, `iari report compare: --inconclusive must be fail or pass, got "${onInconclusive}"`);
  const loadKeys = new Set<string>([
    ...comparedMetrics.flatMap((m) => percentileKeys.map((k) => `${m}.${k}`)),
    'throughput.rps',
    'throughput.ok_rps',
    'throughput.output_tokens_per_s',
    'errors.rate',
    'goodput.fraction',
    'goodput.rps',
  ]);
  // Gates are checked before any file is read: a typo is exit 2 whatever the inputs.
  const gates = (values['fail-on'] ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '').map((g) => parseGate(g, loadKeys));
  const [baseArg = '', newArg = ''] = positionals;
  const calibration = values['noise-floors'] === undefined ? null : readNoiseCalibration(values['noise-floors']);
  const base = abRun?.base ?? readSide(baseArg);
  const next = abRun?.next ?? readSide(newArg);
  const { report, notes } = buildComparison(base, next, seed, minEffect, calibration);
  report.gates = evaluateGates(gates, report.load?.rows ?? null, report.conformance, runContext(base.load, next.load));
  const redactor = createRedactor([]);
  const dir = createRunDir({ report: values.report });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  dir.write('compare.json', sanitize(json, redactor));
  dir.write('compare.html', sanitize(renderCompareReport(report, base.load, next.load, notes), redactor));
  if (values.json === true) process.stdout.write(json);
  else process.stdout.write(`${compareTable(report, notes)}\nreport: ${shownPath(values.report, dir.path('compare.html'))}\n`);
  const tripped = report.gates.filter((g) => g.outcome === 'trip');
  const open = report.gates.filter((g) => g.outcome === 'inconclusive');
  for (const g of tripped) process.stderr.write(`iari: ${g.message}\n`);
  for (const g of open) process.stderr.write(`iari: ${g.message}${onInconclusive === 'pass' ? ' (--inconclusive pass: not failing)' : ''}\n`);
  if (tripped.some((g) => g.scope === 'conformance')) return ExitCode.conformanceFailed;
  if (tripped.length > 0) return ExitCode.thresholdBreached;
  if (open.length > 0 && onInconclusive === 'fail') return ExitCode.inconclusive;
  return ExitCode.ok;
}
