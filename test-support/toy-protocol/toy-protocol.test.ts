import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultProtocols, type ProtocolList } from '../../src/protocols/registry.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { runConformance } from '../../src/library/conformance.ts';
import { runScenario } from '../../src/library/run-scenario.ts';
import { toyProtocol } from './toy-protocol.ts';
import { loadSections } from '../../src/load/results/load-sections.ts';
import { mergeResults } from '../../src/load/results/merge.ts';
import { summaryTable } from '../../src/load/results/summary.ts';
import { renderLoadReport } from '../../src/report/load-html.ts';

// A new API is one folder plus one list line: this list is the line; test-support/toy-protocol/ the folder.
const protocols: ProtocolList = [...defaultProtocols, toyProtocol];
const TOY = ['TOY-001', 'TOY-002', 'TOY-003'];

describe('a test-only API registered through the protocol contract', () => {
  let mock: MockServer;
  let faulty: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ protocols });
    faulty = await startMockServer({ protocols, faults: ['toy-seq-skips'] });
  });
  afterAll(async () => {
    await mock.close();
    await faulty.close();
  });

  it('TOY-001, TOY-002: the mock serves its route, validates its body naming the member, and knows its fault', async () => {
    const post = (m: MockServer, body: unknown): Promise<Response> => fetch(`${m.url}/toy/generate`, { method: 'POST', headers: { authorization: `Bearer ${m.tokens.default}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const streamed = await (await post(mock, { model: 'iari-mini', prompt: 'hi', max_units: 5, stream: true })).text();
    expect(streamed).toMatch(/^data: \{"seq":0,"text":/);
    const events = streamed.trimEnd().split('\n\n');
    expect(events.at(-1)).toMatch(new RegExp(`^data: \\{"done":true,"units":${events.length - 1},`));
    expect(events.length - 1).toBeLessThanOrEqual(5);
    const bad = await post(mock, { model: 'iari-mini', prompt: 3 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('prompt');
    expect((await (await post(faulty, { model: 'iari-mini', prompt: 'hi', max_units: 3, stream: true })).text())).toContain('"seq":2');
    // A mock that was not given the API does not serve it.
    const plain = await startMockServer();
    try {
      expect((await post(plain, { model: 'iari-mini', prompt: 'hi' })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('TOY-001, TOY-002, TOY-003: iari test judges it: a capability row, its requirements passing against the faithful mock', async () => {
    const { report } = await runConformance({ protocols, only: TOY });
    const row = report.capabilities?.find((c) => c.name === 'toy-stream');
    expect(row).toMatchObject({ status: 'honoured', outcome: 'judged', requirementIds: TOY });
    expect(report.results.filter((r) => TOY.includes(r.id)).map((r) => [r.id, r.verdict])).toEqual(TOY.map((id) => [id, 'pass']));
  });

  it('TOY-001: its mock fault fails exactly the requirement it names', async () => {
    const { report } = await runConformance({ baseUrl: faulty.url, token: faulty.tokens.default, protocols, only: TOY });
    expect(report.results.filter((r) => TOY.includes(r.id)).map((r) => [r.id, r.verdict])).toEqual([['TOY-001', 'fail'], ['TOY-002', 'pass'], ['TOY-003', 'pass']]);
  });

  it('TOY-001: a server without the API skips its requirements (a capability it never claimed), and --expect fails them', async () => {
    const plain = await startMockServer();
    try {
      const skipped = await runConformance({ baseUrl: plain.url, token: plain.tokens.default, protocols, only: TOY });
      expect(skipped.report.capabilities?.find((c) => c.name === 'toy-stream')?.status).toBe('absent');
      expect(skipped.report.results.filter((r) => TOY.includes(r.id)).map((r) => r.verdict)).toEqual(['skipped', 'skipped', 'skipped']);
      const expected = await runConformance({ baseUrl: plain.url, token: plain.tokens.default, protocols, only: TOY, expect: ['toy-stream'] });
      expect(expected.report.results.filter((r) => TOY.includes(r.id)).map((r) => r.verdict)).toEqual(['fail', 'fail', 'fail']);
    } finally {
      await plain.close();
    }
  });

  it('iari load sends it: every request to its route, checked by its checker on the check worker, timed by its output events', async () => {
    const { result } = await runScenario({ executor: { kind: 'closed', concurrency: 2 }, run: { requests: 12 } }, { protocols, api: 'toy-stream' });
    expect(result.counts.ok).toBe(12);
    expect(result.errors.total).toBe(0);
    expect(result.counts.tokenSource).toBe('usage');
    expect(result.metrics.ttft?.count).toBe(12);
  });

  it('iari load writes its own result section (Protocol.resultSections): in load.json, the exact shard merge, the summary, a report.html card and its SLO, through the list alone', async () => {
    const run = async (requests: number) => (await runScenario({ executor: { kind: 'closed', concurrency: 2 }, run: { requests }, slos: ['toy.units>=1'] }, { protocols, api: 'toy-stream' })).result;
    const [a, b] = [await run(5), await run(3)];
    const units = (r: object): { answers: number; units: number; textEvents: number } => (r as Record<string, { answers: number; units: number; textEvents: number }>)['toyUnits'] ?? { answers: -1, units: -1, textEvents: -1 };
    expect(units(a).answers).toBe(5);
    expect(units(a).units).toBe(a.counts.outputTokens);
    expect(units(a).textEvents).toBe(units(a).units);
    expect(a.slos.find((s) => s.metric === 'toy')).toMatchObject({ observed: units(a).units, passed: true });
    const list = loadSections({ protocols });
    const merged = mergeResults([{ ...a, shard: { index: 0, count: 2 } }, { ...b, shard: { index: 1, count: 2 } }], 'merged', list);
    expect(units(merged)).toMatchObject({ answers: 8, units: units(a).units + units(b).units });
    expect(merged.slos.find((s) => s.metric === 'toy')).toMatchObject({ observed: units(merged).units, passed: true });
    expect(summaryTable(merged, list)).toContain(`toy units: ${units(merged).units} in 8 answers`);
    expect(renderLoadReport(merged, list)).toMatch(/<section class="card" id="toy-units"><h2>Toy units<\/h2>/);
    // Without the toy API in the list, its section is neither written nor known to --slo.
    const chat = (await runScenario({ executor: { kind: 'closed', concurrency: 2 }, run: { requests: 2 } }, { protocols })).result;
    expect('toyUnits' in chat).toBe(false);
    await expect(runScenario({ executor: { kind: 'closed', concurrency: 2 }, run: { requests: 2 }, slos: ['toy.units>=1'] })).rejects.toThrow(/unknown metric "toy"/);
  });

  it('iari load judges its answers by its rules: the mock fault makes every streamed answer nonconforming (TOY-001, a MUST)', async () => {
    const { result } = await runScenario({ target: { baseUrl: faulty.url }, executor: { kind: 'closed', concurrency: 2 }, run: { requests: 6 } }, { protocols, api: 'toy-stream', token: faulty.tokens.default });
    expect(result.errors.byClass['stream_nonconforming']).toBe(6);
  });
});
