import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer, MockRequest, MockResponse } from '../../mock-server/index.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { runLoad, type LoadConfig } from '../../src/load/run-load.ts';
import { runScenario } from '../../src/library/run-scenario.ts';
import type { WorkloadSpec } from '../../src/load/workloads/workload.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

interface Seen {
  body: { input: string | { role: string; content: { text: string }[] }[]; previous_response_id?: string; instructions?: string };
  /** The id of the Response the mock streamed back, and its text. */
  id: string;
  answer: string;
}

/**
 * `iari load --api responses --turns N` against the mock, whose POST /v1/responses keeps every
 * stored Response (bounded LRU) for previous_response_id and reports prompt-cache hits in
 * usage.input_tokens_details.cached_tokens. Ground truth: what the mock received (its handler
 * wrapped) and the ids and texts it answered.
 */
describe('Responses conversations under load: resend or chain previous_response_id', () => {
  let mock: MockServer;
  const seen = new Map<string, Seen>();
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 10, itlMs: 1, completionTokens: 6, prefixCache: { blockTokens: 16, capacityBlocks: 100_000, prefillMsPerToken: 0 } });
    const handle = mock.core.handle.bind(mock.core);
    mock.core.handle = (req: MockRequest): MockResponse => {
      const res = handle(req);
      if (res.kind === 'stream' && req.path.endsWith('/responses')) {
        const data = res.events.map((e) => e.data).join('');
        const id = /"response":\{"id":"(resp_[^"]+)"/.exec(data)?.[1] ?? '';
        const answer = res.events.filter((e) => e.content && e.text !== undefined).map((e) => e.text).join('');
        seen.set(res.requestId, { body: JSON.parse(Buffer.from(req.body).toString('utf8')) as Seen['body'], id, answer });
      }
      return res;
    };
  });
  afterAll(() => mock.close());

  const spec = (chain: boolean): WorkloadSpec => ({
    input: { kind: 'synthetic', length: { mean: 40, stdev: 0 } },
    output: null,
    maxTokensField: 'max_tokens',
    extraBody: null,
    prefix: { tokens: 64, groups: 1 },
    conversation: { turns: { mean: 3, stdev: 0 }, thinkTimeMs: 0, ...(chain ? { chain: 'previous-response-id' as const } : {}) },
  });
  async function load(chain: boolean, over: Partial<LoadConfig> = {}): Promise<{ result: LoadResult; convs: RequestRecord[][] }> {
    const records: RequestRecord[] = [];
    const { result } = await runLoad(loadConfig(mock, { kind: 'closed', concurrency: 3, engine: 'undici' }, { api: 'responses', checkIn: 'in-process', durationS: 1.5, workload: spec(chain), onRecord: (r) => records.push(r), ...over }));
    const by = new Map<number, RequestRecord[]>();
    for (const r of records) if (r.phase !== 'aborted' && r.conversation !== undefined) by.set(r.conversation, [...(by.get(r.conversation) ?? []), r]);
    return { result, convs: [...by.values()].map((l) => l.sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0))) };
  }

  it('LOAD-CONVERSATION: --chain previous-response-id: each later turn names the id of the answer before it and sends only its new user turn; usage counts the whole context, and the cache report reads input_tokens_details.cached_tokens', async () => {
    const { result, convs } = await load(true);
    expect(result.counts.failed).toBe(0);
    expect(result.meta.config.workload?.conversation?.chain).toBe('previous-response-id');
    let later = 0;
    for (const list of convs) {
      expect(list.map((r) => r.turn)).toEqual(list.map((_, i) => i + 1));
      const first = seen.get(list[0]!.requestId ?? '')!;
      expect(first.body.previous_response_id).toBeUndefined();
      for (let k = 1; k < list.length; k++) {
        const prev = seen.get(list[k - 1]!.requestId ?? '')!;
        const cur = seen.get(list[k]!.requestId ?? '')!;
        expect(cur.body.previous_response_id).toBe(prev.id);
        // Only the new user turn goes; the instructions (the shared prefix) go every time, as OpenAI carries none over.
        expect(typeof cur.body.input).toBe('string');
        expect(cur.body.instructions).toBe(first.body.instructions);
        // The mock's input_tokens count the kept context: the whole conversation so far.
        expect(list[k]!.promptTokens!).toBeGreaterThan(list[k - 1]!.promptTokens!);
        later++;
      }
    }
    expect(later).toBeGreaterThan(2);
    const ok = convs.flat().filter((r) => r.phase === 'measure' && r.error === null);
    expect(result.cache?.cachedTokens).toBe(ok.reduce((s, r) => s + (r.cachedTokens ?? 0), 0));
    expect(result.cache?.cachedTokens).toBeGreaterThan(0);
    expect(result.turns?.byTurn.map((r) => r.turn)).toEqual([1, 2, 3]);
  }, 60_000);

  it('LOAD-CONVERSATION: --chain resend (the default): each later turn resends the whole history with the mock\'s own answers and names no earlier response', async () => {
    const { result, convs } = await load(false);
    expect(result.counts.failed).toBe(0);
    let later = 0;
    for (const list of convs) {
      for (let k = 1; k < list.length; k++) {
        const prev = seen.get(list[k - 1]!.requestId ?? '')!;
        const cur = seen.get(list[k]!.requestId ?? '')!;
        expect(cur.body.previous_response_id).toBeUndefined();
        const items = cur.body.input as { role: string; content: { text: string }[] }[];
        expect(items).toHaveLength(2 * k + 1);
        expect(items[2 * k - 1]).toMatchObject({ role: 'assistant', content: [{ text: prev.answer }] });
        later++;
      }
    }
    expect(later).toBeGreaterThan(2);
  }, 60_000);

  it('RESP-STATE-005: against a stateless server (legal-responses-stateless) chained later turns fail as the server\'s 400 and end their conversation; resent ones fail nothing', async () => {
    const stateless = { extraHeaders: () => ({ 'x-iari-fault': 'legal-responses-stateless' }) };
    const chained = await load(true, stateless);
    const failed = chained.convs.flat().filter((r) => r.error !== null && r.phase === 'measure');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.turn === 2 && r.error?.class === 'http_status' && r.status === 400)).toBe(true);
    expect(chained.convs.every((l) => l.length <= 2)).toBe(true);
    const resent = await load(false, stateless);
    expect(resent.result.counts.failed).toBe(0);
    expect(resent.convs.some((l) => l.length === 3)).toBe(true);
  }, 60_000);

  it('--chain previous-response-id with an API that cannot chain is a usage error before any traffic', async () => {
    const error = await runScenario({ workload: [{ kind: 'conversations', turns: '2', chain: 'previous-response-id' }], run: { requests: 2 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2 });
    expect(String((error as Error).message)).toMatch(/workload conversations\.chain previous-response-id .*Chat completions/);
  });
});
