import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer, MockRequest, MockResponse } from '../../mock-server/index.ts';
import type { RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import type { WorkloadSpec } from '../../src/load/workloads/workload.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

interface Seen {
  messages: { role: string; content: string }[];
  /** The answer text the mock streamed back. */
  answer: string;
}

/**
 * Conversations against the mock: what the mock received (its handler wrapped) is the ground truth
 * that every later turn carries the whole history with the mock's own earlier answers, in order.
 * Responses are checked in-process: no check worker to start per run (fidelity.test.ts shows both
 * check the same events, token counts and stamps).
 */
describe('multi-turn conversations against the mock', () => {
  let mock: MockServer;
  const seen = new Map<string, Seen>();
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 10, itlMs: 1, completionTokens: 6, prefixCache: { blockTokens: 16, capacityBlocks: 100_000, prefillMsPerToken: 0 } });
    const handle = mock.core.handle.bind(mock.core);
    mock.core.handle = (req: MockRequest): MockResponse => {
      const res = handle(req);
      if (res.kind === 'stream') {
        const body = JSON.parse(Buffer.from(req.body).toString('utf8')) as { messages: Seen['messages'] };
        seen.set(res.requestId, { messages: body.messages, answer: res.events.filter((e) => e.text !== undefined && e.call === undefined).map((e) => e.text).join('') });
      }
      return res;
    };
  });
  afterAll(() => mock.close());

  const spec = (turns: number, thinkTimeMs: number): WorkloadSpec => ({ input: { kind: 'synthetic', length: { mean: 24, stdev: 0 } }, output: null, maxTokensField: 'max_tokens', extraBody: null, conversation: { turns: { mean: turns, stdev: 0 }, thinkTimeMs } });
  const byConversation = (records: RequestRecord[]): Map<number, RequestRecord[]> => {
    const out = new Map<number, RequestRecord[]>();
    for (const r of records) {
      if (r.phase === 'aborted' || r.conversation === undefined) continue;
      const list = out.get(r.conversation) ?? [];
      list.push(r);
      out.set(r.conversation, list);
    }
    return out;
  };

  it('LOAD-CONVERSATION: closed loop: each turn sends the whole history with the mock\'s own answers; a slot holds its conversation through the think time; the report gives TTFT and prompt tokens by turn', async () => {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'autocannon' }, { checkIn: 'in-process', durationS: 2, workload: spec(4, 50), onRecord: (r) => records.push(r) }));
    expect(result.counts.failed).toBe(0);
    expect(result.meta.mode).toMatchObject({ kind: 'closed', engine: 'undici', concurrency: 3 });
    const convs = byConversation(records);
    let laterTurns = 0;
    for (const list of convs.values()) {
      list.sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0));
      expect(list.map((r) => r.turn)).toEqual(list.map((_, i) => i + 1));
      for (let k = 1; k < list.length; k++) {
        const prev = list[k - 1]!;
        const cur = list[k]!;
        const got = seen.get(cur.requestId ?? '')!;
        const before = seen.get(prev.requestId ?? '')!;
        // The history: the previous request's messages, then the mock's answer to it, then a new user turn.
        expect(got.messages.slice(0, before.messages.length)).toEqual(before.messages);
        expect(got.messages[before.messages.length]).toEqual({ role: 'assistant', content: before.answer });
        expect(got.messages[before.messages.length + 1]?.role).toBe('user');
        expect(got.messages).toHaveLength(before.messages.length + 2);
        expect(cur.promptTokens!).toBeGreaterThan(prev.promptTokens!);
        // The slot waited for the answer and the think time before the next turn.
        expect(cur.sentUs).toBeGreaterThanOrEqual(prev.intendedUs + (prev.e2eUs ?? 0) + 50_000 - 1_000);
        laterTurns++;
      }
    }
    expect(laterTurns).toBeGreaterThan(3);
    const t = result.turns!;
    expect(t.loop).toBe('closed');
    expect(t.thinkTimeMs).toBe(50);
    const ok = records.filter((r) => r.phase === 'measure' && r.error === null);
    for (const row of t.byTurn) {
      const mine = ok.filter((r) => r.turn === row.turn);
      expect(row.requests).toBe(mine.length);
      expect(row.promptTokens?.mean).toBeCloseTo(mine.reduce((s, r) => s + (r.promptTokens ?? 0), 0) / mine.length, 0);
    }
    const means = t.byTurn.map((r) => r.promptTokens?.mean ?? 0);
    for (let k = 1; k < means.length; k++) expect(means[k]!).toBeGreaterThan(means[k - 1]!);
    expect(t.byTurn).toHaveLength(4);
  }, 60_000);

  it('LOAD-CONVERSATION: open loop: the arrivals are conversations, each later turn timed from the end of the previous answer', async () => {
    const records: RequestRecord[] = [];
    const { result } = await runLoadConfig(loadConfig(mock, { kind: 'open', rate: 4, arrival: 'constant' }, { checkIn: 'in-process', durationS: 2, workload: spec(3, 0), onRecord: (r) => records.push(r) }));
    expect(result.counts.failed).toBe(0);
    const t = result.turns!;
    expect(t.loop).toBe('open');
    // 4 conversations a second for 2 s: 8 arrivals, each a first turn at its scheduled time.
    const firsts = records.filter((r) => r.turn === 1);
    expect(firsts).toHaveLength(8);
    expect(t.conversationsStarted).toBe(8);
    firsts.sort((a, b) => a.intendedUs - b.intendedUs);
    firsts.forEach((r, i) => expect(Math.abs(r.intendedUs - firsts[0]!.intendedUs - i * 250_000)).toBeLessThan(1_000));
    for (const list of byConversation(records).values()) {
      list.sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0));
      for (let k = 1; k < list.length; k++) expect(list[k]!.intendedUs).toBeGreaterThanOrEqual(list[k - 1]!.intendedUs + (list[k - 1]!.e2eUs ?? 0) - 1_000);
    }
  }, 60_000);
});
