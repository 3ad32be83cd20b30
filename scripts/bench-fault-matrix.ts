import { faults } from '../mock-server/index.ts';
import { catalog } from '../src/checks/runner/catalog.ts';
import { checksFor, expectOf, runOnOwnMock, setUpMatrix } from '../suites/meta/fault-matrix-harness.ts';

// The fault matrix's cut of the CLIENT operations (issue 41 item 4), as farm-bench pairs it:
//   farm-bench -n 3 --timeout 1800 --vs 'npx tsx scripts/bench-fault-matrix.ts every' -- npx tsx scripts/bench-fault-matrix.ts scoped
// runs a sample of the faults applied on one API's routes (chat's wire and the Responses API's)
// with the client operations the matrix now runs (scoped: that API's) or with every one of them, as
// before (every). It then waits for openai-python's drivers to end on their own (30 s idle), so
// their CPU is in the process's own accounting.

const mode = process.argv[2] === 'every' ? 'every' : 'scoped';
const sample = ['stream-disconnect', 'content-missing', 'tool-arguments-object', 'stream-no-chunks', 'responses-content-string', 'responses-stream-no-terminal'];
const mx = setUpMatrix();
for (const name of sample) {
  const f = faults.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no fault ${name}`);
  const scoped = checksFor(f);
  // Before the cut: every check of the areas the fault touches, every CLIENT operation among them.
  const areas = new Set(scoped.map((c) => c.area));
  const checks = mode === 'scoped' ? scoped : catalog.filter((c) => areas.has(c.area));
  const declared = expectOf(name);
  await runOnOwnMock(mx, checks, { fault: name, ...(declared === undefined ? {} : { expect: declared }) });
}
await new Promise((resolve) => setTimeout(resolve, 35_000));
process.stdout.write(`${mode}: ${sample.length} faults\n`);
