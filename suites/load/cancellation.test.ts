import { afterEach, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { cancelPointFor } from '../../src/load/executors/cancellation.ts';
import { summaryTable } from '../../src/load/results/summary.ts';
import type { WorkloadSpec } from '../../src/load/workloads/workload.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cancelPlan, loadConfig, serverLoadConfig, serverMetricsDefault, startLoadMock } from './load-fixtures.ts';

/**
 * --cancel-rate against the bundled mock: a cut request is disconnected on the wire (the mock logs
 * it interrupted and stops it), and with --server-metrics the run times the server's release and
 * says whether its running count came back: a leak against `cancel-leaks-slot`, never a "no leak"
 * it could not observe.
 */

describe('iari load --cancel-rate against the mock', () => {
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it('LOAD-CANCEL: every cut request is closed on the wire (the mock logs it interrupted) and every request not cut completes, on both undici loops', async () => {
    mock = await startLoadMock({ ttftMs: 60, itlMs: 10, completionTokens: 24 });
    for (const mode of [{ kind: 'closed', concurrency: 4, engine: 'undici' }, { kind: 'open', rate: 20, arrival: 'constant' }] as const) {
      for (const after of ['prefill', '3tokens', '100ms']) {
        const { result, records } = await runLoadConfig(loadConfig(mock, mode, { durationS: 0.6, checkIn: 'in-process', cancellation: cancelPlan(0.5, after) }));
        const cut = records.filter((r) => r.phase === 'cancelled');
        const done = records.filter((r) => r.phase === 'measure');
        const label = `${mode.kind} ${after}`;
        expect(cut.length, label).toBeGreaterThan(0);
        expect(done.length, label).toBeGreaterThan(0);
        expect(result.cancellation?.cancelled, label).toBe(cut.length);
        expect(result.errors.total, label).toBe(0);
        // Give the mock a moment to see the last disconnects.
        await new Promise((r) => setTimeout(r, 100));
        for (const r of cut) expect(mock.sendLog.get(r.requestId ?? '')?.interrupted, `${label}: cut ${r.requestId}`).toBe(true);
        for (const r of done) expect(mock.sendLog.get(r.requestId ?? '')?.interrupted, `${label}: done ${r.requestId}`).toBe(false);
        if (after === 'prefill') expect(result.cancellation?.phase.decode, label).toBe(0);
        if (after === '3tokens') expect(cut.every((r) => (r.cancelled?.tokens ?? 0) >= 3), label).toBe(true);
      }
    }
  }, 60_000);

  it('CANCEL-007: with --server-metrics a faithful mock releases every cut and its running count comes back; cancel-leaks-slot is reported as a leak on the summary and in load.json', async () => {
    mock = await startLoadMock({ ttftMs: 40, itlMs: 10, completionTokens: 40, capacity: 4 });
    const ok = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'undici' }, { durationS: 1.5, checkIn: 'in-process', cancellation: cancelPlan(0.3, '5tokens'), serverMetrics: serverMetricsDefault }));
    const c = ok.result.cancellation;
    expect(c?.cancelled).toBeGreaterThan(0);
    expect(c?.leak?.verdict).toBe('released');
    expect(c?.release).toMatchObject({ unreleased: 0 });
    expect(c?.release?.released).toBe(c?.release?.cuts);
    expect(c?.release?.maxMs).toBeLessThan(1000);
    expect(summaryTable(ok.result)).toMatch(/server leak check: released: running \+ waiting back to 0/);
    await mock.close();

    mock = await startLoadMock({ ttftMs: 40, itlMs: 10, completionTokens: 40, capacity: 8, faults: ['cancel-leaks-slot'] });
    // The requests chosen to be cut get answers of 400 tokens: every cut comes before the answer's end, however loaded the machine (an answer that ended first is no cut to leak).
    const chosen = cancelPlan(0.3, '5tokens');
    const long = (seq: number): Record<string, string> | undefined => (cancelPointFor(chosen, 1, seq, 64) === null ? undefined : { 'x-iari-completion-tokens': '400' });
    const leaking = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 4, engine: 'undici' }, { durationS: 1.5, checkIn: 'in-process', cancellation: chosen, serverMetrics: serverMetricsDefault, maxTokens: 1000, extraHeaders: long }));
    const l = leaking.result.cancellation;
    expect(l?.cancelled).toBeGreaterThan(0);
    expect(l?.leak).toMatchObject({ verdict: 'leak', before: 0 });
    expect(l?.leak?.after).toBe(l?.cancelled);
    expect(l?.release?.unreleased).toBe(l?.cancelled);
    expect(summaryTable(leaking.result)).toMatch(/server leak check: LEAK: the server still holds \d+ requests? more than before the run/);
  }, 60_000);

  it('CANCEL-007: a server without a running gauge, or a run without --server-metrics, is "not observed", never "no leak"', async () => {
    mock = await startLoadMock({ ttftMs: 40, itlMs: 10, completionTokens: 24 });
    const without = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, { durationS: 0.5, checkIn: 'in-process', cancellation: cancelPlan(0.5, 'prefill') }));
    expect(without.result.cancellation?.leak).toBeNull();
    expect(summaryTable(without.result)).toContain('server leak check: not observed');
    // The metrics URL answers, but with nothing iari maps (the models list): no running count to read.
    const unmapped = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 2, engine: 'undici' }, { durationS: 0.5, checkIn: 'in-process', cancellation: cancelPlan(0.5, 'prefill'), serverMetrics: { ...serverMetricsDefault, url: `${mock.url}/models` } }));
    expect(unmapped.result.cancellation?.leak?.verdict).toBe('not observed');
    expect(summaryTable(unmapped.result)).toContain('server leak check: not observed');
    expect(summaryTable(unmapped.result)).not.toMatch(/leak check: (released|LEAK)/);
  }, 30_000);

  it('LOAD-CANCEL: an answer that is an error at its head stays that error: a prefill cut never hides a 500', async () => {
    const server = createServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"down","type":"server_error"}}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { result } = await runLoadConfig(serverLoadConfig({ baseUrl: base, token: 'test-token-0123', model: 'm', target: 'external' }, { kind: 'closed', concurrency: 2, engine: 'undici' }, { durationS: null, requests: 6, checkIn: 'in-process', prime: false, cancellation: cancelPlan(1, 'prefill') }));
      expect(result.errors.byClass.http_status).toBe(6);
      expect(result.cancellation).toMatchObject({ chosen: 6, cancelled: 0, endedFirst: 6 });
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 30_000);

  it('LOAD-CANCEL: in a conversation a cut turn ends it: no later turn of that conversation is sent, and it does not count as completed', async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: 2, completionTokens: 12 });
    const workload: WorkloadSpec = { input: { kind: 'synthetic', length: { mean: 24, stdev: 0 } }, output: null, maxTokensField: 'max_tokens', extraBody: null, conversation: { turns: { mean: 3, stdev: 0 }, thinkTimeMs: 0 } };
    const { result, records } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'undici' }, { durationS: 1, checkIn: 'in-process', workload, cancellation: cancelPlan(0.3, '2tokens') }));
    const cut = records.filter((r) => r.phase === 'cancelled');
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) {
      expect(c.turn, JSON.stringify(c)).toBeDefined();
      const later = records.filter((r) => r.conversation === c.conversation && (r.turn ?? 0) > (c.turn ?? 0));
      expect(later, `conversation ${c.conversation} went on after its turn ${c.turn} was cut`).toEqual([]);
    }
    expect(result.turns?.conversationsCompleted).toBeLessThan(result.turns?.conversationsStarted ?? 0);
    expect(result.errors.total).toBe(0);
  }, 30_000);
});
