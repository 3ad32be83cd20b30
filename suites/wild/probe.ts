/**
 * Prints what iari says about recorded exchanges: `npx tsx suites/wild/probe.ts [FILE|ID]...`
 * (no argument: the whole corpus). For each exchange: how often the recording was served, then
 * every requirement its checks decide, marking the ones the exchange asserts and whether iari
 * agrees. Use it when adding an exchange, after deriving its verdicts from the rubric, never
 * instead of deriving them.
 */
import { loadCorpus, loadExchange } from './corpus.ts';
import { describeOutcome, judgeExchange, startWildMock } from './wild-run.ts';

const args = process.argv.slice(2);
const corpus = loadCorpus();
const selected = args.length === 0 ? corpus : args.map((a) => (a.endsWith('.json') ? loadExchange(a) : corpus.find((e) => e.id === a) ?? loadExchange(a)));
const mock = await startWildMock();
try {
  for (const ex of selected) {
    const run = await judgeExchange(mock, ex);
    process.stdout.write(`\n${ex.id} (${ex.server} ${ex.version}): served ${run.served}x\n`);
    for (const [id, o] of [...run.outcomes].sort(([a], [b]) => a.localeCompare(b))) {
      const want = ex.verdicts[id]?.verdict;
      const mark = want === undefined ? '   ' : want === o.verdict ? 'ok ' : 'XX ';
      process.stdout.write(`  ${mark}${id.padEnd(16)} ${want === undefined ? '' : `want ${want}; `}${describeOutcome(o).slice(0, 220)}\n`);
    }
  }
} finally {
  await mock.close();
}
