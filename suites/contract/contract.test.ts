// The vitest adapter over iari's check catalog, for people who want the checks as vitest tests:
//   IARI_BASE_URL=https://your-server.example/v1 IARI_TOKEN=... npx vitest run suites/contract
// Without IARI_BASE_URL it judges the bundled mock, started in-process (so `npm test` runs it too).
// One test per check, titled with the requirement IDs it decides; a test fails when one of them
// fails (a MUST broken, or not decided). The same catalog, options and deadlines as `iari test`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAreas, type CheckContext } from '../../src/checks/context/check-types.ts';
import { checksOfArea, testTitle } from '../../src/checks/runner/catalog.ts';
import { createCheckContext } from '../../src/checks/context/check-context.ts';
import { runCheck } from '../../src/checks/runner/check-runner.ts';
import { gradeFor } from '../../src/checks/registry/registry-view.ts';
import { readToken } from '../../src/client/token.ts';
import { openRun, type OpenRun } from '../../src/library/conformance.ts';
import { validateTestOptions } from '../../src/library/test-options.ts';
import { createRedactor } from '../../src/report/redact.ts';

const baseUrl = process.env['IARI_BASE_URL'];
const valid = validateTestOptions(
  {
    ...(baseUrl === undefined || baseUrl === '' ? {} : { baseUrl, token: readToken('suites/contract', {}) }),
    ...(process.env['IARI_INCLUDE_LIMITS'] === '1' ? { includeLimits: true } : {}),
  },
  'suites/contract',
);
const grade = gradeFor(valid.profile);
let run: OpenRun | undefined;
let ctx: CheckContext | undefined;

beforeAll(async () => {
  run = await openRun(valid, { notice: (line) => process.stderr.write(`iari: ${line}\n`) });
  ctx = createCheckContext(run.settings);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await run?.close();
});

// An area without checks in the default catalog (`protocols`: the exchanges an API of your own declares) gets no block.
for (const area of checkAreas.filter((a) => checksOfArea(a).length > 0)) {
  describe(area, () => {
    for (const def of checksOfArea(area)) {
      it(testTitle(def), async () => {
        if (ctx === undefined || run === undefined) throw new Error('the run did not open');
        const redact = createRedactor(run.secrets);
        const outcomes = await runCheck(def, ctx, grade);
        const failures = outcomes.flatMap((o) => (o.verdict === 'fail' ? o.failures.map((f) => redact.string(`${o.id}: ${f.message}`)) : []));
        expect(failures).toEqual([]);
        // A check decides every ID it declares: none is left without an outcome.
        expect(outcomes.map((o) => o.id)).toEqual(expect.arrayContaining([...def.ids]));
      }, 600_000);
    }
  });
}
