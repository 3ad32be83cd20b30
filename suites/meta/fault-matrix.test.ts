import { describe, expect, it } from 'vitest';
import { startMockServer, faults } from '../../mock-server/index.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import { createCheckContext } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import { gradeFor } from '../../src/checks/registry/registry-view.ts';
import type { MetricsFault } from '../../mock-server/core/metrics-route.ts';
import { mockSettings, runOnOwnMock, runsChatClients, summary, touchesCancel, useMatrix } from './fault-matrix-harness.ts';

// Proof that each check can fail (DESIGN.md, Conformance model), fault-matrix-harness.ts: the faithful
// mock passes everything, and every fault that does not run chat's client operations is detected as
// exactly what it breaks (those that do are in fault-matrix-clients.test.ts, run beside this file).

const { get, faultTest } = useMatrix('fault matrix (without chat\'s client operations)');

describe('fault matrix', () => {
  it('the faithful mock passes every check: nothing fails or is non-strict', () => {
    const { mx, base } = get();
    const bad = [...base.plain.values(), ...base.fakeClock.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'non-strict').map((o) => `${o.id}: ${summary(o)}`);
    expect(bad).toEqual([]);
    // openai-python's operations run (a skip would hide every fault below), unless its venv cannot be made here.
    const python = [...mx.pythonIds].map((id) => `${id}: ${base.plain.get(id)?.verdict ?? 'absent'}`);
    expect(python).toEqual([...mx.pythonIds].map((id) => `${id}: ${mx.py.skip === undefined ? 'pass' : 'skipped'}`));
  });

  it('the faithful mock passes every check under --profile strict too (profile choices SHOULD), and a profile fault is then non-strict (D-GRADE-04)', async () => {
    const { mx } = get();
    const strict = gradeFor('strict');
    const all = await runOnOwnMock(mx, catalog, { profile: 'strict' }, strict);
    expect([...all.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'non-strict').map((o) => `${o.id}: ${summary(o)}`)).toEqual([]);
    const auth = catalog.filter((c) => c.area === 'auth');
    const broken = await runOnOwnMock(mx, auth, { profile: 'strict', fault: 'auth-401-wrong-type' }, strict);
    expect(broken.get('AUTH-009')?.verdict).toBe('non-strict');
    const plain = await runOnOwnMock(mx, auth, { fault: 'auth-401-wrong-type' });
    expect(plain.get('AUTH-009')?.verdict).toBe('informational');
    // A whole catalog run, the client operations included, as the baseline's (beforeAll): vitest's 30 s default ran out at load 16.
  }, 300_000);

  for (const f of faults.filter((x) => !runsChatClients(x) && !touchesCancel(x))) faultTest(f);
});

// The CANCEL faults' checks wait out their bounds (docs/cancellation.md), idle; each fault has its own
// mock (fault-matrix-harness.ts), so they wait side by side.
describe.concurrent('fault matrix: the CANCEL faults', () => {
  for (const f of faults.filter((x) => !runsChatClients(x) && touchesCancel(x))) faultTest(f);
});

// The mock's load-side metrics faults (its `metricsFaults` option, docs/server-metrics.md) are set on
// the server, not sent per request, so they are not catalogue faults; `iari test`'s metrics row sees
// them where their effect lands between its two reads around one request. Each fails exactly these
// IDs. An overcount is within METRICS-003 (a lower bound: other requests may run at the same time);
// only iari load's reconciliation, which owns the window, catches it (suites/load/server-metrics.test.ts).
// `counter-decreases` (every second read served at half) is not listed: iari test reads three times
// (the capability probe, before, after), so the halved read is `before` and the counter only rises
// between its two reads; METRICS-002's fault is the catalogue's metrics-counter-decreases (above).
const loadSideFaults: { fault: MetricsFault; breaks: string[] }[] = [
  { fault: 'undercount-generated', breaks: ['METRICS-003'] },
  { fault: 'overcount-generated', breaks: [] },
];

describe('fault matrix: the mock\'s load-side metrics faults under iari test', () => {
  const metricsChecks = catalog.filter((c) => c.area === 'metrics');
  for (const { fault, breaks } of loadSideFaults) {
    it(`metricsFaults ${fault}: ${breaks.length === 0 ? 'fails nothing in the metrics row' : `fails exactly ${breaks.join(', ')} in the metrics row`}`, async () => {
      const faulty = await startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, metricsFaults: [fault] });
      try {
        const outcomes = (await runChecksInProcess(createCheckContext(mockSettings(faulty, get().mx)), metricsChecks)).outcomes;
        const bad = [...outcomes.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'non-strict').map((o) => o.id).sort();
        expect(bad, [...outcomes.values()].map((o) => `${o.id}: ${summary(o)}`).join('\n')).toEqual(breaks);
        for (const id of ['METRICS-001', 'METRICS-002', 'METRICS-003']) if (!breaks.includes(id)) expect(outcomes.get(id)?.verdict, id).toBe('pass');
      } finally {
        await faulty.close();
      }
    });
  }
});
