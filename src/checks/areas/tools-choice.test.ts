import { describe, expect, it } from 'vitest';
import type { HttpExchange } from '../http/check-http.ts';
import { forcedChoiceFindings } from './tools-choice.ts';

// Issue 37 item 3: an accepted tool_choice is the server's to enforce; a refusal is legal; a forced
// call cut at the output bound is the model's length.

function ex(status: number, message: Record<string, unknown> | undefined, finish = 'stop'): HttpExchange {
  const json = message === undefined ? { error: { message: 'tool_choice is not supported' } } : { choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }] };
  return { status, json, requestId: `req-${status}` } as unknown as HttpExchange;
}
const call = (name: string): Record<string, unknown> => ({ content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: '{}' } }] });
const text = { content: 'Hello.' };
const honouring = { none: ex(200, text), named: ex(200, call('get_time'), 'tool_calls'), required: ex(200, call('get_weather'), 'tool_calls') };

describe('forcedChoiceFindings', () => {
  it('TOOLS-027: a server that honours every variant has no violation', () => {
    const f = forcedChoiceFindings(honouring);
    expect(f.violations).toEqual([]);
    expect(f.honoured).toHaveLength(3);
  });

  it('TOOLS-027: a call under "none", text under "required" and another function under a named choice are each violations', () => {
    const f = forcedChoiceFindings({ none: ex(200, call('get_weather'), 'tool_calls'), named: ex(200, call('get_weather'), 'tool_calls'), required: ex(200, text) });
    expect(f.violations.map((v) => v.message.split(' was ')[0])).toEqual(['tool_choice "none"', 'tool_choice naming get_time', 'tool_choice "required"']);
    expect(f.violations[2]?.requestId).toBe('req-200');
  });

  it('TOOLS-027: a refusal (4xx) is legal and judges nothing; a 5xx is undecided', () => {
    const f = forcedChoiceFindings({ none: ex(400, undefined), named: ex(422, undefined), required: ex(500, undefined) });
    expect(f.violations).toEqual([]);
    expect(f.refused).toHaveLength(2);
    expect(f.undecided).toEqual(['tool_choice "required" answered 500']);
  });

  it('TOOLS-027: a forced call cut at the output bound (finish length) before any call is undecided, never a FAIL; a call under "none", or of another function than the named one, is a FAIL whatever the finish', () => {
    const cut = forcedChoiceFindings({ none: ex(200, text), named: ex(200, text, 'length'), required: ex(200, text, 'length') });
    expect(cut.violations).toEqual([]);
    expect(cut.undecided).toHaveLength(2);
    const none = forcedChoiceFindings({ ...honouring, none: ex(200, call('get_weather'), 'length') });
    expect(none.violations).toHaveLength(1);
    // llama-server reads a named tool_choice as "auto": the designed model's calls of get_weather, cut at the bound, are not the forced get_time.
    const other = forcedChoiceFindings({ ...honouring, named: ex(200, call('get_weather'), 'length') });
    expect(other.violations.map((v) => v.message)).toEqual(['tool_choice naming get_time was accepted (200) and not honoured: 1 call(s) of "get_weather"']);
  });
});
