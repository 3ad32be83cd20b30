import { describe, expect, it } from 'vitest';
import { functionCallOutput, functionTool, responseIdOfPath, responsePath, responsesBody, userMessage, validateResponsesRequest } from './responses-request.ts';

const tool = functionTool('get_weather', 'Weather', { type: 'object', properties: { city: { type: 'string' } } });

describe('Responses request bodies', () => {
  it('leave out the members not given', () => {
    expect(responsesBody('m', 'hi')).toEqual({ model: 'm', input: 'hi' });
    expect(responsesBody('m', 'hi', { max_output_tokens: 16, store: false })).toEqual({ model: 'm', input: 'hi', max_output_tokens: 16, store: false });
  });

  it('name one stored response by its path, and read the id back', () => {
    expect(responsePath('resp_a/b')).toBe('/v1/responses/resp_a%2Fb');
    expect(responseIdOfPath(responsePath('resp_a/b'))).toBe('resp_a/b');
    expect([responseIdOfPath('/v1/responses'), responseIdOfPath('/v1/responses/'), responseIdOfPath('/v1/responses/a/b')]).toEqual([undefined, undefined, undefined]);
  });
});

describe('Responses request validation (as the mock applies it)', () => {
  it('reads a string input as one user turn, and items as turns, replayed members and reasoning items included', () => {
    const r = validateResponsesRequest({
      model: 'm',
      instructions: 'Be brief.',
      input: [userMessage('Weather?'), { type: 'reasoning', id: 'rs_1', summary: [] }, { type: 'function_call', id: 'fc_1', status: 'completed', call_id: 'c1', name: 'get_weather', arguments: '{}' }, functionCallOutput('c1', 'sunny'), { role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.', annotations: [], logprobs: null }] }],
      tools: [tool, { type: 'web_search' }],
      tool_choice: { type: 'function', name: 'get_weather' },
      metadata: { k: 'v' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.request.turns).toEqual([
      { kind: 'message', role: 'user', text: 'Weather?' },
      { kind: 'function_call', callId: 'c1', name: 'get_weather', arguments: '{}' },
      { kind: 'function_call_output', callId: 'c1', output: 'sunny' },
      { kind: 'message', role: 'assistant', text: 'Sunny.' },
    ]);
    expect([r.request.tools.map((t) => t.name), r.request.toolChoice, r.request.store, r.request.instructions]).toEqual([['get_weather'], { mode: 'named', name: 'get_weather' }, true, 'Be brief.']);
    expect(validateResponsesRequest({ model: 'm', input: 'hi' })).toMatchObject({ ok: true, request: { turns: [{ kind: 'message', role: 'user', text: 'hi' }], stream: false, store: true, previousResponseId: null } });
  });

  it.each([
    [{ input: 'x' }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: 42 }, 'input'],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ model: 'm', input: [{ type: 'image_generation_call' }] }, 'input[0].type'],
    [{ model: 'm', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    [{ model: 'm', input: 'x', max_output_tokens: 8 }, 'max_output_tokens'],
    [{ model: 'm', input: 'x', max_output_tokens: 'many' }, 'max_output_tokens'],
    [{ model: 'm', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools[0].name'],
    [{ model: 'm', input: 'x', tool_choice: 'required' }, 'tool_choice'],
    [{ model: 'm', input: 'x', tools: [tool], tool_choice: { type: 'function', name: 'other' } }, 'tool_choice'],
    [{ model: 'm', input: 'x', metadata: { a: 1 } }, 'metadata.a'],
    [{ model: 'm', input: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ model: 'm', input: 'x', previous_response_id: 7 }, 'previous_response_id'],
    [{ model: 'm', input: 'x', store: 'yes' }, 'store'],
    [{ model: 'm', input: 'x', temperature: 3 }, 'temperature'],
  ])('refuses %j naming %s', (body, param) => {
    const r = validateResponsesRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.param).toBe(param);
  });
});
