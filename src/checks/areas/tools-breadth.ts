import type { CheckContext, CheckDef } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, at, isRecord, describeResponse } from '../kernel/evidence.ts';
import { modelUnderTest, parallelToolStream, timeTool, weatherTool } from '../requests/common-requests.ts';
import { gate } from '../requests/capability-probes.ts';
import { callsByIndex, toolDeltas } from '../wire/streamed-tool-calls.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

// Tool-calling breadth (issue 19): tool_choice "required", parallel calls streamed with interleaved
// deltas, nested and array argument schemas. tool_choice and parallel calls are capabilities
// (capabilities.ts): judged where the server offers them.

const CHAT = CHAT_COMPLETIONS_PATH;

/** A function whose parameters hold a nested object and an array of objects. */
export const tripTool = {
  type: 'function',
  function: {
    name: 'plan_trip',
    description: 'Plan a trip for a traveller through several stops.',
    parameters: {
      type: 'object',
      properties: {
        traveller: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] },
        stops: { type: 'array', items: { type: 'object', properties: { city: { type: 'string' }, nights: { type: 'integer' } }, required: ['city', 'nights'] } },
      },
      required: ['traveller', 'stops'],
    },
  },
} as const;

function parses(text: string): boolean {
  try {
    return isRecord(JSON.parse(text));
  } catch {
    return false;
  }
}

const required: CheckDef = {
  name: 'tools-choice-required',
  area: 'tools',
  ids: ['TOOLS-023'],
  title: 'tool_choice required answers at least one tool call',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'tool-choice', ['TOOLS-023']))) return;
    // Compat (OpenAI tool_choice): "required means the model must call one or more tools".
    const ex = await ctx.http.post(CHAT, { model: await modelUnderTest(ctx), messages: [{ role: 'user', content: 'Say hello.' }], tools: [weatherTool, timeTool], tool_choice: 'required' });
    const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
    j.expect('TOOLS-023', ex.status === 200 && Array.isArray(calls) && calls.length > 0, () =>
      evidence(ex, 'tool_choice "required" gave no tool call', { expected: 'at least one tool call', received: ex.status === 200 ? (calls ?? at(ex.json, 'choices', 0, 'message', 'content')) : describeResponse(ex) }),
    );
  },
};

const parallelStream: CheckDef = {
  name: 'tools-parallel-stream',
  area: 'tools',
  ids: ['TOOLS-024', 'TOOLS-025'],
  title: 'two parallel calls stream at their own indexes (deltas may interleave), with distinct ids and arguments that parse',
  async run(ctx, j) {
    // The probe streamed this turn (streamed-tool-calls.ts): fewer than two calls in it is "absent".
    if (!(await gate(ctx, j, 'parallel-tool-calls'))) return;
    const ex = await parallelToolStream(ctx);
    if (ex.status !== 200) {
      j.skipRest(`the two-tool stream answered ${ex.status} (the stream checks judge it)`);
      return;
    }
    const calls = callsByIndex(toolDeltas(ex));
    // Compat (chat.completion.chunk): delta.tool_calls[].index identifies the call a fragment belongs to.
    for (const c of calls) {
      // Arguments that do not parse are TOOLS-017's (models may send them); two ids or names at one index are this.
      j.expect('TOOLS-024', c.ids.size <= 1 && c.names.size <= 1, () =>
        evidence(ex, `the deltas at index ${JSON.stringify(c.index)} join to ${c.ids.size} ids and ${c.names.size} names (arguments ${parses(c.args) ? 'parse' : 'do not parse'}): two calls share one index`, { expected: 'one call per index', received: { index: c.index, ids: [...c.ids], names: [...c.names], arguments: c.args.slice(0, 120) } }),
      );
    }
    // Seed, Chat message: a tool result is sent back "as a message with role tool", naming the call's id.
    const firstIds = calls.map((c) => [...c.ids][0]).filter((id): id is string => id !== undefined);
    j.expect('TOOLS-025', new Set(firstIds).size === firstIds.length && firstIds.length === calls.length, () =>
      evidence(ex, 'parallel calls do not have one distinct id each', { expected: 'distinct ids', received: calls.map((c) => ({ index: c.index, ids: [...c.ids] })) }),
    );
  },
};

const nested: CheckDef = {
  name: 'tools-nested-arguments',
  area: 'tools',
  ids: ['TOOLS-026'],
  title: 'arguments of a function with a nested object and an array of objects keep their structure',
  async run(ctx: CheckContext, j) {
    const ex = await ctx.http.post(CHAT, { model: await modelUnderTest(ctx), messages: [{ role: 'user', content: 'Plan a trip for Ada (36) through Zürich (2 nights) and Paris (3 nights).' }], tools: [tripTool] });
    const args = at(ex.json, 'choices', 0, 'message', 'tool_calls', 0, 'function', 'arguments');
    if (ex.status !== 200 || typeof args !== 'string') {
      j.skip('TOOLS-026', `no call with string arguments to inspect (${ex.status}; TOOLS-001..006 judge the call)`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(args);
    } catch {
      j.skip('TOOLS-026', 'the arguments do not parse (TOOLS-007 records it)');
      return;
    }
    const traveller = at(value, 'traveller');
    const stops = at(value, 'stops');
    j.expect('TOOLS-026', isRecord(traveller) && Array.isArray(stops) && stops.every(isRecord), () =>
      evidence(ex, 'the nested object or the array of objects did not arrive as JSON structure', { expected: { traveller: 'an object', stops: 'an array of objects' }, received: { traveller, stops }, pointer: '/choices/0/message/tool_calls/0/function/arguments' }),
    );
  },
};

export const toolsBreadthChecks: CheckDef[] = [required, parallelStream, nested];
