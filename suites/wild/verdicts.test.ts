import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { loadCorpus } from './corpus.ts';
import { pending, pendingFor } from './pending.ts';
import { describeOutcome, judgeExchange, startWildMock } from './wild-run.ts';

// Calibration from the wild (issue 10 part 6): iari's own checks run against a replay server that
// answers like the real server on the recorded route, and must give exactly the verdicts the
// grading rubric derives for each exchange (fixtures/wild/, docs/wild-corpus.md). Where they
// disagreed, the check or the grade was changed, never the rubric-derived verdict; a fix still
// open in another engineer's work is listed in pending.ts and asserted as iari says it today.

const corpus = loadCorpus();
let mock: MockServer;

beforeAll(async () => {
  mock = await startWildMock();
});
afterAll(async () => {
  await mock?.close();
});

describe('wild corpus: iari gives every recorded exchange the verdicts the rubric derives', () => {
  it('every pending disagreement names an exchange and a requirement it asserts, and differs from the rubric', () => {
    for (const p of pending) {
      const ex = corpus.find((e) => e.id === p.exchange);
      expect(ex?.verdicts[p.id], `${p.exchange} ${p.id}`).toBeDefined();
      expect(ex?.verdicts[p.id]?.verdict, `${p.exchange} ${p.id}`).not.toBe(p.current);
    }
  });

  for (const ex of corpus) {
    const ids = Object.keys(ex.verdicts).sort();
    it(`${ids.join(', ')}: ${ex.server} ${ex.version}: ${ex.summary}`, async () => {
      const run = await judgeExchange(mock, ex);
      // A verdict the recording never reached would test the mock, not the real server.
      expect(run.served, `${ex.id}: no request of iari's checks matched the recording`).toBeGreaterThan(0);
      const got = Object.fromEntries(ids.map((id) => [id, run.outcomes.get(id)?.verdict ?? 'absent']));
      const want = Object.fromEntries(ids.map((id) => [id, pendingFor(ex.id, id)?.current ?? ex.verdicts[id]?.verdict]));
      const why = ids
        .filter((id) => got[id] !== want[id])
        .map((id) => {
          const p = pendingFor(ex.id, id);
          if (p !== undefined && got[id] === ex.verdicts[id]?.verdict) return `${id}: the ${p.owner} fix landed (iari now says ${got[id]}, as the rubric does): delete this entry from suites/wild/pending.ts and its row's status in docs/wild-corpus.md`;
          return `${id}: want ${want[id]} (${ex.verdicts[id]?.rubric}); iari: ${describeOutcome(run.outcomes.get(id)).slice(0, 300)}`;
        });
      expect(got, `${ex.id}\n${why.join('\n')}`).toEqual(want);
    });
  }
});
