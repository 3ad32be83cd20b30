import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { loadCorpus } from './corpus.ts';
import { pending, pendingFor } from './pending.ts';
import { describeOutcome, judgeExchange, startWildMock } from './wild-run.ts';

// Calibration from the wild (issue 10 part 6): iari's own checks run against a replay server that
// answers like the real server on the recorded route, and must give exactly the verdicts the
// grading rubric derives for each exchange (fixtures/wild/, docs/wild-corpus.md). Where they
// disagreed, the check or the grade was changed, never the rubric-derived verdict; a fix still
// open in another engineer's work is listed in pending.ts and accepted as iari says it today or
// as the rubric says (so the owner's change lands without touching this suite); the entry is
// deleted once it has landed.

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
      // A pending disagreement may be either side: as iari says it today, or (once the owner's fix
      // lands on main, which this branch cannot see in advance) as the rubric says; nothing else.
      const accepted = (id: string): string[] => [ex.verdicts[id]?.verdict ?? 'absent', ...(pendingFor(ex.id, id) === undefined ? [] : [pendingFor(ex.id, id)?.current ?? 'absent'])];
      const want = Object.fromEntries(ids.map((id) => [id, accepted(id).includes(got[id] ?? 'absent') ? got[id] : accepted(id).join(' or ')]));
      const why = ids
        .filter((id) => got[id] !== want[id])
        .map((id) => `${id}: want ${want[id]} (${ex.verdicts[id]?.rubric}); iari: ${describeOutcome(run.outcomes.get(id)).slice(0, 300)}`);
      expect(got, `${ex.id}\n${why.join('\n')}`).toEqual(want);
    });
  }
});
