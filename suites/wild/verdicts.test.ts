import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { loadCorpus } from './corpus.ts';
import { describeOutcome, judgeExchange, startWildMock } from './wild-run.ts';

// Calibration from the wild (issue 10 part 6): iari's own checks run against a replay server that
// answers like the real server on the recorded route, and must give exactly the verdicts the
// grading rubric derives for each exchange (fixtures/wild/, docs/wild-corpus.md). Where they
// disagreed, the check or the grade was changed, never the rubric-derived verdict.

const corpus = loadCorpus();
let mock: MockServer;

beforeAll(async () => {
  mock = await startWildMock();
});
afterAll(async () => {
  await mock?.close();
});

describe('wild corpus: iari gives every recorded exchange the verdicts the rubric derives', () => {
  for (const ex of corpus) {
    const ids = Object.keys(ex.verdicts).sort();
    it(`${ids.join(', ')}: ${ex.server} ${ex.version}: ${ex.summary}`, async () => {
      const run = await judgeExchange(mock, ex);
      // A verdict the recording never reached would test the mock, not the real server.
      expect(run.served, `${ex.id}: no request of iari's checks matched the recording`).toBeGreaterThan(0);
      const got = Object.fromEntries(ids.map((id) => [id, run.outcomes.get(id)?.verdict ?? 'absent']));
      const want = Object.fromEntries(ids.map((id) => [id, ex.verdicts[id]?.verdict ?? 'absent']));
      const why = ids
        .filter((id) => got[id] !== want[id])
        .map((id) => `${id}: want ${want[id]} (${ex.verdicts[id]?.rubric}); iari: ${describeOutcome(run.outcomes.get(id)).slice(0, 300)}`);
      expect(got, `${ex.id}\n${why.join('\n')}`).toEqual(want);
    });
  }
});
