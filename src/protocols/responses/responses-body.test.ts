import { describe, expect, it } from 'vitest';
import { checkResponseBody, compareStored, responseFacts, type Json } from './responses-body.ts';
import { finalResponse, type PlannedResponse } from './responses-writer.ts';
import type { ResponsesRuleCode } from './responses-rules.ts';

const plan: PlannedResponse = {
  base: { id: 'resp_1', object: 'response', created_at: 1_790_000_000, model: 'm', metadata: { run: 'a' } },
  items: [
    { kind: 'message', id: 'msg_1', pieces: ['Hel', 'lo'] },
    { kind: 'function_call', id: 'fc_1', callId: 'call_1', name: 'get_weather', pieces: ['{"city":"Paris"}'] },
  ],
  status: 'completed',
  usage: { input_tokens: 9, output_tokens: 7, total_tokens: 16 },
  completedAt: 1_790_000_001,
};
const body = (): Json => finalResponse(plan);
const rules = (b: unknown, sent: Parameters<typeof checkResponseBody>[1] = {}): ResponsesRuleCode[] => [...new Set(checkResponseBody(b, sent).findings.map((f) => f.rule))].sort();
const edit = (f: (b: Json) => void): Json => {
  const b = structuredClone(body());
  f(b);
  return b;
};

describe('the Response object checker', () => {
  it('finds nothing in a written Response and reads its facts', () => {
    expect(rules(body(), { maxOutputTokens: 64, metadata: { run: 'a' } })).toEqual([]);
    const f = responseFacts(body());
    expect([f.id, f.status, f.text, f.itemTypes, f.usage?.totalTokens]).toEqual(['resp_1', 'completed', 'Hello', ['message', 'function_call'], 16]);
    expect(f.functionCalls.map((c) => [c.callId, c.name, c.arguments])).toEqual([['call_1', 'get_weather', '{"city":"Paris"}']]);
  });

  it.each<[string, Json | unknown, ResponsesRuleCode, Parameters<typeof checkResponseBody>[1]?]>([
    ['a string body', 'hello', 'body-invalid'],
    ['no id', edit((b) => delete b['id']), 'id-invalid'],
    ['object "responses"', edit((b) => { b['object'] = 'responses'; }), 'object-wrong'],
    ['created_at in milliseconds', edit((b) => { b['created_at'] = 1_790_000_000_000; }), 'created-at-invalid'],
    ['no model', edit((b) => { b['model'] = ''; }), 'model-invalid'],
    ['no output', edit((b) => delete b['output']), 'output-invalid'],
    ['a message with string content', edit((b) => { ((b['output'] as Json[])[0] as Json)['content'] = 'Hello'; }), 'item-invalid'],
    ['a function call without call_id', edit((b) => delete ((b['output'] as Json[])[1] as Json)['call_id']), 'item-invalid'],
    ['an unknown status', edit((b) => { b['status'] = 'done'; }), 'status-invalid'],
    ['incomplete without details', edit((b) => { b['status'] = 'incomplete'; b['incomplete_details'] = null; }), 'incomplete-details-missing'],
    ['usage with chat names', edit((b) => { b['usage'] = { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 }; }), 'usage-counts'],
    ['no usage', edit((b) => delete b['usage']), 'usage-missing'],
    ['a total that does not add up', edit((b) => { (b['usage'] as Json)['total_tokens'] = 17; }), 'usage-counts'],
    ['completed at the bound', body(), 'cut-as-completed', { maxOutputTokens: 7 }],
    ['more than the bound', body(), 'output-over-bound', { maxOutputTokens: 5 }],
    ['metadata dropped', edit((b) => { b['metadata'] = null; }), 'metadata-not-echoed', { metadata: { run: 'a' } }],
  ])('reports %s', (_, b, rule, sent) => {
    expect(rules(b, sent)).toEqual([rule]);
  });

  it('never throws, whatever the body', () => {
    for (const b of [null, 3, [], { output: [null, 1, { type: 'message', content: [null] }] }, { usage: [], status: 7 }]) expect(() => checkResponseBody(b, { maxOutputTokens: 16, metadata: {} })).not.toThrow();
  });

  it('compares a retrieved response with the one created, member by member', () => {
    const created = responseFacts(body());
    expect(compareStored(created, body())).toEqual([]);
    const other = edit((b) => { ((((b['output'] as Json[])[0] as Json)['content'] as Json[])[0] as Json)['text'] = 'Hi'; b['id'] = 'resp_2'; });
    expect(compareStored(created, other).map((f) => f.pointer)).toEqual(['/id', '/output']);
  });
});
