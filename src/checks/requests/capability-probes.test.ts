import { describe, expect, it } from 'vitest';
import type { HttpExchange } from '../http/check-http.ts';
import { effortOrder, toolChoiceEffect, toolChoiceStatus } from './capability-probes.ts';

function turn(names: string[], finish: string, status = 200): HttpExchange {
  const message = names.length === 0 ? { role: 'assistant', content: 'Hello!' } : { role: 'assistant', content: null, tool_calls: names.map((name, i) => ({ id: `call_${i}`, type: 'function', function: { name, arguments: '{}' } })) };
  const json = { choices: [{ index: 0, message, finish_reason: finish }] };
  const text = JSON.stringify(json);
  return { method: 'POST', path: '/v1/chat/completions', status, headers: {}, bytes: new TextEncoder().encode(text), text, json, jsonError: undefined, requestId: undefined, curl: '', chunks: [], durationMs: 1, sentJson: undefined, bodyError: undefined };
}

const noCalls = (calls: { name: unknown }[]): boolean => calls.length === 0;
const onlyTime = (calls: { name: unknown }[]): boolean => calls.length > 0 && calls.every((c) => c.name === 'get_time');
const some = (calls: { name: unknown }[]): boolean => calls.length > 0;

/** The three variants of the probe: none and named against the two-tool baseline, required against the hello baseline. */
function status(both: HttpExchange, none: HttpExchange, named: HttpExchange, hello: HttpExchange, required: HttpExchange): string {
  return toolChoiceStatus([toolChoiceEffect('none', both, none, noCalls), toolChoiceEffect('named', both, named, onlyTime), toolChoiceEffect('required', hello, required, some)]);
}

describe('tool-choice probe', () => {
  const both = turn(['get_weather', 'get_time'], 'tool_calls');
  const text = turn([], 'stop');

  it('TOOLS-023: a server that never calls a tool and ignores tool_choice (mock-llm) has not claimed it', () => {
    expect(status(text, text, text, text, text)).toBe('ignored');
  });

  it('TOOLS-018: a server that drops tool_choice and calls tools as with auto has not claimed it', () => {
    expect(status(both, both, both, both, both)).toBe('ignored');
  });

  it('TOOLS-018, TOOLS-019, TOOLS-023: a server whose every variant has the right effect honours it', () => {
    expect(status(both, text, turn(['get_time'], 'tool_calls'), text, turn(['get_weather'], 'tool_calls'))).toBe('honoured');
    // Where auto already calls a tool for hello, "required" cannot show an effect: the others decide.
    expect(status(both, text, turn(['get_time'], 'tool_calls'), both, both)).toBe('honoured');
  });

  it('TOOLS-023: honouring none and named while "required" answers text as auto does is half an implementation: broken, so judged', () => {
    expect(status(both, text, turn(['get_time'], 'tool_calls'), text, text)).toBe('broken');
  });

  it('TOOLS-019: a named choice that calls another function than the baseline and than the named one is broken', () => {
    expect(status(both, text, turn(['get_weather'], 'tool_calls'), both, both)).toBe('broken');
  });

  it('TOOLS-019: a named choice refused with 400 while none is honoured is broken', () => {
    expect(status(both, text, turn([], 'stop', 400), both, both)).toBe('broken');
  });

  it('TOOLS-023: an empty tool_calls list keeps the finish_reason apart: "required" with the baseline\'s empty calls is no effect, "none" ending in stop is an effect', () => {
    const empty = turn([], 'tool_calls');
    expect(toolChoiceEffect('none', empty, text, noCalls).effect).toBe('honoured');
    expect(toolChoiceEffect('required', empty, empty, some).effect).toBe('no effect');
  });
});

function answer(message: Record<string, unknown>, usage?: Record<string, unknown>): HttpExchange {
  const ex = turn([], 'stop');
  return { ...ex, json: { choices: [{ index: 0, message: { role: 'assistant', content: 'Hello', ...message }, finish_reason: 'stop' }], ...(usage === undefined ? {} : { usage }) } };
}

describe('reasoning-effort probe', () => {
  it('CHAT-039: compares reasoning_tokens where both answers report them', () => {
    const low = answer({ reasoning_content: 'a much longer text than the other one' }, { completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } });
    const high = answer({ reasoning_content: 'short' }, { completion_tokens: 20, completion_tokens_details: { reasoning_tokens: 15 } });
    expect(effortOrder(low, high)).toEqual({ unit: 'reasoning_tokens', lowAmount: 4, highAmount: 15 });
  });

  it('CHAT-039: falls back to the reasoning text (reasoning_content or reasoning) where a count is missing, and says nothing without either', () => {
    expect(effortOrder(answer({ reasoning: 'abc' }), answer({ reasoning_content: 'abcdef' }, { completion_tokens_details: { reasoning_tokens: 9 } }))).toEqual({ unit: 'reasoning characters', lowAmount: 3, highAmount: 6 });
    expect(effortOrder(answer({}), answer({ reasoning: 'x' }))).toBeUndefined();
  });
});
