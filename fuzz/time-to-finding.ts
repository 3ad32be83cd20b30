import { corpusDir, readInputs } from './corpus.ts';
import { runFastCheck } from './engines/fast-check.ts';
import { targets } from './targets/index.ts';
import type { FuzzTarget } from './target.ts';

// How long the fuzz pass takes to find a known finding (docs/fuzzing.md, "The fuzz tier's budget"):
// in a scratch copy with the finding's fix reverted, `npx tsx fuzz/time-to-finding.ts TARGET SECONDS
// SEED...` runs the pass's fast-check mix on one target per seed, with the corpus but not
// fuzz/regressions (which holds the finding's input: it would be replayed at once), and prints, per
// seed, when the first input broke an invariant and when the run ended (shrinking included).
// A time-bound finding is not seen by the target's run but by fuzz/execute.ts: firstFailS is null then.

const [name, seconds, ...seeds] = process.argv.slice(2);
const base = targets.find((t) => t.name === name);
if (base === undefined || seconds === undefined || seeds.length === 0) {
  process.stderr.write(`usage: time-to-finding.ts TARGET SECONDS SEED... (targets: ${targets.map((t) => t.name).join(', ')})\n`);
  process.exit(2);
}
let first: number | undefined;
const mark = (error: unknown): never => {
  first ??= Date.now();
  throw error;
};
const target: FuzzTarget = {
  ...base,
  run: (bytes) => {
    try {
      const r = base.run(bytes) as unknown;
      return (r instanceof Promise ? r.catch(mark) : r) as ReturnType<FuzzTarget['run']>;
    } catch (error) {
      return mark(error);
    }
  },
};
const corpus = readInputs(corpusDir(process.cwd(), base.name));
for (const s of seeds) {
  const t0 = Date.now();
  first = undefined;
  const r = await runFastCheck(target, corpus, { seconds: Number(seconds), seed: Number(s) });
  process.stdout.write(`${JSON.stringify({ target: base.name, seed: Number(s), budgetS: Number(seconds), found: r.finding !== null, firstFailS: first === undefined ? null : (first - t0) / 1000, endS: (Date.now() - t0) / 1000, executions: r.executions })}\n`);
}
