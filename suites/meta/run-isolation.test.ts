/**
 * Two mocks and two conformance runs in one process at the same time (a library user, a test
 * runner, `iari start`): nothing of one may reach the other. Each run has its own `--header`
 * (which its dispatcher sends and its curl lines must carry), its own fault header, its own mock;
 * each mock keeps its own fault state. Everything that once lived in a module variable (the curl
 * lines' connection headers, the mock's per-request faults and its flapping counter, the running
 * check's signal) now travels with its run or mock instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { faultByName } from '../../mock-server/faults.ts';
import { runConformance } from '../../src/checks/runner/conformance-run.ts';
import type { RunSettings } from '../../src/checks/context/check-context.ts';
import { startRecordingProxy, type Recorder } from '../../test-support/recording-proxy.ts';

interface Side {
  name: string;
  fault: string;
  mock: MockServer;
  proxy: Recorder;
}

const sides: Side[] = [];

beforeAll(async () => {
  for (const [name, fault] of [
    ['run-a', 'usage-total-mismatch'],
    ['run-b', 'stream-no-done'],
  ] as const) {
    const mock = await startMockServer({ seed: 11, ttftMs: 0, itlMs: 0, jitterMs: 0, faults: ['invalid-role-status-flaps'] });
    sides.push({ name, fault, mock, proxy: await startRecordingProxy(mock.origin) });
  }
});

afterAll(async () => {
  for (const s of sides) {
    await s.proxy.close();
    await s.mock.close();
  }
});

function settings(s: Side): RunSettings {
  return {
    root: s.proxy.origin,
    token: s.mock.tokens.default,
    seed: 3,
    target: 'external',
    includeLimits: false,
    fault: s.fault,
    // Generous: two runs share a loaded machine, and a request cut by its deadline would fail IDs of its own.
    requestTimeoutMs: 60_000,
    checkTimeoutMs: 120_000,
    connection: { caFile: null, insecure: false, headers: [{ name: 'X-Iari-Run', value: s.name, source: 'literal' }] },
  };
}

describe('two runs and two mocks in one process stay apart', () => {
  it('each run sends only its own header and fault, fails only its own fault IDs, and its curl lines carry its own header', async () => {
    const [a, b] = sides as [Side, Side];
    const outputs = await Promise.all([a, b].map((s) => runConformance({ settings: settings(s), baseUrlDisplay: s.proxy.url, selection: { grade: 'all', only: [], skip: [] }, runId: s.name })));
    for (const [i, side] of [a, b].entries()) {
      const other = i === 0 ? b : a;
      const { report, errors } = outputs[i]!;
      expect(errors, side.name).toEqual([]);
      // What the server saw: this run's header and fault on every request, never the other's.
      expect(side.proxy.seen.length).toBeGreaterThan(50);
      expect(new Set(side.proxy.seen.map((r) => r.headers['x-iari-run']))).toEqual(new Set([side.name]));
      expect(side.proxy.seen.some((r) => r.headers['x-iari-fault'] === other.fault)).toBe(false);
      expect(side.proxy.seen.some((r) => r.headers['x-iari-fault'] === side.fault)).toBe(true);
      // What the run judged: its own fault's IDs fail, none that only the other's breaks.
      const failed = new Set(report.results.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict').map((r) => r.id));
      const own = new Set(faultByName(side.fault)?.breaks ?? []);
      const othersOnly = (faultByName(other.fault)?.breaks ?? []).filter((id) => !own.has(id));
      expect([...own].some((id) => failed.has(id)), `${side.name} fails ${side.fault}'s IDs`).toBe(true);
      expect(othersOnly.filter((id) => failed.has(id)), side.name).toEqual([]);
      // The curl lines that reproduce its failures carry its own --header, never the other run's.
      const curls = report.results.flatMap((r) => ('failures' in r ? (r.failures ?? []) : [])).flatMap((f) => (f.curl === undefined || f.curl === '' ? [] : [f.curl]));
      expect(curls.length, side.name).toBeGreaterThan(0);
      for (const c of curls) {
        expect(c, side.name).toContain(`X-Iari-Run: ${side.name}`);
        expect(c, side.name).not.toContain(other.name);
      }
    }
  }, 300_000);

  it('ERR-007: each mock flaps its own unknown-role answers 400, 422, 400, … however requests to the two interleave', async () => {
    const body = JSON.stringify({ model: 'iari-mini', messages: [{ role: 'wizard', content: 'hi' }] });
    const statuses: Record<string, number[]> = { 'run-a': [], 'run-b': [] };
    for (let i = 0; i < 4; i++) {
      for (const s of sides) {
        const res = await fetch(`${s.mock.url}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${s.mock.tokens.default}`, 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        statuses[s.name]!.push(res.status);
      }
    }
    expect(statuses).toEqual({ 'run-a': [400, 422, 400, 422], 'run-b': [400, 422, 400, 422] });
  });
});
