import type { CheckDef } from '../context/check-types.ts';
import { requirementIds } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import { evidence, at, isRecord, describeResponse } from '../kernel/evidence.ts';
import { basicCompletion, modelUnderTest, weatherTool, timeTool } from '../requests/common-requests.ts';
import { toolBody, toolCompletion } from '../requests/tool-requests.ts';
import { gate, probeCapability } from '../requests/capability-probes.ts';
import { toolChoiceTurns } from '../requests/tool-choice-turns.ts';
import { judgeFindings } from '../wire/stream-findings.ts';
import { checkedStreams } from '../requests/checked-streams.ts';
import { idsOfRules, requirementOfRule } from '../../protocols/chat-completions/stream-rules.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { sharedRequest } from '../context/shared-requests.ts';

const ids = (...n: number[]): string[] => requirementIds('TOOLS', ...n);
const declared = [weatherTool.function.name, timeTool.function.name] as string[];

const autoToolCompletion = sharedRequest('chat:tool-auto', async (ctx: Parameters<CheckDef['run']>[0]): Promise<HttpExchange> => ctx.http.post(CHAT_COMPLETIONS_PATH, await toolBody(ctx, await modelUnderTest(ctx), { tool_choice: undefined })));

/**
 * Issue 27, judge the server, not the model: an answer that ended normally without any tool call
 * was the model's choice unless the server forces calls (tool_choice honoured). Then the verdict is
 * undecided with that reason; an empty tool_calls array or finish_reason tool_calls stays the server's.
 */
async function modelsChoice(ctx: Parameters<CheckDef['run']>[0], finishReason: unknown): Promise<string | undefined> {
  if (finishReason !== 'stop' && finishReason !== 'length') return undefined;
  const probe = await probeCapability(ctx, 'tool-choice');
  if (probe.status === 'honoured') return undefined;
  return `undecided: the model made no tool call and nothing forced one (finish reason ${JSON.stringify(finishReason)}; tool_choice ${probe.status}: ${probe.detail}${probe.status === 'ignored' ? '; TOOLS-027 judges the ignored tool_choice' : ''})`;
}

function judgeCalls(j: Judge, ex: HttpExchange, label: string): void {
  (at(ex.json, 'choices') as unknown[] | undefined)?.forEach((choice, i) => {
    const msg = at(choice, 'message');
    const calls = at(msg, 'tool_calls');
    if (!Array.isArray(calls)) return;
    const seen = new Set<string>();
    calls.forEach((call, k) => {
      const p = `/choices/${i}/message/tool_calls/${k}`;
      const id = at(call, 'id');
      j.expect('TOOLS-003', typeof id === 'string' && id.length > 0 && !seen.has(id), () => evidence(ex, `${label}: tool call ${k} has no unique non-empty id`, { received: id, pointer: `${p}/id` }));
      if (typeof id === 'string') seen.add(id);
      j.expect('TOOLS-004', at(call, 'type') === 'function', () => evidence(ex, `${label}: tool call ${k} type is not "function"`, { expected: 'function', received: at(call, 'type'), pointer: `${p}/type` }));
      const name = at(call, 'function', 'name');
      j.expect('TOOLS-005', typeof name === 'string' && declared.includes(name), () => evidence(ex, `${label}: tool call ${k} names an undeclared function`, { expected: declared, received: name, pointer: `${p}/function/name` }));
      const args = at(call, 'function', 'arguments');
      if (!j.expect('TOOLS-006', typeof args === 'string', () => evidence(ex, `${label}: function.arguments is not a string`, { expected: 'a JSON string', received: args, pointer: `${p}/function/arguments` }))) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(args as string);
      } catch {
        parsed = undefined;
      }
      if (isRecord(parsed)) j.pass('TOOLS-007');
      else j.informational('TOOLS-007', `${label}: function.arguments ${JSON.stringify(args).slice(0, 80)} does not parse as a JSON object`);
    });
    const content = isRecord(msg) && 'content' in msg ? msg['content'] : undefined;
    j.expect('TOOLS-010', isRecord(msg) && 'content' in msg && (content === null || typeof content === 'string'), () =>
      evidence(ex, `${label}: the tool-call message has no content key (null or a string)`, { expected: null, received: content, pointer: `/choices/${i}/message/content` }),
    );
  });
}

const callShape: CheckDef = {
  name: 'tools-call-shape',
  area: 'tools',
  ids: ids(1, 2, 3, 4, 5, 6, 7, 10, 19),
  title: 'a forced function tool is returned as tool_calls with unique ids, type function, a declared name and string JSON arguments',
  async run(ctx, j) {
    const ex = await toolCompletion(ctx);
    if (!j.expect('TOOLS-001', ex.status === 200, () => evidence(ex, 'a request with tools was refused', { expected: 200, received: describeResponse(ex) }))) {
      j.skipRest('no tool-call answer to inspect');
      return;
    }
    const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
    // Spec, Chat message: "tool_calls | array | on an assistant message, present when the model decides to invoke a tool".
    const unforced = calls === undefined || calls === null ? await modelsChoice(ctx, at(ex.json, 'choices', 0, 'finish_reason')) : undefined;
    if (unforced !== undefined) j.skip('TOOLS-002', unforced);
    else j.expect('TOOLS-002', Array.isArray(calls) && calls.length > 0, () => evidence(ex, 'a forced tool produced no message.tool_calls', { expected: 'non-empty array', received: calls, pointer: '/choices/0/message/tool_calls' }));
    if (await gate(ctx, j, 'tool-choice', ['TOOLS-019'])) {
      j.expect('TOOLS-019', Array.isArray(calls) && calls.some((c) => at(c, 'function', 'name') === weatherTool.function.name), () =>
        evidence(ex, 'the forced function was not called', { expected: weatherTool.function.name, received: Array.isArray(calls) ? calls.map((c) => at(c, 'function', 'name')) : calls }),
      );
      // The answer the capability row and TOOLS-027 read too: the second of two tools forced (issue 43: the row and TOOLS-019 must agree).
      const { named } = await toolChoiceTurns(ctx);
      const namedCalls = at(named.json, 'choices', 0, 'message', 'tool_calls');
      const names = Array.isArray(namedCalls) ? namedCalls.map((c) => at(c, 'function', 'name')) : [];
      j.expect('TOOLS-019', named.status === 200 && names.length > 0 && names.every((n) => n === timeTool.function.name), () =>
        evidence(named, `tool_choice named ${timeTool.function.name} beside ${weatherTool.function.name}: ${named.status === 200 ? 'another function or none was called' : `answered ${named.status}`}`, { expected: [timeTool.function.name], received: named.status === 200 ? names : describeResponse(named), pointer: '/choices/0/message/tool_calls' }),
      );
    }
    judgeCalls(j, ex, 'forced tool call');
    judgeCalls(j, await autoToolCompletion(ctx), 'tool_choice auto');
    j.skipRest('no tool call in the answers to inspect');
  },
};

const finishReasons: CheckDef = {
  name: 'tools-finish-reason',
  area: 'tools',
  ids: ids(8, 9, 22),
  title: 'finish_reason tool_calls comes with tool calls, and tool calls under tool_choice auto finish with tool_calls',
  async run(ctx, j) {
    const answers = [
      { label: 'plain completion', ex: await basicCompletion(ctx) },
      { label: 'forced tool call', ex: await toolCompletion(ctx) },
      { label: 'tool_choice auto', ex: await autoToolCompletion(ctx) },
    ];
    for (const { label, ex } of answers) {
      (at(ex.json, 'choices') as unknown[] | undefined)?.forEach((c, i) => {
        const calls = at(c, 'message', 'tool_calls');
        const has = Array.isArray(calls) && calls.length > 0;
        const fr = at(c, 'finish_reason');
        if (fr === 'tool_calls') {
          j.expect('TOOLS-008', has, () => evidence(ex, `${label}: finish_reason tool_calls without tool calls`, { received: calls, pointer: `/choices/${i}/message/tool_calls` }));
        }
        // An unknown finish_reason is CHAT-013's finding; TOOLS-009 judges a known one.
        if (label === 'tool_choice auto' && has && typeof fr === 'string' && ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'].includes(fr)) {
          j.expect('TOOLS-009', fr === 'tool_calls', () => evidence(ex, `${label}: a choice with tool calls finished with ${JSON.stringify(fr)}`, { expected: 'tool_calls', received: fr, pointer: `/choices/${i}/finish_reason` }));
        }
      });
    }
    judgeFindings(j, await checkedStreams(ctx), j.ids);
  },
};

const roundTrip: CheckDef = {
  name: 'tools-round-trip',
  area: 'tools',
  ids: ['CHAT-026', 'TOOLS-011'],
  title: 'replaying the assistant tool call (content null) with a tool result completes the round trip',
  async run(ctx, j) {
    const first = await toolCompletion(ctx);
    const msg = at(first.json, 'choices', 0, 'message');
    const call = at(msg, 'tool_calls', 0);
    const callId = at(call, 'id');
    if (first.status !== 200 || !isRecord(call) || typeof callId !== 'string' || callId === '') {
      j.skipRest('the forced tool call has no call id to answer (TOOLS-002/003 judge the call)');
      return;
    }
    // Send back a well-formed call: a malformed one is TOOLS-003..006's finding, not the round trip's.
    const args = at(call, 'function', 'arguments');
    const replay = {
      id: callId,
      type: 'function',
      function: { name: String(at(call, 'function', 'name') ?? weatherTool.function.name), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
    const body = await toolBody(ctx, await modelUnderTest(ctx), { tool_choice: undefined });
    body['messages'] = [
      ...(body['messages'] as unknown[]),
      { role: 'assistant', content: null, tool_calls: [replay] },
      { role: 'tool', tool_call_id: callId, content: '{"temperature_c": 21, "sky": "clear"}' },
    ];
    const second = await ctx.http.post(CHAT_COMPLETIONS_PATH, body);
    const ok = second.status === 200;
    j.expect('CHAT-026', ok, () => evidence(second, 'an assistant message with content null and tool_calls was refused', { expected: 200, received: describeResponse(second) }));
    // The completion's own shape is CHAT-001..017's; the round trip needs an answer with choices.
    j.expect('TOOLS-011', ok && Array.isArray(at(second.json, 'choices')), () =>
      evidence(second, 'the tool result did not get a completion', { expected: 'chat.completion', received: describeResponse(second) }),
    );
  },
};

const streamDeltas: CheckDef = {
  name: 'tools-stream-deltas',
  area: 'tools',
  ids: idsOfRules(['tool-index-invalid', 'tool-first-delta-incomplete', 'tool-identity-changed', 'tool-arguments-not-string', 'tool-index-gap', 'tool-arguments-not-json']),
  title: 'streamed tool-call deltas have contiguous integer indexes, a first delta with id, type and name, a stable identity and string argument fragments that join to JSON',
  async run(ctx, j) {
    const streams = await checkedStreams(ctx);
    const tool = streams.find((s) => s.name === 'streamed forced tool call');
    if (tool !== undefined && tool.ex.status === 200) {
      const calls = tool.result.assembled.choices[0]?.toolCalls ?? [];
      const unforced = calls.length === 0 ? await modelsChoice(ctx, tool.result.assembled.choices[0]?.finishReason) : undefined;
      if (unforced !== undefined) j.skip(requirementOfRule('tool-index-invalid'), unforced);
      // Issue 37: "TOOLS-012 FAILs 'the streamed forced tool call carried no tool-call delta' when no tool
      // call came at all", a message nobody could act on. modelsChoice() found the call forced where the
      // server honours tool_choice, so a stream without it is the server's doing (it could have enforced
      // the call, as it does unstreamed): a FAIL that says so, never excused.
      else if (calls.length === 0 && typeof tool.result.assembled.choices[0]?.finishReason !== 'string') j.skip(requirementOfRule('tool-index-invalid'), 'undecided: the stream ended without a finish reason (an in-stream error or a cut, judged by CHAT-STREAM), so no tool-call delta to judge');
      else if (calls.length === 0) j.violated(requirementOfRule('tool-index-invalid'), evidence(tool.ex, `the streamed forced tool call never came: the stream carried no tool_calls delta at all (finish reason ${JSON.stringify(tool.result.assembled.choices[0]?.finishReason ?? null)}), though the server honours tool_choice unstreamed`, { expected: 'delta.tool_calls' }));
      calls.forEach((c, k) => {
        j.expect(requirementOfRule('tool-index-gap'), c.index === k, () => evidence(tool.ex, `tool-call indexes are not contiguous from 0`, { expected: k, received: c.index }));
        let parsed: unknown;
        try {
          parsed = JSON.parse(c.arguments);
        } catch {
          parsed = undefined;
        }
        if (!isRecord(parsed)) j.informational(requirementOfRule('tool-arguments-not-json'), `joined arguments of tool call ${k} do not parse as a JSON object: ${c.arguments.slice(0, 80)}`);
      });
    }
    judgeFindings(j, streams, j.ids);
  },
};

const choiceNone: CheckDef = {
  name: 'tools-choice-none',
  area: 'tools',
  ids: ids(18),
  title: 'tool_choice none suppresses tool calls',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'tool-choice'))) return;
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, await toolBody(ctx, await modelUnderTest(ctx), { tool_choice: 'none' }));
    const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
    j.expect('TOOLS-018', ex.status === 200 && (calls === undefined || calls === null || (Array.isArray(calls) && calls.length === 0)), () =>
      evidence(ex, 'tool_choice none still produced tool calls (or was refused)', { expected: 'no tool_calls', received: ex.status === 200 ? calls : describeResponse(ex) }),
    );
  },
};

const parallel: CheckDef = {
  name: 'tools-parallel-false',
  area: 'tools',
  ids: ids(20),
  title: 'parallel_tool_calls false yields at most one tool call',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'parallel-tool-calls-false'))) return;
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, await toolBody(ctx, await modelUnderTest(ctx), { tool_choice: undefined, tools: [weatherTool, timeTool], parallel_tool_calls: false }));
    const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
    j.expect('TOOLS-020', ex.status === 200 && (!Array.isArray(calls) || calls.length <= 1), () =>
      evidence(ex, 'parallel_tool_calls false gave more than one call (or was refused)', { expected: '<= 1 call', received: ex.status === 200 ? (Array.isArray(calls) ? calls.length : calls) : describeResponse(ex) }),
    );
  },
};

const invalidDefinition: CheckDef = {
  name: 'tools-invalid-definition',
  area: 'tools',
  ids: ids(21),
  title: 'a function name with spaces or over 64 characters answers 400',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    for (const name of ['get weather', 'x'.repeat(65)]) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }],
      });
      j.expect('TOOLS-021', ex.status === 400, () => evidence(ex, `function name "${name.slice(0, 20)}..." was not refused with 400`, { expected: 400, received: describeResponse(ex) }));
    }
  },
};

export const toolsChecks: CheckDef[] = [callShape, finishReasons, roundTrip, streamDeltas, choiceNone, parallel, invalidDefinition];
